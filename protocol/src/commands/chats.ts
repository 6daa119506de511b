import { ArchiveChatArgs, ChatPictureArgs, EditMessageArgs, MessageOfChatArgs, PinMessageArgs, ReadChatMessagesArgs } from '../chats.js';
import { ChatArgs } from '../chatting-actions.js';
import { command } from './command.js';

/** Engine commands of the chats operations (`/api/{session}/chats...`); the chat lists are read from the history. */
export const chatsCommands = [
  command('chat.delete', ChatArgs),
  command('chat.picture', ChatPictureArgs),
  command('chat.clearMessages', ChatArgs),
  command('chat.read', ReadChatMessagesArgs),
  command('chat.archive', ArchiveChatArgs),
  command('chat.unread', ChatArgs),
  command('message.edit', EditMessageArgs),
  command('message.delete', MessageOfChatArgs),
  command('message.pin', PinMessageArgs),
] as const;
