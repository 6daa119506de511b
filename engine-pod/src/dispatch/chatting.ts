import type { CommandHandlers } from './types.js';

export const chattingHandlers: CommandHandlers<'send.text'> = {
  'send.text': async (engine, command) => engine.sendText(command.args),
};
