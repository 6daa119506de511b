import {
  type ChatPictureResponse,
  type ChatPresences,
  type MessageKey,
  type MessageRecord,
  messageId,
  parseMessageId,
  type PresenceStatus,
  type ReadChatMessagesResponse,
} from '@switchboard/protocol';
import {
  type ChatModification,
  generateWAMessageContent,
  generateWAMessageFromContent,
  type MinimalMessage,
  proto,
  type WAMessageKey,
  type WAPresence,
} from '@whiskeysockets/baileys';
import type { CommandArgs } from '../../capabilities/chatting.js';
import { CommandError, reasonOf } from '../../command-error.js';
import type { EngineContext } from '../../engine.js';
import { toLibraryJid } from './jids.js';
import type { MessageEvents } from './message-events.js';
import { toSeconds } from './message-record.js';
import type { Account, Outgoing } from './outgoing.js';

export interface NowebChatsDeps {
  readonly context: EngineContext;
  readonly messages: MessageEvents;
  readonly outgoing: Outgoing;
  account(): Account;
  /** A message's key as the library wrote it (message-actions.ts). */
  libraryKey(key: MessageKey): WAMessageKey;
}

const LIBRARY_PRESENCE: Record<PresenceStatus, WAPresence> = {
  online: 'available',
  offline: 'unavailable',
  typing: 'composing',
  recording: 'recording',
  paused: 'paused',
};

/**
 * The chats operations, presence and event messages on NOWEB. Archive, unread, clear and delete
 * are app state patches the library uploads (its `chatModify`), which name the chat's last
 * message: the newest this engine saw, when it saw one. Edits, deletes for everyone and pins are
 * protocol messages to the chat. The presences heard are kept per chat the account subscribed to.
 */
export class NowebChats {
  private readonly heard = new Map<string, ChatPresences>();

  constructor(private readonly deps: NowebChatsDeps) {}

  /** A `presence.update` the engine reported: the chat's presence, participant by participant. */
  remember(update: ChatPresences): void {
    const known = this.heard.get(update.id)?.presences ?? [];
    const changed = new Set(update.presences.map((presence) => presence.participant));
    this.heard.set(update.id, { id: update.id, presences: [...known.filter((presence) => !changed.has(presence.participant)), ...update.presences] });
  }

  async deleteChat({ chatId }: CommandArgs<'chat.delete'>): Promise<void> {
    await this.modify(chatId, { delete: true, lastMessages: this.lastMessages(chatId) }, 'delete');
  }

  async clearMessages({ chatId }: CommandArgs<'chat.clearMessages'>): Promise<void> {
    await this.modify(chatId, { clear: true, lastMessages: this.lastMessages(chatId) }, 'clear');
  }

  async archiveChat({ chatId, archive }: CommandArgs<'chat.archive'>): Promise<void> {
    await this.modify(chatId, { archive, lastMessages: this.lastMessages(chatId) }, archive ? 'archive' : 'unarchive');
  }

  async markChatUnread({ chatId }: CommandArgs<'chat.unread'>): Promise<void> {
    await this.modify(chatId, { markRead: false, lastMessages: this.lastMessages(chatId) }, 'mark unread');
  }

  /** The picture's address on WhatsApp's servers; null when there is none or it is hidden from the account. */
  async chatPicture({ chatId }: CommandArgs<'chat.picture'>): Promise<ChatPictureResponse> {
    const { socket } = this.deps.account();
    try {
      return { url: (await socket.profilePictureUrl(toLibraryJid(chatId), 'image')) ?? null };
    } catch (error) {
      // The server answers 404 (item-not-found) or 401 (not-authorized) for a picture the account may not see;
      // the library throws it with the node's error code as `data`.
      const code = (error as { data?: unknown }).data;
      if (code === 404 || code === 401) return { url: null };
      throw new CommandError('ENGINE_ERROR', `NOWEB could not read the picture of ${chatId}: ${reasonOf(error)}`);
    }
  }

  /** Read receipts for the chat's unread messages this engine received, newest first within the limits. */
  async readChatMessages(args: CommandArgs<'chat.read'>): Promise<ReadChatMessagesResponse> {
    const { socket } = this.deps.account();
    const since = Date.now() / 1000 - args.days * 86_400;
    const unread = this.deps.messages.recent
      .unread(args.chatId)
      .filter((known) => toSeconds(known.msg.messageTimestamp) >= since)
      .reverse()
      .slice(0, args.messages ?? Infinity);
    if (unread.length) {
      await socket.readMessages(unread.map((known) => known.msg.key)).catch((error: unknown) => {
        throw new CommandError('ENGINE_ERROR', `NOWEB could not send read receipts to ${args.chatId}: ${reasonOf(error)}`);
      });
    }
    for (const known of unread) known.read = true;
    return { ids: unread.map((known) => messageId(false, known.address.chatId, known.msg.key.id!, known.address.participant)) };
  }

