import { API_VERSION, type StoredMessagingSession } from '@switchboard/kube';
import type { Logger } from 'pino';
import { MESSAGING_SESSION } from '@switchboard/protocol';
import type { KubeClient } from './kube-client.js';

export type EventReason =
  | 'PodCreated'
  | 'PodDeleted'
  | 'LoggedOut'
  | 'LogoutFailed'
  | 'AuthPurged'
  | 'StatusChanged'
  | 'InvalidSpec'
  | 'EngineNotAvailable'
  | 'SessionNameMismatch'
  | 'RolloutUpdating'
  | 'RolloutUpdated'
  | 'RolloutRolledBack';

const COMPONENT = 'switchboard-operator';

/**
 * Records core/v1 Events on a MessagingSession, so `kubectl describe msess <name>` tells what
 * the operator did and why. Best effort: an event that cannot be written is logged, never
 * allowed to fail the reconcile that reported it, and never waited for by it either: the write
 * goes out beside the reconcile's next step (its status write, the next key), so a reconcile
 * costs its own writes only. At a thousand sessions created at once, waiting for each event took
 * two of the six API round trips a new session's reconcile waited on (`make bench` part scale).
 */
export class EventRecorder {
  private sequence = 0;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly kube: KubeClient,
    private readonly identity: string,
    private readonly log: Logger,
  ) {}

  normal(resource: StoredMessagingSession, reason: EventReason, message: string): void {
    this.track(this.record(resource, 'Normal', reason, message));
  }

  warning(resource: StoredMessagingSession, reason: EventReason, message: string): void {
    this.track(this.record(resource, 'Warning', reason, message));
  }

  /** Resolves once every event recorded so far is written (or has failed and been logged). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private track(write: Promise<void>): void {
    this.pending.add(write);
    void write.finally(() => this.pending.delete(write));
  }

  private async record(resource: StoredMessagingSession, type: 'Normal' | 'Warning', reason: EventReason, message: string): Promise<void> {
    const now = new Date();
    const { name, namespace, uid, resourceVersion } = resource.metadata;
    // client-go names events `<object>.<unix nanos in hex>`; the sequence keeps them unique.
    const nanos = BigInt(now.getTime()) * 1_000_000n + BigInt(this.sequence++ % 1_000_000);
    try {
      await this.kube.createEvent({
        metadata: { name: `${name}.${nanos.toString(16)}`, namespace },
        involvedObject: { apiVersion: API_VERSION, kind: MESSAGING_SESSION.kind, name, namespace, uid, resourceVersion },
        type,
        reason,
        message,
        count: 1,
        firstTimestamp: now,
        lastTimestamp: now,
        source: { component: COMPONENT },
        reportingComponent: `${MESSAGING_SESSION.group}/operator`,
        reportingInstance: this.identity,
      });
    } catch (error) {
      this.log.warn({ err: error, resource: name, reason }, 'could not record a Kubernetes event');
    }
  }
}
