import { SimulateRequest } from '../sandbox.js';
import { command } from './command.js';

/** SANDBOX only: play the other side (docs/sandbox.md). */
export const sandboxCommands = [command('sandbox.simulate', SimulateRequest)] as const;
