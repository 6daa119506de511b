import { z } from 'zod';
import { PhoneNumber } from '../account.js';
import { command } from './command.js';

/** Engine commands about the paired account itself (spec 4.3 `me`) and what it can look up. */
export const accountCommands = [
  command('me'),
  command('account.newMessageId'),
  command('account.checkNumber', z.object({ phone: PhoneNumber })),
] as const;
