import type { V1Pod } from '@kubernetes/client-node';
import {
  type Condition,
  type DesiredState,
  type EngineLibraryVersions,
  type MeInfo,
  type MessagingSessionStatus,
  RECENT_STATUSES,
  type SessionStatus,
  type SessionStatusPoint,
} from '@switchboard/protocol';
import { clip, setConditions } from './conditions.js';
import { isCrashLooping, isFinished, isReady, isTerminating, podSummary } from './pod-state.js';
import { type PodView, sessionConditions, UNPAIRED } from './session-conditions.js';

/** The engine's own view of its session, from a `session.status` event or a `host.status` reply. */
export interface EngineReport {
  readonly status: SessionStatus;
  readonly statuses: readonly SessionStatusPoint[];
  readonly me: MeInfo | null;
  /** With FAILED: why, in the engine's words (the `reason` of `session.status`). */
  readonly reason?: string | null;
  /** What the engine said this start runs (the `versions` of `session.status`), once it has. */
  readonly versions?: EngineLibraryVersions | null;
  /**
   * The last time this pod's engine found its connection silent and reconnected (a STARTING whose
   * reason is a silence, connection-silence.ts), kept through the reports after it.
   */
  readonly silence?: { readonly at: number; readonly reason: string } | null;
}

/** A resource no engine pod can run (an invalid spec, an engine this build lacks): FAILED, with why. */
export interface Refusal {
  readonly reason: 'InvalidSpec' | 'EngineNotAvailable' | 'SessionNameMismatch';
  readonly message: string;
}

export interface StatusInput {
  readonly desiredState: DesiredState;
  readonly generation: number;
  readonly pod: V1Pod | null;
  /** Known only while the current pod runs; forgotten when the pod goes. */
  readonly engine: EngineReport | null;
  readonly previous: MessagingSessionStatus | undefined;
  readonly now: Date;
  /** Set when the operator refuses the resource: then no pod runs and the status is FAILED. */
  readonly refusal?: Refusal | null;
}

/** Every field is always written, so a reader never sees a half-filled status. */
export type ComputedStatus = Required<MessagingSessionStatus>;

function podView(pod: V1Pod | null): PodView {
  if (!pod) return 'absent';
  if (isTerminating(pod)) return 'terminating';
  if (isFinished(pod) || isCrashLooping(pod)) return 'failed';
  return isReady(pod) ? 'ready' : 'not-ready';
}

/**
 * The resource status, from the pod and the engine's last report. The operator's own view
 * decides while the engine cannot speak for itself:
 * - no pod, or a terminating one: STOPPED when the session should be stopped, else STARTING;
 * - a Failed pod, or one whose engine crash-loops: FAILED;
 * - a pod that is not ready, or has not reported yet: STARTING (an engine that reports FAILED
 *   is believed even when its pod is not ready);
 * - otherwise the engine's own status.
 * `me` follows the pairing rather than the connection: set by WORKING reports, cleared by
 * reports that ask for pairing again, and kept through STOPPED, STARTING and FAILED.
 */
export function computeStatus(input: StatusInput): ComputedStatus {
  const { pod, engine, previous } = input;
  const view = podView(pod);
  const refusal = input.refusal ?? null;
  const fromEngine = !refusal && engine !== null && (view === 'ready' || (view === 'not-ready' && engine.status === 'FAILED'));
  const status = refusal ? 'FAILED' : fromEngine ? engine.status : operatorStatus(view, input.desiredState);
  const statuses = fromEngine ? engine.statuses.slice(-RECENT_STATUSES) : appendPoint(previous?.statuses ?? [], status, input.now);
  const me = meOf(engine, previous?.me ?? null);
  const failure = failureReason(status, refusal, fromEngine ? engine : null, view, pod);
  const conditions = setConditions(
    previous?.conditions ?? [],
    sessionConditions({
      status,
      desiredState: input.desiredState,
      view,
      pod,
      engine,
      fromEngine,
      refusal,
      me,
      failure,
      previous: previous?.conditions ?? [],
    }),
    input.generation,
    input.now,
  );
  return {
    status,
    statuses: [...statuses],
    me,
    reason: failure,
    podName: pod?.metadata?.name ?? null,
    versions: versionsOf(pod, engine, previous?.versions ?? null),
    observedGeneration: input.generation,
    conditions,
  };
}

/**
 * What the session runs: the pod's image with what its engine reported. Kept while no engine
 * speaks (stopped, between pods), so the last version a session ran stays readable; a pod's
 * engine replaces it once it reports its own.
 */
function versionsOf(pod: V1Pod | null, engine: EngineReport | null, previous: ComputedStatus['versions']): ComputedStatus['versions'] {
  const image = pod?.spec?.containers[0]?.image;
  if (!engine?.versions || !image) return previous;
  return { image, library: { ...engine.versions.library }, client: engine.versions.client };
}

function operatorStatus(view: PodView, desired: DesiredState): SessionStatus {
  if (view === 'failed') return 'FAILED';
  if (view === 'absent' || view === 'terminating') return desired === 'Stopped' ? 'STOPPED' : 'STARTING';
  return 'STARTING';
}

function appendPoint(points: readonly SessionStatusPoint[], status: SessionStatus, now: Date): SessionStatusPoint[] {
  if (points.at(-1)?.status === status) return points.slice(-RECENT_STATUSES);
  return [...points, { status, timestamp: now.getTime() }].slice(-RECENT_STATUSES);
}

function meOf(engine: EngineReport | null, previous: MeInfo | null): MeInfo | null {
  if (!engine) return previous;
  if (engine.status === 'WORKING') return engine.me ?? previous;
  return UNPAIRED.has(engine.status) ? null : previous;
}

/**
 * Why a FAILED session failed, which the API shows in the session info: the operator's refusal,
 * the engine's own words, or the pod's failure. Null in every other status, so it clears itself.
 */
function failureReason(status: SessionStatus, refusal: Refusal | null, engine: EngineReport | null, view: PodView, pod: V1Pod | null): string | null {
  if (status !== 'FAILED') return null;
  if (refusal) return clip(refusal.message);
  if (engine) return engine.reason ? clip(engine.reason) : null;
  return view === 'failed' ? clip(`engine pod ${pod!.metadata?.name} failed: ${podSummary(pod!)}`) : null;
}

/**
 * Whether the written status differs from the computed one. Missing and null are the same:
 * a merge patch writes a null by removing the field.
 */
export function statusChanged(current: MessagingSessionStatus | undefined, next: ComputedStatus): boolean {
  return canonical(current) !== canonical(next);
}

function canonical(status: MessagingSessionStatus | undefined): string {
  const conditions = (status?.conditions ?? []).map((c: Condition) => [
    c.type,
    c.status,
    c.reason,
    c.message,
    c.lastTransitionTime,
    c.observedGeneration,
  ]);
  return JSON.stringify([
    status?.status ?? null,
    (status?.statuses ?? []).map((p) => [p.status, p.timestamp]),
    status?.me ? [status.me.id, status.me.pushName] : null,
    status?.reason ?? null,
    status?.podName ?? null,
    status?.versions ? [status.versions.image, status.versions.library.name, status.versions.library.version, status.versions.client] : null,
    status?.observedGeneration ?? null,
    conditions,
  ]);
}
