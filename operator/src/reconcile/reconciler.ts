import type { V1Pod } from '@kubernetes/client-node';
import { isDeleting, type ResourceInformer, specOf, type StoredMessagingSession } from '@switchboard/kube';
import { type DesiredState, enginePodName, MESSAGING_SESSION } from '@switchboard/protocol';
import { DONE, type ReconcileContext, type ReconcileResult, WAIT_FOR_POD } from './context.js';
import { ensureFinalizer, finalize } from './finalizer.js';
import { findCondition } from './conditions.js';
import { deleteEnginePod } from './delete-pod.js';
import { ownSessionOf } from './own-session.js';
import { isTerminating } from './pod-state.js';
import { refusalOf } from './refusal.js';
import { ensureRunning } from './running.js';
import { computeStatus, type Refusal, statusChanged } from './status.js';
import { ensureStopped } from './stopped.js';

export interface ReconcilerCaches {
  readonly sessions: Pick<ResourceInformer<StoredMessagingSession>, 'get'>;
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
    const session = ownSessionOf(resource);
    if (!pod && session !== null) this.ctx.engines.forget(session);
    if (pod && !controlledByASession(pod)) {
      // Not made by this operator: neither replace nor delete it, and never start a second one.
      this.ctx.log.warn({ resource: key, pod: pod.metadata?.name }, 'a pod not made for this session holds its engine pod name');
      return WAIT_FOR_POD;
    }
    if (isDeleting(resource)) return finalize(this.ctx, resource, pod);

    resource = await ensureFinalizer(this.ctx, resource);
    const refusal = refusalOf(resource);
    if (refusal) return this.refuse(resource, pod, refusal);
    const spec = specOf(resource);
    const result = spec.desiredState === 'Running' ? await ensureRunning(this.ctx, resource, pod) : await ensureStopped(this.ctx, resource, pod);
    await this.writeStatus(resource, spec.desiredState, pod);
    return result;
  }

  /**
   * A resource no engine can run: no pod (one left from an earlier spec goes), status FAILED and
   * the reason in the Ready condition and a Warning event, once. Not an error to retry: it stays
   * so until the spec changes, which enqueues the resource again.
   */
  private async refuse(resource: StoredMessagingSession, pod: V1Pod | null, refusal: Refusal): Promise<ReconcileResult> {
    if (pod && !isTerminating(pod)) await deleteEnginePod(this.ctx, resource, pod, refusal.message);
    const told = findCondition(resource.status?.conditions, 'Ready');
    await this.writeStatus(resource, 'Running', pod, refusal);
    if (told?.reason !== refusal.reason || told.message !== refusal.message) {
      this.ctx.log.warn({ resource: resource.metadata.name, reason: refusal.reason }, refusal.message);
      this.ctx.events.warning(resource, refusal.reason, refusal.message);
    }
    return pod ? WAIT_FOR_POD : DONE;
  }

  /** Writes the status when it changed, and records a status change as an Event. */
  private async writeStatus(
    resource: StoredMessagingSession,
    desiredState: DesiredState,
    pod: V1Pod | null,
    refusal: Refusal | null = null,
  ): Promise<void> {
    const session = ownSessionOf(resource);
    const next = computeStatus({
      desiredState,
      generation: resource.metadata.generation ?? 0,
      pod,
      // Never another session's report: a resource claiming it gets none of its status or account.
      engine: session === null ? null : this.ctx.engines.get(session),
      previous: resource.status,
      now: new Date(),
      refusal,
    });
    if (!statusChanged(resource.status, next)) return;
    await this.ctx.kube.patchStatus(resource, next);
    const before = resource.status?.status;
    if (before !== next.status) {
      this.ctx.events.normal(resource, 'StatusChanged', `Status ${before ?? '(none)'} → ${next.status}`);
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
