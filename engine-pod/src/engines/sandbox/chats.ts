import {
  type ChatArchivePayload,
  type ChatPictureResponse,
  type ChatPresences,
  type MessageEditedPayload,
  type MessageRecord,
  type MessageRevokedPayload,
  parseMessageId,
  type PresenceStatus,
  type ReadChatMessagesResponse,
} from '@switchboard/protocol';
import type { CommandArgs } from '../../capabilities/chatting.js';
import { CommandError } from '../../command-error.js';
import { messageRecord } from './message-record.js';
import type { SandboxSide } from './sandbox-side.js';
import type { SandboxChatState } from './sandbox-world.js';
import { isGroupChat } from './simulations/addressing.js';
import { authorAction } from './simulations/message-actions.js';
import { nowSeconds } from './simulations/world-ids.js';
import { outgoing, publish } from './sending.js';

/*
 * The chats operations on the simulated account (capabilities/chats.ts): what they change is kept
 * in the world (sandbox-world.ts), and they emit what the phone's own actions would.
 */

/** A 1x1 PNG: every simulated contact and group shows it as its picture. */
const PICTURE = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

function chatState(side: SandboxSide, chatId: string): SandboxChatState {
  let state = side.world.chats.get(chatId);
  if (!state) side.world.chats.set(chatId, (state = { archived: false, markedUnread: false, pinned: null }));
  return state;
}

function messagesOf(side: SandboxSide, chatId: string): MessageRecord[] {
  return [...side.world.messages.values()].filter((record) => parseMessageId(record.id)?.chatId === chatId);
}

/** A message the account may change only when it sent it (a group admin may delete others' too). */
function refuseOthers(messageId: string, what: string): void {
  throw new CommandError('INVALID', `invalid request: params.messageId: ${what}`, [{ path: 'params.messageId', reason: what }]);
}

/** The chat goes from the chat list, with its messages (on the phone they go with it). */
export async function deleteChat(side: SandboxSide, { chatId }: CommandArgs<'chat.delete'>): Promise<void> {
  side.requireWorking();
  for (const record of messagesOf(side, chatId)) side.world.messages.delete(record.id);
  side.world.chats.delete(chatId);
  side.world.presences.delete(chatId);
}

/** The chat's picture, kept in the media store: the same address until `refresh`. */
export async function chatPicture(side: SandboxSide, { chatId, refresh }: CommandArgs<'chat.picture'>): Promise<ChatPictureResponse> {
  side.requireWorking();
  const state = chatState(side, chatId);
  if (state.picture === undefined || refresh) {
    const stored = await side.context.saveMedia({ mimetype: 'image/png', filename: `${chatId.split('@')[0]}.png`, data: PICTURE });
    state.picture = stored?.url ?? null;
  }
  return { url: state.picture };
}

export async function clearMessages(side: SandboxSide, { chatId }: CommandArgs<'chat.clearMessages'>): Promise<void> {
  side.requireWorking();
  for (const record of messagesOf(side, chatId)) side.world.messages.delete(record.id);
  const state = chatState(side, chatId);
  state.pinned = null;
}

/** The chat's unread incoming messages of the last `days`, the newest `messages` of them, are read. */
export async function readChatMessages(side: SandboxSide, args: CommandArgs<'chat.read'>): Promise<ReadChatMessagesResponse> {
  side.requireWorking();
  const since = nowSeconds() - args.days * 86_400;
  const unread = messagesOf(side, args.chatId)
    .filter((record) => !record.fromMe && record.timestamp >= since && !side.world.read.get(record.id))
    .sort((a, b) => b.timestamp - a.timestamp)
    .slice(0, args.messages ?? Infinity);
  for (const record of unread) side.world.read.set(record.id, true);
  chatState(side, args.chatId).markedUnread = false;
  return { ids: unread.map((record) => record.id) };
}

/** `chat.archive`, as when the phone archives it. */
export async function archiveChat(side: SandboxSide, { chatId, archive }: CommandArgs<'chat.archive'>): Promise<void> {
  side.requireWorking();
  chatState(side, chatId).archived = archive;
  const payload: ChatArchivePayload = { id: chatId, timestamp: nowSeconds(), archived: archive };
  side.context.emit('chat.archive', payload);
}

