import { ackName, type MessageAckPayload, type MessageLocation, type MessageRecord, type ReplyToMessage, wholeSeconds } from '@switchboard/protocol';
import { locationOf as webjsLocation, normalizeAck } from '../webjs/message-mapping.js';
import { isGroupId, keyEnds, parseKey, recordId, wid } from '../webjs/webjs-ids.js';
import { wppKeyOf } from './wpp-send-options.js';

/*
 * Pure functions from WPPConnect's messages (its `Message`, WhatsApp Web's message model as
 * WPPConnect serializes it) to the payloads of spec 6.2.
 */

type WppWid = string | { readonly _serialized: string };

/** A message as WPPConnect hands it over: the model's fields, the key serialized. */
export interface WppMessage {
  readonly id: string | { readonly _serialized: string; readonly fromMe: boolean; readonly remote: WppWid; readonly id: string };
  readonly from?: WppWid;
  readonly to?: WppWid;
  readonly author?: WppWid;
  readonly t?: number;
  readonly timestamp?: number;
  readonly body?: string;
  readonly content?: string;
  readonly type?: string;
  readonly ack?: number;
  readonly isMedia?: boolean;
  readonly isMMS?: boolean;
  readonly [field: string]: unknown;
}

const MEDIA_TYPES = new Set(['image', 'video', 'audio', 'ptt', 'document', 'sticker']);

/** The message's own id in spec 2.5's form. */
export function wppRecordId(message: WppMessage): string {
  return recordId(wppKeyOf(message));
}

/** The member who sent a group message; null in direct chats (spec 2.5). */
function groupParticipant(message: WppMessage): string | null {
  const key = parseKey(wppKeyOf(message));
  if (!isGroupId(key.chatId)) return null;
  return key.participant ?? wid(message.author ?? null);
}

/**
 * Spec 2.5. `media` is null here: a received file is added once kept (wpp-media.ts). A file's
 * `body` is its caption, as WEBJS's (WhatsApp Web keeps a thumbnail in the model's `body`).
 */
export function wppMessageRecord(message: WppMessage, source: 'api' | 'app', me: string): MessageRecord {
  const key = parseKey(wppKeyOf(message));
  const hasMedia = Boolean(message.isMedia || message.isMMS || MEDIA_TYPES.has(String(message.type)));
  const ack = normalizeAck(message.ack);
  const ends = keyEnds(key, me);
  const seconds = message.t ?? message.timestamp;
  return {
    id: recordId(wppKeyOf(message)),
    timestamp: typeof seconds === 'number' ? Math.floor(seconds) : wholeSeconds(),
    from: key.fromMe ? ends.from : (wid(message.from ?? null) ?? ends.from),
    fromMe: key.fromMe,
    source,
    to: key.fromMe ? (wid(message.to ?? null) ?? ends.to) : ends.to,
    participant: groupParticipant(message),
    body: bodyOf(message, hasMedia),
    hasMedia,
    media: null,
    ack,
    ackName: ackName(ack),
    vCards: vCardsOf(message),
    replyTo: replyTo(message),
    ...(message.type === 'location' ? { location: locationOf(message) } : {}),
    _data: { ...message },
  };
}

/** A poll's body is its question, as WEBJS's. */
/** A file's body is its caption (its `body` is the file's preview), a poll's its question, the rest their text. */
function bodyOf(message: WppMessage, hasMedia: boolean): string {
  if (hasMedia) return typeof message.caption === 'string' ? message.caption : '';
  if (message.type === 'poll_creation' && typeof message.pollName === 'string') return message.pollName;
  return message.body ?? message.content ?? '';
}

/** A contact card's vCard is its body; several cards are in `vcardList` (as whatsapp-web.js reads them). */
function vCardsOf(message: WppMessage): string[] {
  if (message.type === 'vcard' && typeof message.body === 'string') return [message.body];
  if (message.type !== 'multi_vcard' || !Array.isArray(message.vcardList)) return [];
  return (message.vcardList as { vcard?: unknown }[]).map((card) => card.vcard).filter((vcard): vcard is string => typeof vcard === 'string');
}

/** The message a reply quotes, as WEBJS names it: its id, its sender in groups, its text. */
function replyTo(message: WppMessage): ReplyToMessage | null {
  if (typeof message.quotedStanzaID !== 'string') return null;
  const quoted = (message.quotedMsg && typeof message.quotedMsg === 'object' ? message.quotedMsg : {}) as Record<string, unknown>;
  const participant = wid((message.quotedParticipant as WppWid | undefined) ?? null);
  const hasMedia = MEDIA_TYPES.has(String(quoted.type));
  return {
    id: message.quotedStanzaID,
    ...(participant ? { participant } : {}),
    ...(typeof quoted.body === 'string' && !hasMedia ? { body: quoted.body } : {}),
    hasMedia,
    _data: quoted,
  };
}

/** `location` of the record (spec 2.5), as WEBJS makes it: `loc` is "name\naddress". */
function locationOf(message: WppMessage): MessageLocation {
  const [name, ...rest] = typeof message.loc === 'string' && message.loc ? message.loc.split('\n') : [];
  return webjsLocation({
    latitude: message.lat as number | string,
    longitude: message.lng as number | string,
    ...(name ? { name } : {}),
    ...(rest.length > 0 ? { address: rest.join('\n') } : {}),
    ...(typeof message.clientUrl === 'string' && message.clientUrl ? { url: message.clientUrl } : {}),
  });
}

/** `from` is the chat, as for every engine; in groups `participant` is the message's sender. */
export function wppAckPayload(message: WppMessage, me: string): MessageAckPayload {
  const key = parseKey(wppKeyOf(message));
  const value = normalizeAck(message.ack);
  return {
    id: recordId(wppKeyOf(message)),
    from: key.chatId,
    to: me,
    participant: groupParticipant(message),
    fromMe: key.fromMe,
    ack: value,
    ackName: ackName(value),
  };
}

/** Whether a message belongs to a chat clients hear of: not a status (`status@broadcast`). */
export function isChatMessage(message: WppMessage): boolean {
  return parseKey(wppKeyOf(message)).chatId !== 'status@broadcast';
}
