import type { V1Pod } from '@kubernetes/client-node';
import type { StoredMessagingSession } from '@switchboard/kube';
import type { ReconcileContext } from './context.js';
import { ownSessionOf } from './own-session.js';

/** Deletes the session's engine pod (that very pod: its uid) and says why, on the resource. */
export async function deleteEnginePod(ctx: ReconcileContext, resource: StoredMessagingSession, pod: V1Pod, reason: string): Promise<void> {
  const name = pod.metadata!.name!;
  await ctx.kube.deletePod(name, pod.metadata!.uid!);
  ctx.expectations.expectDelete(resource.metadata.name, pod.metadata!.uid!);
  // What the old engine said no longer describes the session.
  const session = ownSessionOf(resource);
  if (session !== null) ctx.engines.forget(session);
  ctx.log.info({ resource: resource.metadata.name, pod: name, reason }, 'deleted engine pod');
  ctx.events.normal(resource, 'PodDeleted', `Deleted engine pod ${name}: ${reason}`);
}
