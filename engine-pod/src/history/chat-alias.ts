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

/**
 * The linked id and phone-number id of a group message's sender, when its raw key shows both
 * (`_data.key.participant` and `participantAlt`, as NOWEB, GOWS and SANDBOX write it): the
 * LID map learns from group messages too, not only from direct chats.
 */
export function participantLidPair(record: MessageRecord): { lid: string; pn: string } | null {
  const key = (record._data as { key?: { participant?: unknown; participantAlt?: unknown } } | undefined)?.key;
  if (!key) return null;
  const addresses = [contactOf(key.participant), contactOf(key.participantAlt)];
  const lid = addresses.find((id) => id?.endsWith('@lid'));
  const pn = addresses.find((id) => id?.endsWith('@c.us'));
  return lid && pn ? { lid, pn } : null;
}

/** A library's chat address in the interface's addressing: a contact's (as `contactOf`) or a group's. */
function chatOf(jid: unknown): string | null {
  if (typeof jid === 'string' && /^[\d-]+@g\.us$/.test(jid)) return jid;
  return contactOf(jid);
}

/** The chats of a library's list of deleted chats (Baileys' `chats.delete`, relayed as `{items}`), in the interface's addressing. */
export function libraryDeletedChats(data: unknown): string[] {
  const items = (data as { items?: unknown } | null)?.items;
  if (!Array.isArray(items)) return [];
  return items.map(chatOf).filter((id): id is string => id !== null);
}

/** A library's `{lid, pn}` mapping (Baileys' `lid-mapping.update`) in the interface's addressing, when it is one. */
export function libraryLidPair(data: unknown): { lid: string; pn: string } | null {
  const { lid, pn } = (data ?? {}) as { lid?: unknown; pn?: unknown };
  const linked = contactOf(lid);
  const phone = contactOf(pn);
  return linked?.endsWith('@lid') && phone?.endsWith('@c.us') ? { lid: linked, pn: phone } : null;
}
