import { type ChatPictureResponse, type PresenceStatus, type ReadChatMessagesResponse, wholeSeconds } from '@switchboard/protocol';
import type { CommandArgs } from '../../capabilities/chatting.js';
import { CommandError } from '../../command-error.js';
import type { WppPage } from './wpp-client.js';
import type { WppConnection } from './wpp-connection.js';
import { type WppMessage, wppRecordId } from './wpp-messages.js';
import { describeWppError } from './wpp-send-options.js';

/** A chat as WPPConnect serializes it (`WAPI._serializeChatObj`): the fields read here. */
export interface WppChat {
  readonly unreadCount?: number;
  readonly archive?: boolean;
  /** The ids of its labels (WhatsApp Business). */
  readonly labels?: readonly (string | number)[];
}

/** The slice of WPPConnect's client (its controls, retriever and sender layers) the chat operations use. */
export interface WppChatsClient {
  readonly page: WppPage;
  /** True once WhatsApp took the deletion. */
  deleteChat(chatId: string): Promise<boolean>;
  /** True once WhatsApp took the clearing; starred messages stay when `keepStarred`. */
  clearChat(chatId: string, keepStarred?: boolean): Promise<boolean>;
  archiveChat(chatId: string, archive?: boolean): Promise<unknown>;
  markUnseenMessage(chatId: string): Promise<boolean>;
  getChatById(chatId: string): Promise<WppChat | null>;
  /** The chat's messages, its earlier ones loaded from the phone first. */
  loadAndGetAllMessagesInChat(chatId: string, includeMe?: boolean, includeNotifications?: boolean): Promise<WppMessage[]>;
  getProfilePicFromServer(chatId: string): Promise<{ readonly eurl?: string; readonly imgFull?: string } | string | null | undefined>;
  sendSeen(chatId: string): Promise<unknown>;
  setOnlinePresence(online?: boolean): Promise<unknown>;
  startTyping(chatId: string): Promise<unknown>;
  startRecording(chatId: string): Promise<unknown>;
  stopTyping(chatId: string): Promise<unknown>;
}

/**
 * Whole chats and the account's presence on WPP, through WPPConnect's client: `deleteChat`,
 * `clearChat`, `archiveChat` (wa-js's `WPP.chat.*` on WhatsApp Web's Cmd and chat bridges),
 * `markUnseenMessage`, the chat's messages for `chat.read`, the picture from the server, and
 * `setOnlinePresence` and the chat states. WPPConnect reports no archive changes: `chat.archive`
 * is emitted here once the page made the change (wa-js tells the servers without waiting for them).
 */
export class WppChats {
  constructor(private readonly connection: WppConnection) {}

  async deleteChat({ chatId }: CommandArgs<'chat.delete'>): Promise<void> {
    const done = await this.client()
      .deleteChat(chatId)
      .catch((error: unknown) => refused(`delete chat ${chatId}`, error, chatId));
    if (!done) throw new CommandError('ENGINE_ERROR', `WhatsApp did not delete chat ${chatId}`, { chatId });
  }

  async clearMessages({ chatId }: CommandArgs<'chat.clearMessages'>): Promise<void> {
    const done = await this.client()
      .clearChat(chatId, false)
      .catch((error: unknown) => refused(`clear chat ${chatId}`, error, chatId));
    if (!done) throw new CommandError('ENGINE_ERROR', `WhatsApp did not clear chat ${chatId}`, { chatId });
  }

  /** wa-js refuses to archive an archived chat: that chat is already as asked, and nothing is emitted. */
  async archiveChat({ chatId, archive }: CommandArgs<'chat.archive'>): Promise<void> {
    const changed = await this.client()
      .archiveChat(chatId, archive)
      .then(
        () => true,
        (error: unknown) => {
          if (/^(un)?archive_error$/.test(codeOf(error)) || /is already (un)?archived/.test(describeWppError(error))) return false;
          return refused(`${archive ? 'archive' : 'unarchive'} chat ${chatId}`, error, chatId);
        },
      );
    if (changed) this.connection.context.emit('chat.archive', { id: chatId, timestamp: wholeSeconds(), archived: archive });
  }

