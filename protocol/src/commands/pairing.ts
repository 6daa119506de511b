import { z } from 'zod';
import { PasskeyAssertionRequest, RequestCodeRequest } from '../pairing.js';

/** Engine commands of spec 4.1 (pairing). */
export const pairingCommands = [
  z.object({ op: z.literal('auth.qr') }),
  z.object({ op: z.literal('auth.requestCode'), args: RequestCodeRequest }),
  z.object({ op: z.literal('auth.passkey.challenge') }),
  z.object({ op: z.literal('auth.passkey.submit'), args: PasskeyAssertionRequest }),
  z.object({ op: z.literal('auth.passkey.confirmation') }),
  z.object({ op: z.literal('auth.passkey.confirm') }),
] as const;
