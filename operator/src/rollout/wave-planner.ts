import type { BuiltEngine, SessionStatus } from '@switchboard/protocol';
import { describeVersion, type EngineVersion, sameVersion } from './engine-version.js';
import type { RolloutPhase, RolloutState, SessionRollout } from './rollout-state.js';

/** A count of sessions, or a share of those the rollout took in (rounded down, at least 1). */
export type RolloutAmount = { readonly count: number } | { readonly percent: number };

export interface RolloutSettings {
  /** The first wave, alone: it must pass before any other session is touched. */
  readonly canary: RolloutAmount;
  /** Every later wave: at most this many sessions being replaced at once. */
  readonly maxUnavailable: RolloutAmount;
  /** How long a session of a wave has to pass (WORKING, or started for one that was not WORKING). */
  readonly workingTimeoutMs: number;
}

/** What the planner sees of one session of the engine, read from the caches by the controller. */
export interface SessionView {
  readonly name: string;
  /** Desired Running, not being deleted, not refused, not pinned: a session a rollout may replace. */
  readonly rollable: boolean;
  /** What its current pod runs; null without a pod. */
  readonly podVersion: EngineVersion | null;
  /** Its current pod's creationTimestamp (ms; the API keeps whole seconds). */
  readonly podCreatedAt: number | null;
  /** Its resource's status is WORKING now. */
  readonly working: boolean;
  /** The latest `session.status` its engine reported (the operator forgets it when the pod goes), and when. */
  readonly report: { readonly status: SessionStatus; readonly at: number; readonly reason: string | null } | null;
}

export type RolloutChange =
  | { readonly kind: 'started' }
  | { readonly kind: 'wave'; readonly wave: number; readonly sessions: readonly string[] }
  | { readonly kind: 'updated'; readonly session: string }
  | { readonly kind: 'rolled_back'; readonly session: string; readonly reason: string }
  | { readonly kind: 'left'; readonly session: string }
  | { readonly kind: 'halted'; readonly message: string }
  | { readonly kind: 'complete' };

export interface PlanInput {
  readonly engine: BuiltEngine;
  /** The rollout as last stored, or null. */
  readonly previous: RolloutState | null;
  /** The version the release asks for now. */
  readonly to: EngineVersion;
  readonly sessions: readonly SessionView[];
  readonly settings: RolloutSettings;
  readonly now: number;
}

export interface Plan {
  /** The rollout to store; null while there is none and nothing to roll. */
  readonly state: RolloutState | null;
  readonly changes: readonly RolloutChange[];
}

/**
 * The next step of one engine's rollout. Pure: the same input gives the same plan, and the
 * clock is an input. Level-triggered like a reconcile: it looks at what every pod runs and what
 * every engine last reported, never at the event that woke it.
 *
 * A version change takes in every rollable session whose pod runs another version, all pending.
 * Then the canary wave, alone; once every session of a wave has passed, the next wave of at most
 * maxUnavailable. A session of the wave being replaced that fails (its new engine reports FAILED,
 * or has not passed within the bound) halts the rollout, and that wave goes back to what each of
 * its sessions ran before; the pending ones are never touched. A halted rollout stays so until the
 * version changes again or its state is deleted (docs/operations.md, "Rollouts").
 */
