import { type EngineCommand, type EngineOp, operationName } from '@switchboard/protocol';
import { notSupported } from '../command-rules.js';
import type { Engine } from '../engine.js';
import type { Downloads } from '../outbound/downloads.js';

export type CommandOf<Op extends EngineOp> = Extract<EngineCommand, { op: Op }>;

/**
 * Carries out one engine command on a live engine whose status allows it. `downloads` is the
 * agent files sent by URL are fetched with (guarded by the outbound address policy).
 */
export type CommandHandler<Op extends EngineOp> = (engine: Engine, command: CommandOf<Op>, session: string, downloads: Downloads) => Promise<unknown>;

export type CommandHandlers<Ops extends EngineOp> = { readonly [Op in Ops]: CommandHandler<Op> };

/**
 * An optional engine method, or the 422 that names the engine when it lacks it, in the words of
 * protocol's engine catalog (`operationName`). Engines implement what their messaging service
 * can do; everything else answers the same way.
 */
export function capability<F>(engine: Engine, method: F | undefined, command: EngineCommand, session: string): F {
  if (method === undefined) throw notSupported(session, engine.name, operationName(command));
  return method;
}
