import {
  type BuiltEngine,
  ENGINE_CATALOG,
  type EngineCommand,
  type EngineOp,
  type EngineName,
  isBuiltEngine,
  operationName,
  OPERATIONS,
  refusedArgumentOf,
  type SessionStatus,
  supportsOperation,
} from '@switchboard/protocol';
import { CommandError } from './command-error.js';

/** The statuses in which an engine command makes sense (protocol's OPERATIONS). */
export function statusesNeededBy(op: EngineCommand['op']): readonly SessionStatus[] {
  return OPERATIONS[op].needs;
}

/**
 * The 422 of a command the session's status does not allow. One wording for the engine host and
 * for a cluster gateway answering for a session whose engine pod is not running.
 */
export function wrongStatusError(session: string, status: SessionStatus, op: EngineCommand['op']): CommandError {
  const expected = statusesNeededBy(op);
  return new CommandError('WRONG_STATUS', `session '${session}' is ${status}; this needs ${expected.join(' or ')}`, {
    session,
    status,
    expected,
  });
}

function simulateNotSupported(session: string, engine: EngineName): CommandError {
  return new CommandError('NOT_SUPPORTED', `simulate works only on SANDBOX sessions; session '${session}' runs ${engine}`, {
    session,
    engine,
  });
}

/**
 * The 422 of a command the session's engine cannot carry out in any status, from protocol's
 * ENGINE_CATALOG, or null. The gateway asks before a command travels (both modes), and the host
 * asks again; an engine this build lacks has no entry (its session runs no engine).
 */
export function notSupportedError(session: string, engine: EngineName, command: EngineCommand): CommandError | null {
  if (!isBuiltEngine(engine)) return null;
  if (!supportsOperation(engine, command.op)) {
    if (command.op === 'sandbox.simulate') return simulateNotSupported(session, engine);
    return notSupported(session, engine, operationName(command));
  }
  const refused = refusedArgumentOf(engine, command);
  return refused ? notSupported(session, engine, refused.what, { field: refused.field }) : null;
}

/**
 * One wording of NOT_SUPPORTED for the table's refusals (an op, or an argument: `extra` names its
 * field) and an engine lacking a method.
 */
export function notSupported(session: string, engine: EngineName, what: string, extra: { readonly field?: string } = {}): CommandError {
  return new CommandError('NOT_SUPPORTED', `engine ${engine} does not support ${what} (session '${session}')`, { session, engine, ...extra });
}

/**
 * The catalog's refusal of `field` on `op` for `engine`, in its words, for an engine class that
 * refuses the argument itself too (the host asks the catalog first; a class used on its own must
 * not take what the catalog says it refuses).
 */
export function catalogRefusal(session: string, engine: BuiltEngine, op: EngineOp, field: string): CommandError {
  const refused = ENGINE_CATALOG[engine].refusedArguments.find((entry) => entry.op === op && entry.field === field);
  if (!refused) throw new Error(`the catalog gives ${engine} no refusal of ${field} on ${op}`);
  return notSupported(session, engine, refused.what, { field });
}
