import { z } from 'zod';
import { ChatId, DEFAULT_SESSION, phoneToChatId, SessionName } from './ids.js';

/** A client-chosen message id (from `GET /api/{session}/new-message-id` or its own). */
export const OutgoingMessageId = z
  .string()
  .regex(/^[0-9A-Za-z]{8,64}$/, { message: 'must be 8-64 letters or digits' });

/** Field names follow what clients of this interface already send. */
export const MessageTextRequest = z
  .object({
    session: SessionName.default(DEFAULT_SESSION),
    chatId: ChatId,
    text: z.string().min(1).max(65536),
    reply_to: z.string().max(256).nullish().meta({ description: 'Id of the message to reply to' }),
    linkPreview: z.boolean().default(true),
    id: OutgoingMessageId.nullish().meta({ description: 'Pre-generated message id' }),
  })
  .meta({ id: 'MessageTextRequest' });
export type MessageTextRequest = z.infer<typeof MessageTextRequest>;

/** Deprecated `GET /api/sendText`: `phone` is a number or a chat id. */
export const SendTextQuery = z.object({
  phone: z
    .string()
    .min(1)
    .max(64)
    .transform(phoneToChatId)
    .pipe(ChatId)
    .meta({ description: 'A phone number (digits) or a chat id; it becomes the chat id' }),
  text: z.string().min(1).max(65536),
  session: SessionName.default(DEFAULT_SESSION),
});
