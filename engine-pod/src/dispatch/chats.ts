import { acknowledge, capability, forward, type CommandHandlers } from './types.js';

export const chatsHandlers: CommandHandlers<
  | 'chat.delete'
  | 'chat.picture'
  | 'chat.clearMessages'
  | 'chat.read'
  | 'chat.archive'
  | 'chat.unread'
  | 'message.edit'
  | 'message.delete'
  | 'message.pin'
  | 'presence.set'
  | 'presence.list'
  | 'presence.get'
  | 'presence.subscribe'
  | 'call.reject'
  | 'send.event'
> = {
  'chat.delete': acknowledge('deleteChat', (command) => command.args),
  'chat.picture': forward('chatPicture', (command) => command.args),
  'chat.clearMessages': acknowledge('clearMessages', (command) => command.args),
  'chat.read': forward('readChatMessages', (command) => command.args),
  'chat.archive': acknowledge('archiveChat', (command) => command.args),
  'chat.unread': acknowledge('markChatUnread', (command) => command.args),
  'message.edit': acknowledge('editMessage', (command) => command.args),
  'message.delete': acknowledge('deleteMessage', (command) => command.args),
  'message.pin': acknowledge('pinMessage', (command) => command.args),
  'presence.set': acknowledge('setPresence', (command) => command.args),
  'presence.list': async (engine, command, session) => capability(engine, engine.presences, command, session).call(engine),
  'presence.get': forward('presence', (command) => command.args),
  'presence.subscribe': acknowledge('subscribePresence', (command) => command.args),
  'call.reject': acknowledge('rejectCall', (command) => command.args),
  'send.event': forward('sendEvent', (command) => command.args),
};
