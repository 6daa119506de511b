import { z } from 'zod';
import { CHAT_ID_FORMS } from './ids.js';
import { parseMessageId } from './message.js';

/**
 * A message named by its full id (spec 2.5), as the operations on existing messages take it:
 * `{fromMe}_{chatId}_{messageId}[_{participant}]`, with a valid chat id and a message id of
 * letters and digits. A pattern, not a refinement, so the OpenAPI document shows it.
 */
export const MessageRef = z
  .string()
  .max(256, { abort: true })
  .regex(new RegExp(`^(true|false)_(${CHAT_ID_FORMS})_[0-9A-Za-z]{1,128}(_.+)?$`), {
    message: 'must be a message id "{fromMe}_{chatId}_{messageId}[_{participant}]"',
  })
  .meta({ examples: ['false_15551234567@c.us_AAAAAAAAAAAAAAAAAAAA'] });

/** What a description says of a message id that must name the request's `chatId`. */
export const OF_CHAT = 'It must be a message of `chatId` (its id names that chat).';

/** A message id names its chat: one of another chat than `chatId` is a mistake worth a 400. */
export function inChat(chatId: string, id: string | null | undefined): boolean {
  return id == null || parseMessageId(id)?.chatId === chatId;
}
