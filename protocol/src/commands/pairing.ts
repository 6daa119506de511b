import { z } from 'zod';
import { RequestCodeRequest } from '../pairing.js';

/** Engine commands of spec 4.1 (pairing). */
export const pairingCommands = [
  z.object({ op: z.literal('auth.qr') }),
  z.object({ op: z.literal('auth.requestCode'), args: RequestCodeRequest }),
] as const;
