import { z } from 'zod';
import { CHAT_ID_FORMS, ChatId, DEFAULT_SESSION, phoneToChatId, SessionName } from './ids.js';

/** A client-chosen message id (from `GET /api/{session}/new-message-id` or its own). */
export const OutgoingMessageId = z.string().regex(/^[0-9A-Za-z]{8,64}$/, { message: 'must be 8-64 letters or digits' });

/**
 * The fields every send takes besides its content (spec 4.5: `reply_to` on every send). Field
 * names follow what clients of this interface already send.
 */
export const sendFields = {
  chatId: ChatId,
  reply_to: z
    .string()
    .max(256)
    .nullish()
    .meta({ description: 'Id of the message to reply to', examples: ['false_15551234567@c.us_AAAAAAAAAAAAAAAAAAAA'] }),
  id: OutgoingMessageId.nullish().meta({ description: 'Pre-generated message id' }),
};

/** The session field of spec 4.5 bodies, which name the session in the body, not the path. */
export const sessionField = { session: SessionName.default(DEFAULT_SESSION) };

/**
 * A request body from the engine command's arguments: the session travels beside a command, so
 * the arguments are the schema and the body adds the session (refinements are kept).
 */
export function withSession<Shape extends z.core.$ZodShape>(args: z.ZodObject<Shape>) {
  return args.extend(sessionField);
}

export const MessageTextRequest = z
  .object({
    ...sessionField,
    chatId: sendFields.chatId,
    text: z.string().min(1).max(65536),
    reply_to: sendFields.reply_to,
    linkPreview: z.boolean().default(true),
    // The peer's field (default false). No engine here makes a sendText preview image in high
    // quality, so true is refused rather than dropped: send/link-custom-preview does it.
    linkPreviewHighQuality: z
      .boolean()
      .optional()
      .refine((value) => value !== true, {
        message: 'true is not supported on sendText: use POST /api/send/link-custom-preview, which sends a high-quality preview image',
      })
      .meta({ description: 'Only false: a high-quality preview image is sent by send/link-custom-preview' }),
    id: sendFields.id,
  })
  .meta({ id: 'MessageTextRequest' });
export type MessageTextRequest = z.infer<typeof MessageTextRequest>;

/** Deprecated `POST /api/reply`: a text send, from before `reply_to` was on every send. */
export const MessageReplyRequest = MessageTextRequest.meta({ id: 'MessageReplyRequest' });

/** Deprecated `GET /api/sendText`: `phone` is a number or a chat id. */
export const SendTextQuery = z.object({
  phone: z
    .string()
    .min(1)
    .max(64, { abort: true })
    // What phoneToChatId makes a valid chat id of: a chat id, or a number (its digits are kept).
    .regex(new RegExp(`^\\s*(${CHAT_ID_FORMS})\\s*$|^[^@\\d]*(\\d[^@\\d]*){1,20}$`), {
      message: 'must be a phone number (up to 20 digits) or a chat id',
    })
    .transform(phoneToChatId)
    .pipe(ChatId)
    .meta({ description: 'A phone number (digits; other characters are dropped) or a chat id; it becomes the chat id' }),
  text: z.string().min(1).max(65536),
  session: SessionName.default(DEFAULT_SESSION),
});
