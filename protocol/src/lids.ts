import { z } from 'zod';
import { SessionName } from './ids.js';

/** A linked id (`<id>@lid`), or its digits alone. */
export const LidRef = z
  .string()
  .trim()
  .regex(/^\d{1,24}(@lid)?$/, { message: 'must be "<id>@lid" or its digits' })
  .transform((lid) => (lid.endsWith('@lid') ? lid : `${lid}@lid`));

/** A phone-number id (`<number>@c.us`, `@s.whatsapp.net`), or the number alone with an optional `+`. */
export const PhoneNumberRef = z
  .string()
  .trim()
  .regex(/^\+?\d{1,20}(@c\.us|@s\.whatsapp\.net)?$/, { message: 'must be "<number>@c.us" or a phone number in international format (digits)' })
  .transform((pn) => `${pn.replace(/^\+/, '').split('@')[0]}@c.us`);

export const LidPathParams = z.object({ session: SessionName, lid: LidRef });
export const PhoneNumberPathParams = z.object({ session: SessionName, phoneNumber: PhoneNumberRef });

/** The largest page of `GET /api/{session}/lids`. */
export const LIDS_MAX_LIMIT = 1000;

export const LidsQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(0)
    .max(LIDS_MAX_LIMIT)
    .default(100)
    .transform((limit) => (limit === 0 ? LIDS_MAX_LIMIT : limit))
    .meta({ description: `How many: default 100, at most ${LIDS_MAX_LIMIT}; 0 sets no limit of its own (${LIDS_MAX_LIMIT})` }),
  offset: z.coerce.number().int().min(0).default(0).meta({ description: 'How many to skip: default 0' }),
});
export type LidsQuery = z.infer<typeof LidsQuery>;

/**
 * One entry of the session's LID map: a contact's linked id and its phone-number id. A lookup
 * that finds nothing answers the id it was asked for alone, as the peer does.
 */
export const LidToPhoneNumber = z
  .object({
    lid: z
      .string()
      .optional()
      .meta({ description: 'Linked id of the user', examples: ['1111111@lid'] }),
    pn: z
      .string()
      .optional()
      .meta({ description: 'Phone-number id (chat id) of the user', examples: ['3333333@c.us'] }),
  })
  .meta({ id: 'LidToPhoneNumber' });
export type LidToPhoneNumber = z.infer<typeof LidToPhoneNumber>;
