import { z } from 'zod';

/**
 * One command of the contract: `{op}`, or `{op, args}` for a command that takes arguments. The
 * literal `op` is what `EngineCommand` and `HostCommand` are discriminated by.
 */
export function command<const Op extends string>(op: Op): z.ZodObject<{ op: z.ZodLiteral<Op> }>;
export function command<const Op extends string, Args extends z.ZodType>(op: Op, args: Args): z.ZodObject<{ op: z.ZodLiteral<Op>; args: Args }>;
export function command(op: string, args?: z.ZodType) {
  return args ? z.object({ op: z.literal(op), args }) : z.object({ op: z.literal(op) });
}
