import { capability, type CommandHandlers } from './types.js';

export const accountHandlers: CommandHandlers<'account.newMessageId' | 'account.checkNumber'> = {
  'account.newMessageId': async (engine, command, session) => ({
    id: await capability(engine, engine.newMessageId, command, session).call(engine),
  }),
  'account.checkNumber': async (engine, command, session) =>
    capability(engine, engine.checkNumber, command, session).call(engine, command.args.phone),
};
