import { capability, type CommandHandlers } from './types.js';

/** How a NOT_SUPPORTED answer names passkey pairing. */
export const PASSKEY_PAIRING = 'passkey pairing';

export const pairingHandlers: CommandHandlers<
  'auth.qr' | 'auth.requestCode' | 'auth.passkey.challenge' | 'auth.passkey.submit' | 'auth.passkey.confirmation' | 'auth.passkey.confirm'
> = {
  'auth.qr': async (engine) => ({ value: engine.qr() }),
  'auth.requestCode': async (engine, command) => engine.requestCode(command.args),
  'auth.passkey.challenge': async (engine, _command, session) =>
    capability(engine, engine.passkeyChallenge, PASSKEY_PAIRING, session).call(engine),
  'auth.passkey.submit': async (engine, command, session) =>
    capability(engine, engine.submitPasskey, PASSKEY_PAIRING, session).call(engine, command.args),
  'auth.passkey.confirmation': async (engine, _command, session) =>
    capability(engine, engine.passkeyConfirmation, PASSKEY_PAIRING, session).call(engine),
  'auth.passkey.confirm': async (engine, _command, session) =>
    capability(engine, engine.confirmPasskey, PASSKEY_PAIRING, session).call(engine),
};
