import type { BuiltEngine, SessionStatus } from '@switchboard/protocol';
import type { EngineLog } from '@switchboard/engine-pod';

/** What the rollout needs of the local backend (local-backend.ts). */
export interface RollableSessions {
  /** The session's status, or null when it no longer runs (stopped or deleted meanwhile). */
  statusOf(name: string): SessionStatus | null;
  /** Restarts the session on a client version: a string holds it there, null gives it the engine's (the new one). */
  restartOn(name: string, clientVersion: string | null): Promise<void>;
}

export interface LocalRolloutPlan {
  readonly engine: BuiltEngine;
  /** The version the sessions ran on, which they are held on until their turn. */
  readonly from: string;
  /** The engine's version now (null: its library's). */
  readonly to: string | null;
  /** The running sessions of the engine without a config.clientVersion of their own, in order. */
  readonly sessions: readonly string[];
}

export type LocalRolloutResult =
  | { readonly outcome: 'complete' }
  | { readonly outcome: 'halted'; readonly session: string; readonly reason: string }
  | { readonly outcome: 'closed' };

/** How often a session's status is looked at while it has to pass. */
const LOOK_EVERY_MS = 250;

/**
 * Local mode's version change (docs/operations.md, "Rollouts"): the running sessions were started
 * on the version they ran before; one at a time, each is restarted on the engine's new one and has
 * to pass (WORKING; a session that was not WORKING, SCAN_QR_CODE or WORKING) within the bound
 * before the next. One that fails (FAILED, or not in time) is restarted on its previous version
 * and the change halts: the sessions after it are never restarted.
 */
export async function rollLocally(
  plan: LocalRolloutPlan,
  sessions: RollableSessions,
  options: { readonly timeoutMs: number; readonly log: EngineLog; readonly closing: () => boolean },
): Promise<LocalRolloutResult> {
  const context = { engine: plan.engine, from: plan.from, to: plan.to ?? "the library's" };
  options.log.info({ ...context, sessions: plan.sessions.length }, 'client version change: sessions restarted onto it one at a time');
  for (const name of plan.sessions) {
    if (options.closing()) return { outcome: 'closed' };
    // Started moments ago on its previous version: what it was is what it settles on.
    const before = await settled(name, sessions, options);
    if (before === null) continue;
    const mustWork = before === 'WORKING';
    await sessions.restartOn(name, null);
    const failure = await passes(name, mustWork, sessions, options);
    if (options.closing()) return { outcome: 'closed' };
    if (failure !== null) {
      await sessions.restartOn(name, plan.from);
      options.log.warn(
        { ...context, session: name, reason: failure },
        'client version change halted: the session went back to its previous version; the rest stay on it',
      );
      return { outcome: 'halted', session: name, reason: failure };
    }
    options.log.info({ ...context, session: name }, 'client version change: session passed');
  }
  options.log.info(context, 'client version change complete');
  return { outcome: 'complete' };
}

/** The session's status once it is no longer STARTING (or the bound passed); null when it no longer runs. */
async function settled(
  name: string,
  sessions: RollableSessions,
  options: { timeoutMs: number; closing: () => boolean },
): Promise<SessionStatus | null> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const status = sessions.statusOf(name);
    if (status !== 'STARTING' || Date.now() > deadline || options.closing()) return status;
    await new Promise((resolve) => setTimeout(resolve, LOOK_EVERY_MS));
  }
}

/** Null once the session has passed; why not otherwise. */
async function passes(
  name: string,
  mustWork: boolean,
  sessions: RollableSessions,
  options: { timeoutMs: number; closing: () => boolean },
): Promise<string | null> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const status = sessions.statusOf(name);
    if (status === null || options.closing()) return null;
    if (status === 'WORKING' || (!mustWork && status === 'SCAN_QR_CODE')) return null;
    if (status === 'FAILED') return 'FAILED on the new client version';
    if (Date.now() > deadline) return `not ${mustWork ? 'WORKING' : 'started'} within ${String(Math.round(options.timeoutMs / 1000))} s`;
    await new Promise((resolve) => setTimeout(resolve, LOOK_EVERY_MS));
  }
}
