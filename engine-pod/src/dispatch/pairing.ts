import { capability, type CommandHandlers } from './types.js';

export const pairingHandlers: CommandHandlers<
  'auth.qr' | 'auth.requestCode' | 'auth.passkey.challenge' | 'auth.passkey.submit' | 'auth.passkey.confirmation' | 'auth.passkey.confirm'
> = {
  'auth.qr': async (engine) => ({ value: engine.qr() }),
  'auth.requestCode': async (engine, command) => engine.requestCode(command.args),
  'auth.passkey.challenge': async (engine, command, session) => capability(engine, engine.passkeyChallenge, command, session).call(engine),
  'auth.passkey.submit': async (engine, command, session) => capability(engine, engine.submitPasskey, command, session).call(engine, command.args),
  'auth.passkey.confirmation': async (engine, command, session) => capability(engine, engine.passkeyConfirmation, command, session).call(engine),
  'auth.passkey.confirm': async (engine, command, session) => capability(engine, engine.confirmPasskey, command, session).call(engine),
};
