import type { V1Pod } from '@kubernetes/client-node';
import type { StoredMessagingSession } from '@switchboard/kube';
import { DONE, type ReconcileContext, type ReconcileResult, WAIT_FOR_POD } from './context.js';
import { deleteEnginePod } from './delete-pod.js';
import { isTerminating } from './pod-state.js';

/** Desired state Stopped: the engine pod goes away. The auth state stays, so a start needs no pairing. */
export async function ensureStopped(ctx: ReconcileContext, resource: StoredMessagingSession, pod: V1Pod | null): Promise<ReconcileResult> {
  if (!pod) return DONE;
  if (isTerminating(pod)) return WAIT_FOR_POD;
  await deleteEnginePod(ctx, resource, pod, 'the session is stopped');
  return DONE;
}
