import type { BuiltEngine } from '@switchboard/protocol';
import type { EngineVersion } from './engine-version.js';

/**
 * One engine's rollout, as the operator keeps it (rollout-store.ts: a ConfigMap per engine) and
 * `kubectl switchboard rollout status` reads it. The previous version of every session is in it,
 * so a session rolled back gets back exactly what it ran, even after an operator restart.
 */
export type RolloutPhase = 'Progressing' | 'Halted' | 'Complete';

/** Per session: waiting for its wave, being replaced, on the new version, or back on its own. */
export type SessionRolloutState = 'pending' | 'updating' | 'updated' | 'rolled_back';

export interface SessionRollout {
  readonly state: SessionRolloutState;
  /** What its pod ran when the rollout took it in: where a rollback takes it back to. */
  readonly from: EngineVersion;
  /**
   * Whether it must reach WORKING to pass: it was WORKING when the rollout took it in. A session
   * that was not (waiting for a QR scan, say) passes once its new engine reports SCAN_QR_CODE or
   * WORKING; both fail on FAILED or on no such report within the bound.
   */
  readonly mustWork: boolean;
  /** The wave it was (or is) replaced in; 0 is the canary. */
  readonly wave?: number;
  /** When its replacement began (ISO 8601): the bound counts from here. */
  readonly since?: string;
  /** Why it was rolled back. */
  readonly reason?: string;
}

export interface RolloutState {
  readonly engine: BuiltEngine;
  readonly phase: RolloutPhase;
  /** The version most of its sessions ran before (each session's own is in `sessions`). */
  readonly from: EngineVersion | null;
  readonly to: EngineVersion;
  readonly startedAt: string;
  /** The wave being replaced (or the last one); 0 is the canary. */
  readonly wave: number;
  /** Why it halted. */
  readonly message?: string;
  /** By MessagingSession name. */
  readonly sessions: Readonly<Record<string, SessionRollout>>;
}

/** How many of each state: the metrics' and the plugin's summary. */
export function countByState(state: RolloutState): Record<SessionRolloutState, number> {
  const counts: Record<SessionRolloutState, number> = { pending: 0, updating: 0, updated: 0, rolled_back: 0 };
  for (const session of Object.values(state.sessions)) counts[session.state]++;
  return counts;
}
