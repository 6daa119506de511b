import { z } from 'zod';
import { ChatId } from './ids.js';
import { parseMessageId } from './message.js';

/** A message named by its full id (spec 2.5), as the operations on existing messages take it. */
export const MessageRef = z
  .string()
  .max(256)
  .refine(
    (value) => {
      const key = parseMessageId(value);
      return key !== null && ChatId.safeParse(key.chatId).success && /^[0-9A-Za-z]{1,128}$/.test(key.id);
    },
    { message: 'must be a message id "{fromMe}_{chatId}_{messageId}[_{participant}]"' },
  )
  .meta({ examples: ['false_11111111111@c.us_AAAAAAAAAAAAAAAAAAAA'] });

/** A message id names its chat: one of another chat than `chatId` is a mistake worth a 400. */
export function inChat(chatId: string, id: string | null | undefined): boolean {
  return id == null || parseMessageId(id)?.chatId === chatId;
}
