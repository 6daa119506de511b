import type { MessageRecord } from '@switchboard/protocol';

/** `<user>[:<device>]@<server>` in the interface's addressing: `@s.whatsapp.net` is `@c.us`. */
function contactOf(jid: unknown): string | null {
  if (typeof jid !== 'string') return null;
  const match = /^(\d+)(?::\d+)?@(s\.whatsapp\.net|c\.us|lid)$/.exec(jid);
  if (!match) return null;
  return `${match[1]}@${match[2] === 'lid' ? 'lid' : 'c.us'}`;
}

/**
 * The other address of a direct chat, when the record shows both: a contact is reached by its
 * phone number (`@c.us`) or its linked id (`@lid`). NOWEB files a message under the number when
 * it knows it, and its raw key (`_data.key.remoteJid`, `remoteJidAlt`) still names the LID.
 * Other engines do not report both, so their chats are never merged.
 */
export function chatAliasOf(record: MessageRecord, chatId: string): string | null {
  const key = (record._data as { key?: { remoteJid?: unknown; remoteJidAlt?: unknown } } | undefined)?.key;
  if (!key) return null;
  const addresses = [chatId, contactOf(key.remoteJid), contactOf(key.remoteJidAlt)];
  const lid = addresses.find((id) => id?.endsWith('@lid'));
  const phone = addresses.find((id) => id?.endsWith('@c.us'));
  if (!lid || !phone) return null;
  return chatId === lid ? phone : chatId === phone ? lid : null;
}
