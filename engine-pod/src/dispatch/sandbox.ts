import { capability, type CommandHandlers } from './types.js';

export const sandboxHandlers: CommandHandlers<'sandbox.simulate'> = {
  'sandbox.simulate': async (engine, command, session) => capability(engine, engine.simulate, command, session).call(engine, command.args),
};
