import { capability, type CommandHandlers } from './types.js';

export const accountHandlers: CommandHandlers<'account.newMessageId' | 'account.checkNumber'> = {
  'account.newMessageId': async (engine, _command, session) => ({
    id: await capability(engine, engine.newMessageId, 'pre-generated message ids', session).call(engine),
  }),
  'account.checkNumber': async (engine, command, session) =>
    capability(engine, engine.checkNumber, 'checking numbers', session).call(engine, command.args.phone),
};
