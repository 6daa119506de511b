import type { ChatPictureResponse, PresenceStatus, ReadChatMessagesResponse } from '@switchboard/protocol';
import type { CommandArgs } from '../../capabilities/chatting.js';
import { CommandError } from '../../command-error.js';
import { findMessage, type WebjsDeps } from './deps.js';
import type { WebjsChatHandle, WebjsMessageHandle } from './webjs-client.js';
import { recordId } from './webjs-ids.js';

/**
 * The chats operations and presence on WEBJS: `Chat`'s methods (delete, clearMessages,
 * fetchMessages, the chat states) and the client's (archive, unread, seen, presence, pictures).
 * `chat.archive` follows from the library's `chat_archived`, as when the phone archives.
 */
export class WebjsChats {
  constructor(private readonly deps: WebjsDeps) {}

  async deleteChat({ chatId }: CommandArgs<'chat.delete'>): Promise<void> {
    const chat = await this.chat(chatId);
    const done = await chat.delete().catch(this.deps.engineError(`delete chat ${chatId}`));
    if (done === false) throw new CommandError('ENGINE_ERROR', `WhatsApp Web did not delete chat ${chatId}`, { chatId });
  }

  async clearMessages({ chatId }: CommandArgs<'chat.clearMessages'>): Promise<void> {
    const chat = await this.chat(chatId);
    const done = await chat.clearMessages().catch(this.deps.engineError(`clear chat ${chatId}`));
    if (done === false) throw new CommandError('ENGINE_ERROR', `WhatsApp Web did not clear chat ${chatId}`, { chatId });
  }

  async archiveChat({ chatId, archive }: CommandArgs<'chat.archive'>): Promise<void> {
    const client = this.deps.client();
    await (archive ? client.archiveChat(chatId) : client.unarchiveChat(chatId)).catch(
      this.deps.engineError(`${archive ? 'archive' : 'unarchive'} chat ${chatId}`),
    );
  }

  async markChatUnread({ chatId }: CommandArgs<'chat.unread'>): Promise<void> {
    await this.deps
      .client()
      .markChatUnread(chatId)
      .catch(this.deps.engineError(`mark chat ${chatId} unread`));
  }

  /** Asked of the server each time; null when the chat has no picture or hides it. */
  async chatPicture({ chatId }: CommandArgs<'chat.picture'>): Promise<ChatPictureResponse> {
    const url = await this.deps
      .client()
      .getProfilePicUrl(chatId)
      .catch(this.deps.engineError(`read the picture of ${chatId}`));
    return { url: url ?? null };
  }

  /**
   * The chat's unread incoming messages (the newest `messages` of them, of the last `days`), read
   * with `fetchMessages`; then `sendSeen`, which marks the whole chat read as WhatsApp Web does.
   */
  async readChatMessages(args: CommandArgs<'chat.read'>): Promise<ReadChatMessagesResponse> {
    const chat = await this.chat(args.chatId);
    const unread = Math.min(chat.unreadCount ?? 0, args.messages ?? Number.MAX_SAFE_INTEGER);
    if (unread <= 0) return { ids: [] };
    const since = Date.now() / 1000 - args.days * 86_400;
    const messages = await chat.fetchMessages({ limit: unread, fromMe: false }).catch(this.deps.engineError(`read the messages of ${args.chatId}`));
    const ids = messages.filter((message) => !message.id.fromMe && message.timestamp >= since).map((message) => recordId(message.id));
    await this.deps
      .client()
      .sendSeen(args.chatId)
      .catch(this.deps.engineError(`mark chat ${args.chatId} read`));
    return { ids };
  }

  /** `Message.pin(seconds)`, `Message.unpin()`; the library answers false when WhatsApp refused. */
  async pinMessage(args: CommandArgs<'message.pin'>): Promise<void> {
    const message = await this.message(args.messageId);
    const pinning = args.duration !== null;
    const done = await (pinning ? message.pin(args.duration!) : message.unpin()).catch(
      this.deps.engineError(`${pinning ? 'pin' : 'unpin'} ${args.messageId}`),
    );
    if (!done)
      throw new CommandError('ENGINE_ERROR', `WhatsApp did not ${pinning ? 'pin' : 'unpin'} ${args.messageId}`, { messageId: args.messageId });
  }

  /** online/offline for the account, the chat states for a chat (the request names it for those). */
  async setPresence(args: { readonly chatId?: string | undefined; readonly presence: PresenceStatus }): Promise<void> {
    const client = this.deps.client();
    const doing = this.deps.engineError(`set the presence ${args.presence}`);
    if (args.presence === 'online') return client.sendPresenceAvailable().catch(doing);
    if (args.presence === 'offline') return client.sendPresenceUnavailable().catch(doing);
    const chat = await this.chat(args.chatId!);
    const state = { typing: () => chat.sendStateTyping(), recording: () => chat.sendStateRecording(), paused: () => chat.clearState() }[
      args.presence
    ];
    await state().catch(doing);
  }

  private async chat(chatId: string): Promise<WebjsChatHandle> {
    return this.deps
      .client()
      .getChatById(chatId)
      .catch(this.deps.engineError(`find chat ${chatId}`));
  }

  private message(id: string): Promise<WebjsMessageHandle> {
    return findMessage(this.deps, id);
  }
}
