import { capability, type CommandHandlers } from './types.js';

const done = { success: true } as const;

export const contactHandlers: CommandHandlers<
  'contacts.list' | 'contacts.get' | 'contacts.about' | 'contacts.picture' | 'contacts.block' | 'contacts.unblock' | 'contacts.update'
> = {
  'contacts.list': async (engine, command, session) => capability(engine, engine.contacts, command, session).call(engine),
  'contacts.get': async (engine, command, session) => capability(engine, engine.contact, command, session).call(engine, command.args.contactId),
  'contacts.about': async (engine, command, session) => ({
    about: await capability(engine, engine.contactAbout, command, session).call(engine, command.args.contactId),
  }),
  'contacts.picture': async (engine, command, session) => ({
    profilePictureURL: await capability(engine, engine.contactPicture, command, session).call(engine, command.args.contactId),
  }),
  'contacts.block': async (engine, command, session) => {
    await capability(engine, engine.setBlocked, command, session).call(engine, { id: command.args.contactId, blocked: true });
    return done;
  },
  'contacts.unblock': async (engine, command, session) => {
    await capability(engine, engine.setBlocked, command, session).call(engine, { id: command.args.contactId, blocked: false });
    return done;
  },
  'contacts.update': async (engine, command, session) => {
    const { contactId, firstName, lastName } = command.args;
    await capability(engine, engine.updateContact, command, session).call(engine, { id: contactId, firstName, lastName });
    return done;
  },
};

export const labelHandlers: CommandHandlers<
  'labels.list' | 'labels.create' | 'labels.update' | 'labels.delete' | 'labels.ofChat' | 'labels.setForChat' | 'labels.chats'
> = {
  'labels.list': async (engine, command, session) => capability(engine, engine.labels, command, session).call(engine),
  'labels.create': async (engine, command, session) => capability(engine, engine.createLabel, command, session).call(engine, command.args),
  'labels.update': async (engine, command, session) =>
    capability(engine, engine.updateLabel, command, session).call(engine, { id: command.args.id, ...command.args.label }),
  'labels.delete': async (engine, command, session) => {
    await capability(engine, engine.deleteLabel, command, session).call(engine, command.args.id);
    return done;
  },
  'labels.ofChat': async (engine, command, session) => capability(engine, engine.chatLabels, command, session).call(engine, command.args.chatId),
  'labels.setForChat': async (engine, command, session) => {
    const ids = [...new Set(command.args.labels.map((label) => label.id))];
    await capability(engine, engine.setChatLabels, command, session).call(engine, { chatId: command.args.chatId, labelIds: ids });
    return done;
  },
  'labels.chats': async (engine, command, session) => capability(engine, engine.labelChats, command, session).call(engine, command.args.id),
};
