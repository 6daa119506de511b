import { API_VERSION, type StoredMessagingSession } from '@switchboard/kube';
import type { Logger } from 'pino';
import { MESSAGING_SESSION } from '@switchboard/protocol';
import type { KubeClient } from './kube-client.js';

export type EventReason =
  'PodCreated' | 'PodDeleted' | 'LoggedOut' | 'LogoutFailed' | 'AuthPurged' | 'StatusChanged' | 'InvalidSpec' | 'EngineNotAvailable';

const COMPONENT = 'switchboard-operator';

/**
 * Records core/v1 Events on a MessagingSession, so `kubectl describe msess <name>` tells what
 * the operator did and why. Best effort: an event that cannot be written is logged, never
 * allowed to fail the reconcile that reported it.
 */
export class EventRecorder {
  private sequence = 0;

  constructor(
    private readonly kube: KubeClient,
    private readonly identity: string,
    private readonly log: Logger,
  ) {}

  async normal(resource: StoredMessagingSession, reason: EventReason, message: string): Promise<void> {
    await this.record(resource, 'Normal', reason, message);
  }

  async warning(resource: StoredMessagingSession, reason: EventReason, message: string): Promise<void> {
    await this.record(resource, 'Warning', reason, message);
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
