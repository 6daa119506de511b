import { capability, type CommandHandlers } from './types.js';

const done = { success: true } as const;

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
  'chat.delete': async (engine, command, session) => {
    await capability(engine, engine.deleteChat, command, session).call(engine, command.args);
    return done;
  },
  'chat.picture': async (engine, command, session) => capability(engine, engine.chatPicture, command, session).call(engine, command.args),
  'chat.clearMessages': async (engine, command, session) => {
    await capability(engine, engine.clearMessages, command, session).call(engine, command.args);
    return done;
  },
  'chat.read': async (engine, command, session) => capability(engine, engine.readChatMessages, command, session).call(engine, command.args),
  'chat.archive': async (engine, command, session) => {
    await capability(engine, engine.archiveChat, command, session).call(engine, command.args);
    return done;
  },
  'chat.unread': async (engine, command, session) => {
    await capability(engine, engine.markChatUnread, command, session).call(engine, command.args);
    return done;
  },
  'message.edit': async (engine, command, session) => {
    await capability(engine, engine.editMessage, command, session).call(engine, command.args);
    return done;
  },
  'message.delete': async (engine, command, session) => {
    await capability(engine, engine.deleteMessage, command, session).call(engine, command.args);
    return done;
  },
  'message.pin': async (engine, command, session) => {
    await capability(engine, engine.pinMessage, command, session).call(engine, command.args);
    return done;
  },
  'presence.set': async (engine, command, session) => {
    await capability(engine, engine.setPresence, command, session).call(engine, command.args);
    return done;
  },
  'presence.list': async (engine, command, session) => capability(engine, engine.presences, command, session).call(engine),
  'presence.get': async (engine, command, session) => capability(engine, engine.presence, command, session).call(engine, command.args),
  'presence.subscribe': async (engine, command, session) => {
    await capability(engine, engine.subscribePresence, command, session).call(engine, command.args);
    return done;
  },
  'call.reject': async (engine, command, session) => {
    await capability(engine, engine.rejectCall, command, session).call(engine, command.args);
    return done;
  },
  'send.event': async (engine, command, session) => capability(engine, engine.sendEvent, command, session).call(engine, command.args),
};
