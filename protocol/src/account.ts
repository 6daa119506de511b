import { z } from 'zod';
import { OutgoingMessageId } from './chatting.js';
import { ContactId, DEFAULT_SESSION, SessionName } from './ids.js';

/**
 * A phone number as clients write it: digits with an optional `+`, spaces, dashes, dots or
 * parentheses, or a `<number>@c.us` id. It becomes the digits alone.
 */
export const PhoneNumber = z
  .string()
  // `abort`: a longer value is refused before the pattern reads it (zod runs every check unless
  // one aborts).
  .max(64, { abort: true })
  // The rule on what the client sends (so the OpenAPI document states it): 6 to 15 digits, an
  // optional leading "+", separators anywhere, and an optional "@c.us" at the end. Written so
  // that each character can be read one way only: matching takes linear time.
  .regex(/^[\s().-]*(?:\+[\s().-]*)?(?:\d[\s().-]*){6,15}(?:@c\.us\s*)?$/, {
    message: 'must be a phone number in international format: 6 to 15 digits',
  })
  .transform((phone) =>
    phone
      .trim()
      .replace(/@c\.us$/, '')
      .replace(/[\s().-]/g, '')
      .replace(/^\+/, ''),
  )
  .meta({ description: 'The phone number to check, in international format', examples: ['1213213213'] });

/** The GET forms' query (`/contacts/check-exists`, `/checkNumberStatus`): a query schema has no id. */
export const CheckNumberQuery = z.object({ phone: PhoneNumber, session: SessionName.default(DEFAULT_SESSION) });

/** `POST /api/contacts/check-exists` (spec): the same fields as a body. */
export const CheckNumberRequest = CheckNumberQuery.meta({ id: 'CheckNumberRequest' });
export type CheckNumberRequest = z.infer<typeof CheckNumberRequest>;

export const WANumberExistResult = z
  .object({
    numberExists: z.boolean(),
    chatId: ContactId.optional().meta({ description: 'The chat id of the number; absent when the number is not registered' }),
  })
  .meta({ id: 'WANumberExistResult' });
export type WANumberExistResult = z.infer<typeof WANumberExistResult>;

/** `GET /api/{session}/new-message-id`: an id a send then takes as its `id`. */
export const NewMessageIDResponse = z
  .object({ id: OutgoingMessageId.meta({ description: 'Pre-generated message id', examples: ['3EB0C767D097B7C7A9F2'] }) })
  .meta({ id: 'NewMessageIDResponse' });
export type NewMessageIDResponse = z.infer<typeof NewMessageIDResponse>;
