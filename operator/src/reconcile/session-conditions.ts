import type { V1Pod } from '@kubernetes/client-node';
import { type Condition, CONDITION_TYPES, type DesiredState, isSilenceReason, type MeInfo, type SessionStatus } from '@switchboard/protocol';
import type { ConditionUpdate } from './conditions.js';
import { podSummary } from './pod-state.js';
import type { EngineReport, Refusal } from './status.js';

/** The engine pod as the status sees it. */
export type PodView = 'absent' | 'terminating' | 'failed' | 'not-ready' | 'ready';

/** Statuses that mean the account is not paired (any more). */
export const UNPAIRED: ReadonlySet<SessionStatus> = new Set(['SCAN_QR_CODE', 'PASSKEY_REQUIRED', 'PASSKEY_CONFIRMATION_REQUIRED']);

/** Statuses in which the engine talks to the messaging service: paired or being paired. */
const CONNECTED: ReadonlySet<SessionStatus> = new Set(['WORKING', ...UNPAIRED]);

/**
 * Waiting reasons of a container that will not start by waiting longer: someone has to fix the
 * image or the pod's configuration (a Secret it names, say).
 */
const CANNOT_START: ReadonlySet<string> = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CreateContainerError',
]);

/** What `computeStatus` found, from which every condition is decided. */
export interface ConditionFacts {
  /** The session status written. */
  readonly status: SessionStatus;
  readonly desiredState: DesiredState;
  readonly view: PodView;
  readonly pod: V1Pod | null;
  /** The engine's last report, while its pod runs. */
  readonly engine: EngineReport | null;
  /** Whether `status` is the engine's own (its pod is ready, or it reported FAILED). */
  readonly fromEngine: boolean;
  readonly refusal: Refusal | null;
  /** The paired account as the status shows it. */
  readonly me: MeInfo | null;
  /** Why a FAILED session failed (`status.reason`), null otherwise. */
  readonly failure: string | null;
  readonly previous: readonly Condition[];
}

/**
 * The conditions of a MessagingSession, in the order they were introduced (docs/operations.md,
 * "Conditions", says what each means): Ready and PodReady, then Paired, EngineConnected and
 * Degraded. Ready is True exactly when EngineConnected and Paired are (the session is WORKING).
 */
export function sessionConditions(facts: ConditionFacts): ConditionUpdate[] {
  return [ready(facts), podReady(facts), paired(facts), engineConnected(facts), degraded(facts)];
}

/** A FAILED session's reason becomes the message: `kubectl describe` tells why. */
function ready({ status, refusal, failure }: ConditionFacts): ConditionUpdate {
  const type = CONDITION_TYPES.ready;
  if (refusal) return { type, status: 'False', reason: refusal.reason, message: refusal.message };
  if (status === 'WORKING') return { type, status: 'True', reason: 'Working', message: 'The session is connected to its account' };
  const message = status === 'FAILED' && failure ? `The session is FAILED: ${failure}` : `The session is ${status}`;
  return { type, status: 'False', reason: pascalCase(status), message };
}

function podReady({ view, pod, desiredState }: ConditionFacts): ConditionUpdate {
  const type = CONDITION_TYPES.podReady;
  const name = pod?.metadata?.name;
  switch (view) {
    case 'absent':
      return desiredState === 'Stopped'
        ? { type, status: 'False', reason: 'Stopped', message: 'The session is stopped: it has no engine pod' }
        : { type, status: 'False', reason: 'PodMissing', message: 'The engine pod is being created' };
    case 'terminating':
      return { type, status: 'False', reason: 'PodTerminating', message: `Engine pod ${name} is terminating` };
    case 'failed':
      return { type, status: 'False', reason: 'PodFailed', message: `Engine pod ${name} failed: ${podSummary(pod!)}` };
    case 'not-ready':
      return { type, status: 'False', reason: 'PodNotReady', message: `Engine pod ${name} is not ready: ${podSummary(pod!)}` };
    case 'ready':
      return { type, status: 'True', reason: 'PodReady', message: `Engine pod ${name} is ready` };
  }
}

