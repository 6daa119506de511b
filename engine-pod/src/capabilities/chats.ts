import type { ChatPictureResponse, ChatPresences, MessageRecord, PresenceStatus, ReadChatMessagesResponse } from '@switchboard/protocol';
import type { CommandArgs } from './chatting.js';

/**
 * The chats operations (`/api/{session}/chats...`), presence, event messages and declining calls,
 * for engines whose messaging service can do them. Each method is optional: an engine without it
 * answers 422 NOT_SUPPORTED naming itself (dispatch/chats.ts). All of them need WORKING. Chat
 * lists and a chat's messages are read from the session's message history, not from engines.
 */
export interface ChatsCapability {
  /** Deletes the chat from the account's chat list (on the phone too). */
  deleteChat?(args: CommandArgs<'chat.delete'>): Promise<void>;
  chatPicture?(args: CommandArgs<'chat.picture'>): Promise<ChatPictureResponse>;
  /** Clears the chat's messages, keeping the chat. */
  clearMessages?(args: CommandArgs<'chat.clearMessages'>): Promise<void>;
  /** Read receipts for the chat's unread incoming messages (the newest `messages`, of the last `days`). */
  readChatMessages?(args: CommandArgs<'chat.read'>): Promise<ReadChatMessagesResponse>;
  /** Archives or unarchives; `chat.archive` follows, as when the phone does it. */
  archiveChat?(args: CommandArgs<'chat.archive'>): Promise<void>;
  markChatUnread?(args: CommandArgs<'chat.unread'>): Promise<void>;
  /** Edits one of the account's own messages; `message.edited` follows. */
  editMessage?(args: CommandArgs<'message.edit'>): Promise<void>;
  /** Deletes a message for everyone; `message.revoked` follows. */
  deleteMessage?(args: CommandArgs<'message.delete'>): Promise<void>;
  /** Pins for `duration` seconds, or unpins (null). */
  pinMessage?(args: CommandArgs<'message.pin'>): Promise<void>;
  /** An event message: answered as a send (message record, `message.any` with source `api`). */
  sendEvent?(args: CommandArgs<'send.event'>): Promise<MessageRecord>;
}

/** The account's own presence, and the presence of the chats it watches (`presence.update`). */
export interface PresenceCapability {
  setPresence?(args: { readonly chatId?: string | undefined; readonly presence: PresenceStatus }): Promise<void>;
  /** Every chat subscribed to, with what is known of its presence. */
  presences?(): Promise<ChatPresences[]>;
  /** The chat's presence; subscribes first when it is not yet subscribed to. */
  presence?(args: CommandArgs<'presence.get'>): Promise<ChatPresences>;
  subscribePresence?(args: CommandArgs<'presence.subscribe'>): Promise<void>;
}