export async function markChatUnread(side: SandboxSide, { chatId }: CommandArgs<'chat.unread'>): Promise<void> {
  side.requireWorking();
  chatState(side, chatId).markedUnread = true;
}

/**
 * Edits one of the account's messages: `message.edited`. The message need not be known (it may
 * have been sent from the phone); a known one keeps the new text.
 */
export async function editMessage(side: SandboxSide, args: CommandArgs<'message.edit'>): Promise<void> {
  const me = side.requireWorking();
  const key = parseMessageId(args.messageId)!;
  if (!key.fromMe) refuseOthers(args.messageId, 'only messages the account sent can be edited (the id starts with "true_")');
  const known = side.world.messages.get(args.messageId);
  const action = authorAction(known ?? { from: me.id, to: key.chatId, participant: isGroupChat(key.chatId) ? me.id : null }, key.chatId, true, null);
  const payload: MessageEditedPayload = {
    ...messageRecord(action),
    source: 'api',
    body: args.text,
    editedMessageId: key.id,
    _data: { engine: 'SANDBOX', type: 'edit', editedMessageId: args.messageId },
  };
  if (known) side.world.messages.set(known.id, { ...known, body: args.text });
  side.context.emit('message.edited', payload);
}

/** Deletes a message for everyone: `message.revoked`. Others' messages only in groups (as their admin). */
export async function deleteMessage(side: SandboxSide, args: CommandArgs<'message.delete'>): Promise<void> {
  const me = side.requireWorking();
  const key = parseMessageId(args.messageId)!;
  if (!key.fromMe && !isGroupChat(key.chatId)) {
    refuseOthers(args.messageId, 'in a direct chat only messages the account sent can be deleted for everyone (the id starts with "true_")');
  }
  const known = side.world.messages.get(args.messageId);
  const action = authorAction(known ?? { from: me.id, to: key.chatId, participant: isGroupChat(key.chatId) ? me.id : null }, key.chatId, true, null);
  const payload: MessageRevokedPayload = {
    after: messageRecord(action, { source: 'api', _data: { engine: 'SANDBOX', type: 'revoke', revokedMessageId: args.messageId } }),
    revokedMessageId: key.id,
    before: known ?? null,
  };
  side.world.messages.delete(args.messageId);
  side.context.emit('message.revoked', payload);
}

/** One pinned message per chat here (the phone allows three); a new pin replaces it. */
export async function pinMessage(side: SandboxSide, args: CommandArgs<'message.pin'>): Promise<void> {
  side.requireWorking();
  const state = chatState(side, args.chatId);
  if (args.duration === null) {
    if (state.pinned?.messageId === args.messageId) state.pinned = null;
  } else {
    state.pinned = { messageId: args.messageId, until: nowSeconds() + args.duration };
  }
}

/** The account's presence; in a chat (typing, recording, paused) it shows on the other side only. */
export async function setPresence(
  side: SandboxSide,
  args: { readonly chatId?: string | undefined; readonly presence: PresenceStatus },
): Promise<void> {
  side.requireWorking();
  if (args.chatId === undefined || args.presence === 'online' || args.presence === 'offline') side.world.ownPresence = args.presence;
}

export async function presences(side: SandboxSide): Promise<ChatPresences[]> {
  side.requireWorking();
  return [...side.world.presences.values()];
}

export async function subscribePresence(side: SandboxSide, { chatId }: CommandArgs<'presence.subscribe'>): Promise<ChatPresences> {
  side.requireWorking();
  let known = side.world.presences.get(chatId);
  if (!known) side.world.presences.set(chatId, (known = { id: chatId, presences: [] }));
  return known;
}

/** An event message from the account: a send like any other (message.any with source api, then acks). */
export async function sendEvent(side: SandboxSide, args: CommandArgs<'send.event'>): Promise<MessageRecord> {
  const { event } = args;
  return publish(side, outgoing(side, args, { body: event.name, _data: { type: 'event_creation', event } }));
}
