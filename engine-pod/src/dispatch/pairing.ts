import type { CommandHandlers } from './types.js';

export const pairingHandlers: CommandHandlers<'auth.qr' | 'auth.requestCode'> = {
  'auth.qr': async (engine) => ({ value: engine.qr() }),
  'auth.requestCode': async (engine, command) => engine.requestCode(command.args),
};