/**
 * Paired follows `status.me`: True from the engine's first WORKING report, False when an engine
 * asks for pairing (a QR code, a passkey), and it stays so while no engine runs to say otherwise.
 * Unknown until some engine has said either.
 */
function paired({ me, engine, previous }: ConditionFacts): ConditionUpdate {
  const type = CONDITION_TYPES.paired;
  if (me || engine?.status === 'WORKING') {
    return { type, status: 'True', reason: 'AccountPaired', message: me ? `Paired with account ${me.id}` : 'The engine reports a paired account' };
  }
  if (engine && UNPAIRED.has(engine.status)) {
    return { type, status: 'False', reason: pascalCase(engine.status), message: `The account is not paired: the session is ${engine.status}` };
  }
  const before = previous.find((c) => c.type === type);
  if (before?.status === 'False') return { type, status: 'False', reason: before.reason, message: before.message };
  return { type, status: 'Unknown', reason: 'NotReported', message: 'No engine has reported whether the account is paired' };
}

/** Whether the session's engine runs and talks to the messaging service (paired or not yet). */
function engineConnected(facts: ConditionFacts): ConditionUpdate {
  const { refusal, view, pod, engine, fromEngine } = facts;
  const type = CONDITION_TYPES.engineConnected;
  const name = pod?.metadata?.name;
  if (refusal) return { type, status: 'False', reason: refusal.reason, message: 'No engine runs: the spec is refused (see Ready)' };
  if (fromEngine && engine) {
    // A connection gone silent (issue 31 §3): False while the engine reconnects, and once it is
    // WORKING again, True with a reason that keeps the silence readable until the pod is replaced.
    if (engine.status === 'STARTING' && isSilenceReason(engine.reason)) {
      return { type, status: 'False', reason: 'Silent', message: `Engine pod ${name} found its connection silent and reconnects (${engine.reason})` };
    }
    if (engine.status === 'WORKING' && engine.silence) {
      const at = new Date(engine.silence.at).toISOString();
      return {
        type,
        status: 'True',
        reason: 'ReconnectedAfterSilence',
        message: `Engine pod ${name} is connected (WORKING) again; its connection went silent at ${at} and was reconnected`,
      };
    }
    if (CONNECTED.has(engine.status)) {
      return { type, status: 'True', reason: 'Connected', message: `Engine pod ${name} is connected to the messaging service (${engine.status})` };
    }
    if (engine.status === 'FAILED')
      return { type, status: 'False', reason: 'EngineFailed', message: `The engine gave up: ${engine.reason ?? 'it gave no reason'}` };
    return { type, status: 'False', reason: 'Connecting', message: `Engine pod ${name} is connecting (${engine.status})` };
  }
  if (view === 'ready')
    return { type, status: 'Unknown', reason: 'NotReported', message: `Engine pod ${name} is ready; its engine has not reported yet` };
  // Until its pod is ready no engine talks to anyone: the pod's reason is the reason.
  return { ...podReady(facts), type };
}

/**
 * Degraded is True while the session cannot get to its desired state by itself: someone must
 * change the spec, the image or the pod's configuration, or start the session again. Waiting to
 * be paired, starting and stopping are not degraded.
 */
function degraded({ refusal, status, fromEngine, view, pod, failure }: ConditionFacts): ConditionUpdate {
  const type = CONDITION_TYPES.degraded;
  if (refusal) return { type, status: 'True', reason: refusal.reason, message: refusal.message };
  if (status === 'FAILED') {
    return { type, status: 'True', reason: fromEngine ? 'EngineFailed' : 'PodFailed', message: failure ?? 'The session is FAILED' };
  }
  const waiting = pod?.status?.containerStatuses?.find((c) => c.state?.waiting?.reason)?.state?.waiting?.reason;
  if (pod && view === 'not-ready' && waiting && CANNOT_START.has(waiting)) {
    return { type, status: 'True', reason: 'PodCannotStart', message: `Engine pod ${pod.metadata?.name} cannot start: ${podSummary(pod)}` };
  }
  return { type, status: 'False', reason: 'AsExpected', message: 'Nothing needs attention' };
}

export function pascalCase(status: SessionStatus): string {
  return status
    .toLowerCase()
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}