  async markChatUnread({ chatId }: CommandArgs<'chat.unread'>): Promise<void> {
    await this.client()
      .markUnseenMessage(chatId)
      .catch((error: unknown) => refused(`mark chat ${chatId} unread`, error, chatId));
  }

  /** Asked of the server each time; null when the chat has no picture or hides it. */
  async chatPicture({ chatId }: CommandArgs<'chat.picture'>): Promise<ChatPictureResponse> {
    return { url: await pictureOf(this.client(), chatId) };
  }

  /**
   * The chat's unread incoming messages (the newest `messages` of them, of the last `days`), its
   * earlier ones loaded from the phone first; then `sendSeen`, which marks the whole chat read.
   */
  async readChatMessages(args: CommandArgs<'chat.read'>): Promise<ReadChatMessagesResponse> {
    const client = this.client();
    const doing = (what: string) => (error: unknown) => refused(what, error, args.chatId);
    const chat = await client.getChatById(args.chatId).catch(doing(`find chat ${args.chatId}`));
    if (!chat) throw new CommandError('NOT_FOUND', `WhatsApp Web has no chat ${args.chatId}`, { chatId: args.chatId });
    const unread = Math.min(chat.unreadCount ?? 0, args.messages ?? Number.MAX_SAFE_INTEGER);
    if (unread <= 0) return { ids: [] };
    const since = Date.now() / 1000 - args.days * 86_400;
    const messages = await client.loadAndGetAllMessagesInChat(args.chatId, false, false).catch(doing(`read the messages of ${args.chatId}`));
    // The newest last: the messages loaded from the phone came after those the page held.
    const ids = messages
      .filter((message) => !fromMe(message))
      .sort((a, b) => secondsOf(a) - secondsOf(b))
      .slice(-unread)
      .filter((message) => secondsOf(message) >= since)
      .map(wppRecordId);
    await client.sendSeen(args.chatId).catch(doing(`mark chat ${args.chatId} read`));
    return { ids };
  }

  /** online/offline for the account, the chat states for a chat (the request names it for those). */
  async setPresence(args: { readonly chatId?: string | undefined; readonly presence: PresenceStatus }): Promise<void> {
    const client = this.client();
    const chatId = args.chatId ?? '';
    const set = {
      online: () => client.setOnlinePresence(true),
      offline: () => client.setOnlinePresence(false),
      typing: () => client.startTyping(chatId),
      recording: () => client.startRecording(chatId),
      paused: () => client.stopTyping(chatId),
    }[args.presence];
    await set().catch((error: unknown) => refused(`set the presence ${args.presence}`, error, chatId));
  }

  private client(): WppChatsClient {
    return this.connection.workingClient();
  }
}

/** A chat's or contact's picture, asked of the server: WPPConnect answers WhatsApp Web's picture model (`eurl`), or nothing. */
export async function pictureOf(client: Pick<WppChatsClient, 'getProfilePicFromServer'>, id: string): Promise<string | null> {
  const picture = await client.getProfilePicFromServer(id).catch((error: unknown) => refused(`read the picture of ${id}`, error, id));
  if (typeof picture === 'string') return picture || null;
  return picture?.eurl ?? picture?.imgFull ?? null;
}

function secondsOf(message: WppMessage): number {
  return message.t ?? message.timestamp ?? 0;
}

function fromMe(message: WppMessage): boolean {
  return typeof message.id === 'string' ? message.id.startsWith('true_') : message.id.fromMe;
}

/** wa-js's refusals as the command's: a chat it does not know is NOT_FOUND, the rest ENGINE_ERROR. */
export function refused(what: string, error: unknown, chatId: string): never {
  const message = describeWppError(error);
  if (/chat_not_found|not found/i.test(message) || codeOf(error) === 'chat_not_found')
    throw new CommandError('NOT_FOUND', `WhatsApp Web has no chat ${chatId}`, { chatId });
  throw new CommandError('ENGINE_ERROR', `WhatsApp Web could not ${what}: ${message}`);
}

function codeOf(error: unknown): string {
  return error && typeof error === 'object' && 'code' in error ? String(error.code) : '';
}
