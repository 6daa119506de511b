import { ENGINE_OPS, type EngineCommand, type EngineMethod, type EngineOp, methodOf } from '@switchboard/protocol';
import type { Engine } from '../engine.js';
import { capability } from './types.js';

/**
 * The engine method each op needs (protocol's OPERATIONS), as the `Engine` interface names it: this
 * assignment fails to compile when protocol names a method the interface lacks. protocol's
 * ENGINE_CATALOG lists an op for an engine exactly when its class has this method
 * (engine-pod/test/engine-catalog.test.ts).
 */
export const METHOD_OF: Readonly<Record<EngineOp, keyof Engine | null>> = Object.fromEntries(
  ENGINE_OPS.map((op) => [op, methodOf(op)] as const),
) as Record<EngineOp, EngineMethod | null>;

/**
 * The 422 NOT_SUPPORTED naming the engine, when it lacks what the command needs in every status.
 * The host asks before it checks the status: a NOWEB session asking for a passkey challenge
 * learns that NOWEB has no passkey pairing, not that it needs PASSKEY_REQUIRED, a status NOWEB
 * never reaches.
 */
export function requireSupport(engine: Engine, command: EngineCommand, session: string): void {
  const method = METHOD_OF[command.op];
  if (method) capability(engine, engine[method], command, session);
}
