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

/** The optional engine methods a command can be handed to: those that take at most one argument. */
type EngineMethod = { [K in keyof Engine]-?: NonNullable<Engine[K]> extends (arg: never) => Promise<unknown> ? K : never }[keyof Engine];
type ArgumentOf<M extends EngineMethod> = Parameters<NonNullable<Engine[M]>>[0];

/** Checks for the method before `args` picks its argument, as a handler written out would. */
async function call<Op extends EngineOp, M extends EngineMethod>(
  method: M,
  args: (command: CommandOf<Op>) => ArgumentOf<M>,
  engine: Engine,
  command: CommandOf<Op>,
  session: string,
): Promise<unknown> {
  const implementation = capability(engine, engine[method] as ((argument: ArgumentOf<M>) => Promise<unknown>) | undefined, command, session);
  return implementation.call(engine, args(command));
}

/**
 * The handler most commands are: hand what `args` picks of the command to one optional engine
 * method (the 422 of {@link capability} when the engine lacks it) and answer with what it returns.
 */
export function forward<Op extends EngineOp, M extends EngineMethod>(method: M, args: (command: CommandOf<Op>) => ArgumentOf<M>): CommandHandler<Op> {
  return async (engine, command, session) => call(method, args, engine, command, session);
}

/** As {@link forward}, for a method with nothing to answer: the command answers `{ success: true }`. */
export function acknowledge<Op extends EngineOp, M extends EngineMethod>(
  method: M,
  args: (command: CommandOf<Op>) => ArgumentOf<M>,
): CommandHandler<Op> {
  return async (engine, command, session) => {
    await call(method, args, engine, command, session);
    return { success: true };
  };
}
