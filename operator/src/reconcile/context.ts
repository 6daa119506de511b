import type { NatsConnection } from 'nats';
import type { Logger } from 'pino';
import type { EnginePodSettings } from '../config.js';
import type { EventRecorder } from '../event-recorder.js';
import type { KubeClient } from '../kube-client.js';
import type { UserSigner } from '../nats-auth/nats-auth.js';
import type { RolloutController } from '../rollout/rollout-controller.js';
import type { EngineStatusStore } from '../status-events.js';
import type { PodExpectations } from './pod-expectations.js';

/** What every reconcile step works with. */
export interface ReconcileContext {
  readonly kube: KubeClient;
  readonly nc: NatsConnection;
  readonly engines: EngineStatusStore;
  readonly events: EventRecorder;
  readonly expectations: PodExpectations;
  readonly pods: EnginePodSettings;
  /** Signs engine pods' NATS users, when the operator mints them (`pods.natsCredentials` per session). */
  readonly natsSigner?: UserSigner;
  readonly log: Logger;
  /** Engine version rollouts: which version a session's pod is to run. Unset: the release's, always. */
  readonly rollouts?: Pick<RolloutController, 'versionFor'>;
}

/** A step that waits for something the caches will report (or not) asks to be run again. */
export interface ReconcileResult {
  readonly requeueAfterMs?: number;
}

export const DONE: ReconcileResult = {};
/** A pod terminates within its grace period (30 s); its deletion event usually comes first. */
export const WAIT_FOR_POD: ReconcileResult = { requeueAfterMs: 5_000 };