  async editMessage(args: CommandArgs<'message.edit'>): Promise<void> {
    const key = parseMessageId(args.messageId)!;
    if (!key.fromMe) throw notOwn('only messages the account sent can be edited (the id starts with "true_")');
    await this.protocolMessage(args.chatId, {
      key: this.deps.libraryKey(key),
      type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT,
      editedMessage: { conversation: args.text },
      timestampMs: Date.now(),
    });
  }

  async deleteMessage(args: CommandArgs<'message.delete'>): Promise<void> {
    const key = parseMessageId(args.messageId)!;
    await this.protocolMessage(args.chatId, { key: this.deps.libraryKey(key), type: proto.Message.ProtocolMessage.Type.REVOKE });
  }

  async pinMessage(args: CommandArgs<'message.pin'>): Promise<void> {
    const account = this.deps.account();
    const jid = toLibraryJid(args.chatId);
    const pin = args.duration !== null;
    const content: proto.IMessage = {
      pinInChatMessage: {
        key: this.deps.libraryKey(parseMessageId(args.messageId)!),
        type: pin ? proto.PinInChat.Type.PIN_FOR_ALL : proto.PinInChat.Type.UNPIN_FOR_ALL,
        senderTimestampMs: Date.now(),
      },
      ...(pin ? { messageContextInfo: { messageAddOnDurationInSecs: args.duration } } : {}),
    };
    await this.deps.outgoing.relay(account, jid, generateWAMessageFromContent(jid, content, { userJid: account.jid }));
  }

  /** Sent like any message: the record, `message.any` with source `api`, then acks. */
  async sendEvent(args: CommandArgs<'send.event'>): Promise<MessageRecord> {
    const { event } = args;
    const content = await generateWAMessageContent(
      {
        event: {
          name: event.name,
          ...(event.description === undefined ? {} : { description: event.description }),
          startDate: new Date(event.startTime * 1000),
          ...(event.endTime == null ? {} : { endDate: new Date(event.endTime * 1000) }),
          ...(event.location ? { location: { degreesLatitude: 0, degreesLongitude: 0, name: event.location.name } } : {}),
          extraGuestsAllowed: event.extraGuestsAllowed,
        },
      },
      { upload: () => Promise.reject(new Error('an event message uploads nothing')) },
    );
    return this.deps.outgoing.send(args, content);
  }

  async setPresence(args: { readonly chatId?: string | undefined; readonly presence: PresenceStatus }): Promise<void> {
    const { socket } = this.deps.account();
    await socket.sendPresenceUpdate(LIBRARY_PRESENCE[args.presence], args.chatId ? toLibraryJid(args.chatId) : undefined).catch((error: unknown) => {
      throw new CommandError('ENGINE_ERROR', `NOWEB could not set the presence ${args.presence}: ${reasonOf(error)}`);
    });
  }

  async presences(): Promise<ChatPresences[]> {
    this.deps.account();
    return [...this.heard.values()];
  }

  /** What was heard of the chat; asks the server for its presence first when not subscribed yet. */
  async presence({ chatId }: CommandArgs<'presence.get'>): Promise<ChatPresences> {
    if (!this.heard.has(chatId)) await this.subscribePresence({ chatId });
    return this.heard.get(chatId) ?? { id: chatId, presences: [] };
  }

  async subscribePresence({ chatId }: CommandArgs<'presence.subscribe'>): Promise<void> {
    const { socket } = this.deps.account();
    await socket.presenceSubscribe(toLibraryJid(chatId)).catch((error: unknown) => {
      throw new CommandError('ENGINE_ERROR', `NOWEB could not subscribe to the presence of ${chatId}: ${reasonOf(error)}`);
    });
    if (!this.heard.has(chatId)) this.heard.set(chatId, { id: chatId, presences: [] });
  }

  /** The chat's newest message this engine saw, as app state patches name it (none when it saw none). */
  private lastMessages(chatId: string): MinimalMessage[] {
    const last = this.deps.messages.recent.latest(chatId);
    return last ? [{ key: last.msg.key, messageTimestamp: last.msg.messageTimestamp }] : [];
  }

  private async modify(chatId: string, modification: ChatModification, what: string): Promise<void> {
    const { socket } = this.deps.account();
    await socket.chatModify(modification, toLibraryJid(chatId)).catch((error: unknown) => {
      throw new CommandError('ENGINE_ERROR', `NOWEB could not ${what} ${chatId}: ${reasonOf(error)}`);
    });
  }

  /**
   * An edit or revoke, written to the chat and then read back as the library would report one
   * from the phone, so `message.edited` / `message.revoked` go out the same way.
   */
  private async protocolMessage(chatId: string, protocol: proto.Message.IProtocolMessage): Promise<void> {
    const account = this.deps.account();
    const jid = toLibraryJid(chatId);
    const msg = generateWAMessageFromContent(jid, { protocolMessage: protocol }, { userJid: account.jid });
    await this.deps.outgoing.relay(account, jid, msg);
    await this.deps.messages.upsert({ messages: [msg], type: 'append' });
  }
}

function notOwn(reason: string): CommandError {
  return new CommandError('INVALID', `invalid request: params.messageId: ${reason}`, [{ path: 'params.messageId', reason }]);
}
