import { z } from 'zod';
import { MessageTextRequest } from './chatting.js';
import { RequestCodeRequest } from './pairing.js';
import { SimulateRequest } from './sandbox.js';

/**
 * The engine command contract: what the gateway asks of one session's engine host. In local
 * mode it is a direct call; in cluster mode the same object is a NATS request.
 */
export const EngineCommand = z.discriminatedUnion('op', [
  z.object({ op: z.literal('auth.qr') }),
  z.object({ op: z.literal('auth.requestCode'), args: RequestCodeRequest }),
  z.object({ op: z.literal('me') }),
  z.object({ op: z.literal('send.text'), args: MessageTextRequest.omit({ session: true }) }),
  z.object({ op: z.literal('sandbox.simulate'), args: SimulateRequest }),
]);
export type EngineCommand = z.infer<typeof EngineCommand>;
export type EngineOp = EngineCommand['op'];

/** Machine-readable reasons a command fails; the gateway maps each to an HTTP status. */
export const CommandErrorCode = z.enum(['INVALID', 'NOT_FOUND', 'WRONG_STATUS', 'NOT_SUPPORTED', 'ENGINE_ERROR']);
export type CommandErrorCode = z.infer<typeof CommandErrorCode>;

export const CommandReply = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), result: z.unknown() }),
  z.object({
    ok: z.literal(false),
    error: z.object({ code: CommandErrorCode, message: z.string(), details: z.unknown().optional() }),
  }),
]);
export type CommandReply = z.infer<typeof CommandReply>;
