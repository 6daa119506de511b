import { z } from 'zod';

/** Engine commands about the paired account itself (spec 4.3 `me`, 4.4 profile). */
export const accountCommands = [z.object({ op: z.literal('me') })] as const;
