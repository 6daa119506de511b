import { PasskeyAssertionRequest, RequestCodeRequest } from '../pairing.js';
import { command } from './command.js';

/** Engine commands of spec 4.1 (pairing). */
export const pairingCommands = [
  command('auth.qr'),
  command('auth.requestCode', RequestCodeRequest),
  command('auth.passkey.challenge'),
  command('auth.passkey.submit', PasskeyAssertionRequest),
  command('auth.passkey.confirmation'),
  command('auth.passkey.confirm'),
] as const;
