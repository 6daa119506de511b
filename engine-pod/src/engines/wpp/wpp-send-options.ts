import type { WppMessage } from './wpp-messages.js';

/** wa-js's send options every send takes (`WPP.chat.send*Message`): a reply, a pre-generated id. */
export interface WppSendOptions {
  readonly quotedMsg?: string;
  readonly messageId?: string;
  readonly linkPreview?: boolean;
}

/**
 * A send's reply and pre-generated id as wa-js takes them: `quotedMsg`, and `messageId` as the key
 * of the account's own message in that chat (`true_<chat>_<id>`).
 */
export function wppSendOptions(args: { readonly chatId: string; readonly id?: string | null; readonly reply_to?: string | null }): WppSendOptions {
  return { ...(args.reply_to ? { quotedMsg: args.reply_to } : {}), ...(args.id ? { messageId: `true_${args.chatId}_${args.id}` } : {}) };
}

/** A message's key as WhatsApp Web serializes it (wa-js gives the id as a string or as the key). */
export function wppKeyOf(message: WppMessage): string {
  return typeof message.id === 'string' ? message.id : message.id._serialized;
}

/** The text of what wa-js or WPPConnect threw: an Error, a WPPError-like object, or anything. */
export function describeWppError(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (error && typeof error === 'object' && 'message' in error) return String(error.message);
  return String(error);
}
