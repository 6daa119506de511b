import { messageId } from '@switchboard/protocol';
import type { WebjsMessageKey, WebjsWid } from './webjs-client.js';

/** A Wid as the string every payload carries. */
export function wid(value: WebjsWid): string;
export function wid(value: WebjsWid | null | undefined): string | null;
export function wid(value: WebjsWid | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : value._serialized;
}

export function isGroupId(chatId: string): boolean {
  return chatId.endsWith('@g.us');
}

interface Key {
  readonly fromMe: boolean;
  readonly chatId: string;
  readonly id: string;
  readonly participant: string | null;
}

/**
 * A message key in any of the forms the library hands over. The serialized form is the spec 2.5
 * id (`{fromMe}_{chatId}_{id}[_{participant}]`): chat ids and message ids hold no `_`.
 */
export function parseKey(key: WebjsMessageKey | string): Key {
  if (typeof key !== 'string') {
    return { fromMe: key.fromMe, chatId: wid(key.remote), id: key.id, participant: wid(key.participant) };
  }
  const [fromMe = '', chatId = '', id = '', ...participant] = key.split('_');
  return { fromMe: fromMe === 'true', chatId, id, participant: participant.join('_') || null };
}

/** The spec 2.5 id of a message key. */
export function recordId(key: WebjsMessageKey | string): string {
  const { fromMe, chatId, id, participant } = parseKey(key);
  return messageId(fromMe, chatId, id, participant);
}

/**
 * Who sent and who received a message with this key, in the message record's terms: your own
 * messages go from you to the chat, the others' from the chat to you.
 */
export function keyEnds(key: Key, me: string): { from: string; to: string } {
  return key.fromMe ? { from: me, to: key.chatId } : { from: key.chatId, to: me };
}
