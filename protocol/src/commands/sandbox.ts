import { z } from 'zod';
import { SimulateRequest } from '../sandbox.js';

/** SANDBOX only: play the other side (docs/sandbox.md). */
export const sandboxCommands = [z.object({ op: z.literal('sandbox.simulate'), args: SimulateRequest })] as const;
