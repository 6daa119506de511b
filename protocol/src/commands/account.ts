import { z } from 'zod';
import { PhoneNumber } from '../account.js';

/** Engine commands about the paired account itself (spec 4.3 `me`) and what it can look up. */
export const accountCommands = [
  z.object({ op: z.literal('me') }),
  z.object({ op: z.literal('account.newMessageId') }),
  z.object({ op: z.literal('account.checkNumber'), args: z.object({ phone: PhoneNumber }) }),
] as const;
