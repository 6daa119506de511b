import {
  type Ack,
  ACKS,
  ackName,
  type CallPayload,
  type MessageAckPayload,
  type MessageEditedPayload,
  type MessageLocation,
  type MessageReactionPayload,
  type MessageRecord,
  type MessageRevokedPayload,
  messageId,
  type PollVotePayload,
  type ReplyToMessage,
  wholeSeconds,
} from '@switchboard/protocol';
import type { WebjsCall, WebjsLocation, WebjsMessage, WebjsPollVote, WebjsReaction, WebjsWid } from './webjs-client.js';
import { isGroupId, keyEnds, parseKey, recordId, wid } from './webjs-ids.js';

/*
 * Pure functions from whatsapp-web.js structures to the payloads of spec 6.2. `me` is the
 * account's own id, needed where the library leaves one end of a message implicit.
 */

const MEDIA_TYPES = new Set(['image', 'video', 'audio', 'ptt', 'document', 'sticker']);

/** The library passes acks through from the web client; anything outside spec 2.6 is PENDING. */
export function normalizeAck(ack: number | undefined): Ack {
  return ack !== undefined && ack >= ACKS.ERROR && ack <= ACKS.PLAYED && Number.isInteger(ack) ? (ack as Ack) : ACKS.PENDING;
}

const nowSeconds = () => Date.now() / 1000;

/** The member who sent a group message; null in direct chats (spec 2.5). */
function groupParticipant(message: WebjsMessage): string | null {
  if (!isGroupId(wid(message.id.remote))) return null;
  return wid(message.id.participant) ?? message.author ?? null;
}

function replyTo(message: WebjsMessage): ReplyToMessage | null {
  const data = message._data;
  if (!message.hasQuotedMsg || typeof data.quotedStanzaID !== 'string') return null;
  const quoted = (data.quotedMsg ?? {}) as Record<string, unknown>;
  const participant = wid(data.quotedParticipant as WebjsWid | undefined);
  return {
    id: data.quotedStanzaID,
    ...(participant ? { participant } : {}),
    ...(typeof quoted.body === 'string' && !MEDIA_TYPES.has(String(quoted.type)) ? { body: quoted.body } : {}),
    hasMedia: MEDIA_TYPES.has(String(quoted.type)),
    _data: quoted,
  };
}

/**
 * Spec 2.5. `media` is null here: a received message's file is downloaded and kept by
 * received-media.ts before its events go out, which then set it.
 */
export function messageRecord(message: WebjsMessage, source: 'api' | 'app'): MessageRecord {
  const key = parseKey(message.id);
  const ack = normalizeAck(message.ack);
  return {
    id: recordId(message.id),
    timestamp: message.timestamp ?? nowSeconds(),
    from: message.from ?? key.chatId,
    fromMe: key.fromMe,
    source,
    to: message.to ?? key.chatId,
    participant: groupParticipant(message),
    body: message.body ?? '',
    hasMedia: Boolean(message.hasMedia),
    media: null,
    ack,
    ackName: ackName(ack),
    vCards: [...(message.vCards ?? [])],
    replyTo: replyTo(message),
    ...(message.location ? { location: locationOf(message.location) } : {}),
    _data: message._data,
  };
}

/** `location` of the record (spec 2.5), as NOWEB makes it: coordinates as strings, the description name and address. */
export function locationOf(place: WebjsLocation): MessageLocation {
  const name = place.name || undefined;
  const address = place.address || undefined;
  const description = [name, address].filter(Boolean).join('\n') || undefined;
  return {
    latitude: String(place.latitude),
    longitude: String(place.longitude),
    live: false,
    ...(name ? { name } : {}),
    ...(address ? { address } : {}),
    ...(place.url ? { url: place.url } : {}),
    ...(description ? { description } : {}),
  };
}

/**
 * `from` is the chat, as for every engine. WEBJS reports a message's overall ack, so in groups
 * `participant` is the message's sender, not the member who read it.
 */
export function ackPayload(message: WebjsMessage, ack: number, me: string): MessageAckPayload {
  const key = parseKey(message.id);
  const value = normalizeAck(ack);
  return {
    id: recordId(message.id),
    from: key.chatId,
    to: me,
    participant: groupParticipant(message),
    fromMe: key.fromMe,
    ack: value,
    ackName: ackName(value),
  };
}

export function reactionPayload(reaction: WebjsReaction, me: string): MessageReactionPayload {
  const key = parseKey(reaction.id);
  return {
    id: recordId(reaction.id),
    ...keyEnds(key, me),
    fromMe: key.fromMe,
    participant: isGroupId(key.chatId) ? reaction.senderId : null,
    timestamp: reaction.timestamp ?? nowSeconds(),
    source: 'app',
    reaction: { text: reaction.reaction ?? '', messageId: recordId(reaction.msgId) },
  };
}

/**
 * `message` is the edited message in its new state. Its `latestEditMsgKey` is the key of the
 * edit action; without one, the edited message's own key stands in.
 */
export function editedPayload(message: WebjsMessage, newBody: string): MessageEditedPayload {
  return {
    ...messageRecord(message, 'app'),
    id: recordId(message.latestEditMsgKey ?? message.id),
    editedMessageId: message.id.id,
    body: newBody,
  };
}

/**
 * `message` is the revoked message in its current state (type `revoked`); `protocolMessageKey`
 * names the message it revoked. `before` is the library's copy from before the revoke, when it
 * still had one.
 */
export function revokedPayload(message: WebjsMessage, before: WebjsMessage | null | undefined): MessageRevokedPayload {
  return {
    after: messageRecord(message, 'app'),
    revokedMessageId: message.protocolMessageKey ? parseKey(message.protocolMessageKey).id : message.id.id,
    before: before ? messageRecord(before, 'app') : null,
  };
}

export function callPayload(call: WebjsCall): CallPayload {
  return {
    id: call.id,
    from: call.from,
    timestamp: call.timestamp ?? nowSeconds(),
    isVideo: Boolean(call.isVideo),
    isGroup: Boolean(call.isGroup),
    _data: { ...call },
  };
}

/**
 * The library keeps no key of the vote message itself, so `vote.id` is the poll's key with the
 * voter as participant: stable for one voter on one poll, which is what a client dedups on.
 */
export function pollVotePayload(vote: WebjsPollVote, me: string): PollVotePayload {
  const poll = parseKey(vote.parentMsgKey);
  const voter = wid(vote.voter);
  const fromMe = voter === me;
  const chatId = poll.chatId;
  return {
    vote: {
      // The library keeps no id of the vote message itself: the poll's, with the voter in groups
      // (a direct chat's ids name no participant).
      id: isGroupId(chatId) ? messageId(fromMe, chatId, poll.id, voter) : messageId(fromMe, chatId, poll.id),
      from: voter,
      to: fromMe || isGroupId(chatId) ? chatId : me,
      fromMe,
      selectedOptions: vote.selectedOptions.map((option) => option.name ?? String(option.localId)),
      timestamp: wholeSeconds(vote.interractedAtTs ?? Date.now()),
    },
    poll: { id: recordId(vote.parentMsgKey), ...keyEnds(poll, me), fromMe: poll.fromMe },
  };
}