export function planRollout(input: PlanInput): Plan {
  const { previous, to, sessions, now } = input;
  const views = new Map(sessions.map((view) => [view.name, view]));
  const candidates = sessions.filter((view) => view.rollable && view.podVersion !== null && !sameVersion(view.podVersion, to));
  const changes: RolloutChange[] = [];

  let state: RolloutState;
  if (previous && sameVersion(previous.to, to)) {
    state = previous;
  } else if (candidates.length === 0) {
    // A change to what every pod runs already (a halted rollout's version taken back, say).
    if (!previous) return { state: null, changes };
    return {
      state: { engine: input.engine, phase: 'Complete', from: previous.to, to, startedAt: iso(now), wave: 0, sessions: {} },
      changes: [{ kind: 'complete' }],
    };
  } else {
    state = {
      engine: input.engine,
      phase: 'Progressing',
      from: mostCommon(candidates.map((view) => view.podVersion!)),
      to,
      startedAt: iso(now),
      wave: -1,
      sessions: {},
    };
    changes.push({ kind: 'started' });
  }
  if (state.phase === 'Halted') return { state, changes };

  const entries = new Map<string, SessionRollout>(Object.entries(state.sessions));
  // Sessions whose pod runs another version join: at the start, and later ones (a pin removed).
  let adopted = false;
  for (const view of candidates) {
    if (entries.has(view.name)) continue;
    entries.set(view.name, { state: 'pending', from: view.podVersion!, mustWork: view.working });
    adopted = true;
  }
  let phase: RolloutPhase = state.phase === 'Complete' && adopted ? 'Progressing' : state.phase;

  // Sessions gone, stopped or pinned while waiting or being replaced leave the rollout: when they
  // run again, their new pod is made from the release's version.
  for (const [name, entry] of entries) {
    const view = views.get(name);
    if (view?.rollable || (view && entry.state !== 'pending' && entry.state !== 'updating')) continue;
    entries.delete(name);
    changes.push({ kind: 'left', session: name });
  }
  if (phase !== 'Progressing') return { state: { ...state, sessions: Object.fromEntries(entries) }, changes };

  const failures: { name: string; reason: string }[] = [];
  for (const [name, entry] of entries) {
    if (entry.state !== 'updating') continue;
    const verdict = judge(entry, views.get(name)!, to, now, input.settings.workingTimeoutMs);
    if (verdict === 'pass') {
      entries.set(name, { ...entry, state: 'updated' });
      changes.push({ kind: 'updated', session: name });
    } else if (verdict !== 'wait') {
      failures.push({ name, reason: verdict.fail });
    }
  }

  let wave = state.wave;
  let message = state.message;
  if (failures.length > 0) {
    const first = failures[0]!;
    message = `${first.name}: ${first.reason}; wave ${String(wave)} rolled back to what each of its sessions ran before`;
    phase = 'Halted';
    for (const [name, entry] of entries) {
      if (entry.wave !== wave || (entry.state !== 'updating' && entry.state !== 'updated')) continue;
      const reason = failures.find((failure) => failure.name === name)?.reason ?? `its wave failed (${first.name}: ${first.reason})`;
      entries.set(name, { ...entry, state: 'rolled_back', reason });
      changes.push({ kind: 'rolled_back', session: name, reason });
    }
    changes.push({ kind: 'halted', message });
  } else if (![...entries.values()].some((entry) => entry.state === 'updating')) {
    const pending = [...entries].filter(([, entry]) => entry.state === 'pending').map(([name]) => name);
    if (pending.length === 0) {
      phase = 'Complete';
      changes.push({ kind: 'complete' });
    } else {
      wave += 1;
      const size = amountOf(wave === 0 ? input.settings.canary : input.settings.maxUnavailable, entries.size);
      const next = pending.sort().slice(0, size);
      for (const name of next) entries.set(name, { ...entries.get(name)!, state: 'updating', wave, since: iso(now) });
      changes.push({ kind: 'wave', wave, sessions: next });
    }
  }
  return {
    state: { ...state, phase, wave, ...(message !== undefined ? { message } : {}), sessions: Object.fromEntries(entries) },
    changes,
  };
}

/** How many sessions an amount is, out of those the rollout took in: at least one. */
export function amountOf(amount: RolloutAmount, total: number): number {
  const wanted = 'count' in amount ? amount.count : Math.floor((total * amount.percent) / 100);
  return Math.max(1, wanted);
}

/**
 * Whether a session being replaced has passed: its new pod (made after its replacement began,
 * running the new version) has an engine that reported WORKING since it started, or, for a
 * session that was not WORKING before, SCAN_QR_CODE. FAILED, or neither within the bound (an
 * image that cannot start, an engine that cannot connect), fails it.
 */
function judge(entry: SessionRollout, view: SessionView, to: EngineVersion, now: number, timeoutMs: number): 'pass' | 'wait' | { fail: string } {
  const since = Date.parse(entry.since ?? '');
  // creationTimestamp has whole seconds: a pod made in the second replacement began is new.
  const newPod = view.podVersion !== null && sameVersion(view.podVersion, to) && view.podCreatedAt !== null && view.podCreatedAt >= since - 1_000;
  const report = view.report;
  // Said by the new pod's engine: the old one's last words (STOPPED as it shut down) come before.
  const fresh = newPod && report !== null && report.at >= view.podCreatedAt;
  if (fresh) {
    if (report.status === 'FAILED') return { fail: `FAILED on ${describeVersion(to)}${report.reason ? `: ${report.reason}` : ''}` };
    if (report.status === 'WORKING') return 'pass';
    if (!entry.mustWork && report.status === 'SCAN_QR_CODE') return 'pass';
  }
  if (now - since > timeoutMs) {
    return { fail: `not ${entry.mustWork ? 'WORKING' : 'started'} on ${describeVersion(to)} within ${String(Math.round(timeoutMs / 1000))} s` };
  }
  return 'wait';
}

function mostCommon(versions: readonly EngineVersion[]): EngineVersion {
  const counts = new Map<string, { version: EngineVersion; count: number }>();
  for (const version of versions) {
    const key = JSON.stringify([version.image, version.clientVersion ?? null]);
    const seen = counts.get(key);
    counts.set(key, { version, count: (seen?.count ?? 0) + 1 });
  }
  return [...counts.values()].sort((a, b) => b.count - a.count)[0]!.version;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
