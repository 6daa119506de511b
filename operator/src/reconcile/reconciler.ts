import type { V1Pod } from '@kubernetes/client-node';
import { enginePodName, MESSAGING_SESSION, type MessagingSessionSpec } from '@switchboard/protocol';
import type { ResourceInformer } from '../resource-informer.js';
import { isDeleting, type MessagingSessionObject, sessionNameOf, specOf } from '../messaging-session.js';
import { DONE, type ReconcileContext, type ReconcileResult, WAIT_FOR_POD } from './context.js';
import { ensureFinalizer, finalize } from './finalizer.js';
import { ensureRunning } from './running.js';
import { computeStatus, statusChanged } from './status.js';
import { ensureStopped } from './stopped.js';

export interface ReconcilerCaches {
  readonly sessions: Pick<ResourceInformer<MessagingSessionObject>, 'get'>;
  readonly pods: Pick<ResourceInformer<V1Pod>, 'get'>;
}

/** While the pod cache lags behind our own last write, look again shortly. */
const CACHE_LAG: ReconcileResult = { requeueAfterMs: 1_000 };

/**
 * Reconciles one MessagingSession, by resource name. Level-triggered: it reads the resource and
 * its pod from the caches every time and does the next step towards the desired state; the
 * event that enqueued the key is never looked at.
 */
export class SessionReconciler {
  constructor(
    private readonly ctx: ReconcileContext,
    private readonly caches: ReconcilerCaches,
  ) {}

  async reconcile(key: string): Promise<ReconcileResult> {
    const pod = this.caches.pods.get(enginePodName(key)) ?? null;
    let resource = this.caches.sessions.get(key);
    if (!resource) {
      this.ctx.engines.forgetResource(key);
      return this.deleteOrphan(key, pod);
    }
    if (this.ctx.expectations.awaiting(key, pod)) return CACHE_LAG;
    if (!pod) this.ctx.engines.forget(sessionNameOf(resource));
    if (pod && !controlledByASession(pod)) {
      // Not made by this operator: neither replace nor delete it, and never start a second one.
      this.ctx.log.warn({ resource: key, pod: pod.metadata?.name }, 'a pod not made for this session holds its engine pod name');
      return WAIT_FOR_POD;
    }
    if (isDeleting(resource)) return finalize(this.ctx, resource, pod);

    const spec = specOf(resource);
    resource = await ensureFinalizer(this.ctx, resource);
    const result =
      spec.desiredState === 'Running'
        ? await ensureRunning(this.ctx, resource, pod)
        : await ensureStopped(this.ctx, resource, pod);
    await this.writeStatus(resource, spec, pod);
    return result;
  }

  /** Writes the status when it changed, and records a status change as an Event. */
  private async writeStatus(resource: MessagingSessionObject, spec: MessagingSessionSpec, pod: V1Pod | null): Promise<void> {
    const next = computeStatus({
      desiredState: spec.desiredState,
      generation: resource.metadata.generation ?? 0,
      pod,
      engine: this.ctx.engines.get(sessionNameOf(resource)),
      previous: resource.status,
      now: new Date(),
    });
    if (!statusChanged(resource.status, next)) return;
    await this.ctx.kube.patchStatus(resource, next);
    const before = resource.status?.status;
    if (before !== next.status) {
      await this.ctx.events.normal(resource, 'StatusChanged', `Status ${before ?? '(none)'} → ${next.status}`);
    }
  }

  /**
   * A pod whose resource is gone (deleted without our finalizer, e.g. while no operator ran).
   * The garbage collector would remove it through its owner reference; not waiting for it
   * keeps the account from staying connected for a session that no longer exists.
   */
  private async deleteOrphan(key: string, pod: V1Pod | null): Promise<ReconcileResult> {
    if (!pod || !controlledByASession(pod) || pod.metadata?.deletionTimestamp) return DONE;
    await this.ctx.kube.deletePod(pod.metadata!.name!, pod.metadata!.uid!);
    this.ctx.log.info({ resource: key, pod: pod.metadata?.name }, 'deleted the engine pod of a MessagingSession that no longer exists');
    return DONE;
  }
}

function controlledByASession(pod: V1Pod): boolean {
  return pod.metadata?.ownerReferences?.some((ref) => ref.controller && ref.kind === MESSAGING_SESSION.kind) === true;
}
