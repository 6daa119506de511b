import type { V1Pod } from '@kubernetes/client-node';
import { ensureSessionStores, sessionNameOf, specOf, type StoredMessagingSession } from '@switchboard/kube';
import { configuredVersion, type EngineVersion, podVersion, settingsForVersion } from '../rollout/engine-version.js';
import { DONE, type ReconcileContext, type ReconcileResult, WAIT_FOR_POD } from './context.js';
import { deleteEnginePod } from './delete-pod.js';
import { ensureEngineCredentials } from './engine-credentials.js';
import { buildEnginePod, replacementReason } from './engine-pod-spec.js';
import { isControlledBy, isFinished, isReady, isTerminating } from './pod-state.js';

/** How long a `host.status` question waits; a pod that does not answer is asked again later. */
const STATUS_QUESTION_TIMEOUT_MS = 3_000;
const ASK_AGAIN: ReconcileResult = { requeueAfterMs: 5_000 };

/**
 * Desired state Running: exactly one engine pod, the one the resource asks for. A pod that must
 * go is deleted, and its replacement is created by a later reconcile, once the old one is gone
 * from the cache: two pods of one session would connect the same account twice.
 */
export async function ensureRunning(ctx: ReconcileContext, resource: StoredMessagingSession, pod: V1Pod | null): Promise<ReconcileResult> {
  const engine = specOf(resource).engine;
  const desired = buildEnginePod(resource, settingsForVersion(ctx.pods, engine, versionToRun(ctx, resource, pod)));
  if (!pod) {
    // The session's own media and command buckets: its pod's NATS user may use them, not make
    // them. Independent of its credentials, so both are made at once.
    await Promise.all([ensureEngineCredentials(ctx, resource), ensureSessionStores(ctx.nc, sessionNameOf(resource))]);
    await ctx.kube.createPod(desired);
    ctx.expectations.expectCreate(resource.metadata.name);
    const name = desired.metadata!.name!;
    ctx.log.info({ resource: resource.metadata.name, pod: name }, 'created engine pod');
    ctx.events.normal(resource, 'PodCreated', `Created engine pod ${name}`);
    return DONE;
  }
  if (isTerminating(pod)) return WAIT_FOR_POD;

  const reason = whyReplace(pod, desired, resource);
  if (reason) {
    await deleteEnginePod(ctx, resource, pod, reason);
    return DONE;
  }

  const session = sessionNameOf(resource);
  if (isReady(pod) && !ctx.engines.get(session)) {
    // No status event since this pod started (or since the operator did): ask for one.
    const report = await ctx.engines.ask(session, STATUS_QUESTION_TIMEOUT_MS);
    if (!report) return ASK_AGAIN;
  }
  return DONE;
}

/**
 * Which engine version the session's pod is to run: its pin; else what its engine's rollout says
 * (rollout/rollout-controller.ts); else, for a pod of its own, what that pod runs, so a changed
 * release replaces no pod until the rollout takes the session in; else (a first pod) the release's.
 */
function versionToRun(ctx: ReconcileContext, resource: StoredMessagingSession, pod: V1Pod | null): EngineVersion {
  const { engine, engineVersion } = specOf(resource);
  if (engineVersion) return engineVersion;
  if (!ctx.rollouts) return configuredVersion(engine, ctx.pods);
  const rolled = ctx.rollouts.versionFor(resource.metadata.name, engine);
  if (rolled) return rolled;
  const running = pod && isControlledBy(pod, resource.metadata.uid) ? podVersion(pod, engine) : null;
  return running ?? configuredVersion(engine, ctx.pods);
}

function whyReplace(pod: V1Pod, desired: V1Pod, resource: StoredMessagingSession): string | null {
  if (!isControlledBy(pod, resource.metadata.uid)) return 'it belongs to an earlier MessagingSession of the same name';
  if (isFinished(pod)) return `it ${pod.status?.phase === 'Failed' ? 'failed' : 'exited'}`;
  return replacementReason(pod, desired);
}
