import {
  type Ack,
  ACKS,
  ackName,
  type MeInfo,
  type MessageLocation,
  type MessageRecord,
  messageId,
  type ReplyToMessage,
  wholeSeconds,
} from '@switchboard/protocol';
import { normalizeMessageContent, type proto, type WAMessage } from '@whiskeysockets/baileys';

/**
 * `_data`: the library's record as plain JSON. Bytes become base64 and 64-bit numbers become
 * numbers, so the envelope serializes small and the same way every time.
 */
export function rawData(value: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value ?? {}, jsonSafe)) as Record<string, unknown>;
}

function jsonSafe(_key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value && typeof value === 'object') {
    const v = value as { type?: unknown; data?: unknown; low?: unknown; high?: unknown; unsigned?: unknown };
    if (v.type === 'Buffer' && Array.isArray(v.data)) return Buffer.from(v.data as number[]).toString('base64');
    if (typeof v.low === 'number' && typeof v.high === 'number' && typeof v.unsigned === 'boolean') {
      return (v.unsigned ? v.high >>> 0 : v.high) * 2 ** 32 + (v.low >>> 0);
    }
  }
  return value;
}

/** Seconds from the library's number or Long. */
export function toSeconds(value: unknown): number {
  if (typeof value === 'number') return Math.floor(value);
  if (value && typeof value === 'object' && 'toNumber' in value) return Math.floor((value as { toNumber(): number }).toNumber());
  return Math.floor(Number(value ?? 0)) || wholeSeconds();
}

/**
 * The text a message shows: its text, its caption, a poll's question, a single contact's vCard, a
 * button reply's label. A location has none (its name is in `location`), as on SANDBOX.
 */
export function messageBody(content: proto.IMessage | null | undefined): string {
  if (!content) return '';
  return (
    content.conversation ??
    content.extendedTextMessage?.text ??
    content.imageMessage?.caption ??
    content.videoMessage?.caption ??
    content.ptvMessage?.caption ??
    content.documentMessage?.caption ??
    content.pollCreationMessage?.name ??
    content.pollCreationMessageV2?.name ??
    content.pollCreationMessageV3?.name ??
    content.contactMessage?.vcard ??
    content.buttonsResponseMessage?.selectedDisplayText ??
    ''
  );
}

function hasMedia(content: proto.IMessage | null | undefined): boolean {
  return !!(
    content?.imageMessage ||
    content?.videoMessage ||
    content?.ptvMessage ||
    content?.audioMessage ||
    content?.documentMessage ||
    content?.stickerMessage
  );
}

function vCards(content: proto.IMessage | null | undefined): string[] {
  const single = content?.contactMessage?.vcard;
  const many = content?.contactsArrayMessage?.contacts?.map((contact) => contact.vcard ?? '') ?? [];
  return [...(single ? [single] : []), ...many].filter(Boolean);
}

/** `location` of the record (spec 2.5): coordinates as strings; the description is name and address. */
function locationOf(content: proto.IMessage | null | undefined): MessageLocation | undefined {
  const place = content?.locationMessage ?? content?.liveLocationMessage;
  if (!place) return undefined;
  const fixed = content?.locationMessage;
  const name = fixed?.name || undefined;
  const address = fixed?.address || undefined;
  const description = [name, address].filter(Boolean).join('\n') || undefined;
  return {
    latitude: String(place.degreesLatitude ?? 0),
    longitude: String(place.degreesLongitude ?? 0),
    live: !fixed,
    ...(name ? { name } : {}),
    ...(address ? { address } : {}),
    ...(fixed?.url ? { url: fixed.url } : {}),
    ...(description ? { description } : {}),
  };
}

function contextInfoOf(content: proto.IMessage | null | undefined): proto.IContextInfo | null | undefined {
  if (!content) return undefined;
  for (const value of Object.values(content)) {
    if (value && typeof value === 'object' && 'contextInfo' in value) return (value as { contextInfo?: proto.IContextInfo }).contextInfo;
  }
  return undefined;
}

/** Where a message sits, in the interface's addressing (resolved by the caller, who knows the LID mapping). */
export interface MessageAddress {
  readonly chatId: string;
  /** The sender inside a group; null in direct chats. */
  readonly participant: string | null;
}

/** The library's status is one more than the interface's ack (ERROR 0 ... PLAYED 5). */
export function ackFromStatus(status: number | null | undefined): Ack {
  const ack = (status ?? 1) - 1;
  return Math.max(ACKS.ERROR, Math.min(ACKS.PLAYED, ack)) as Ack;
}

/** Spec 2.5 from a library message. */
export function toMessageRecord(msg: WAMessage, address: MessageAddress, me: MeInfo, source: 'api' | 'app'): MessageRecord {
  const fromMe = !!msg.key.fromMe;
  const content = normalizeMessageContent(msg.message);
  const context = contextInfoOf(content);
  const ack: Ack = fromMe ? ackFromStatus(msg.status) : ACKS.DEVICE;
  const incomingParticipant = fromMe ? null : address.participant;
  const replyTo: ReplyToMessage | null = context?.stanzaId
    ? {
        id: context.stanzaId,
        ...(context.participant ? { participant: context.participant.replace('@s.whatsapp.net', '@c.us') } : {}),
        body: messageBody(context.quotedMessage),
        hasMedia: hasMedia(context.quotedMessage),
      }
    : null;
  const location = locationOf(content);
  return {
    id: messageId(fromMe, address.chatId, msg.key.id ?? '', incomingParticipant),
    timestamp: toSeconds(msg.messageTimestamp),
    from: fromMe ? me.id : address.chatId,
    fromMe,
    source,
    to: fromMe ? address.chatId : me.id,
    participant: address.participant,
    body: messageBody(content),
    hasMedia: hasMedia(content),
    media: null,
    ack,
    ackName: ackName(ack),
    vCards: vCards(content),
    ...(location ? { location } : {}),
    replyTo,
    _data: rawData(msg),
  };
}
