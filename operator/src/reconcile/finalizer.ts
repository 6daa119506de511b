import type { V1Pod } from '@kubernetes/client-node';
import { dropSessionStores, logoutOnDelete, purgeSessionAuth, type StoredMessagingSession } from '@switchboard/kube';
import { LOGOUT_FINALIZER } from '@switchboard/protocol';
import { sendHostCommand } from '../engine-commands.js';
import { DONE, type ReconcileContext, type ReconcileResult, WAIT_FOR_POD } from './context.js';
import { deleteEnginePod } from './delete-pod.js';
import { ownSessionOf } from './own-session.js';
import { isReady, isTerminating } from './pod-state.js';

/** The engine unpairs over the network; a slow messaging service gets this long. */
const LOGOUT_TIMEOUT_MS = 10_000;

export function hasFinalizer(resource: StoredMessagingSession): boolean {
  return resource.metadata.finalizers?.includes(LOGOUT_FINALIZER) === true;
}

/** Every resource carries the finalizer, so its deletion waits for the pod (and the logout). */
export async function ensureFinalizer(ctx: ReconcileContext, resource: StoredMessagingSession): Promise<StoredMessagingSession> {
  if (hasFinalizer(resource)) return resource;
  return ctx.kube.addFinalizer(resource);
}

/**
 * A resource being deleted. With the logout annotation, a running, ready engine unpairs first
 * (`host.logout`); then, in every case, the pod is deleted and awaited, the session's auth
 * state is purged (logout only: a plain delete keeps the pairing, as stop does), its own media
 * and command buckets are deleted (the gateway drops them too; this covers a delete no gateway
 * saw), and our finalizer is removed, which lets the API server delete the resource. A resource
 * whose `spec.session` is another resource's session (made before the CRD refused it) loses its
 * pod, if one was made for it, and nothing else: the session it names is not its own to drop.
 */
export async function finalize(ctx: ReconcileContext, resource: StoredMessagingSession, pod: V1Pod | null): Promise<ReconcileResult> {
  if (!hasFinalizer(resource)) return DONE;
  const session = ownSessionOf(resource);
  const logout = session !== null && logoutOnDelete(resource);
  if (pod && !isTerminating(pod)) {
    if (session !== null && logout && isReady(pod)) await logOut(ctx, resource, session);
    await deleteEnginePod(ctx, resource, pod, 'the session is being deleted');
    return WAIT_FOR_POD;
  }
  if (pod) return WAIT_FOR_POD;
  if (session === null) {
    await ctx.kube.removeFinalizer(resource);
    ctx.log.info({ resource: resource.metadata.name }, "finalized a resource that claimed another session's name; nothing of that session dropped");
    return DONE;
  }
  if (logout) {
    const purged = await purgeSessionAuth(ctx.nc, session);
    ctx.events.normal(resource, 'AuthPurged', `Removed the session's auth state (${purged} entries)`);
  }
  await dropSessionStores(ctx.nc, session);
  await ctx.kube.removeFinalizer(resource);
  ctx.engines.forget(session);
  ctx.log.info({ resource: resource.metadata.name, logout }, 'finalized deleted session');
  return DONE;
}

/**
 * Asks the engine to unpair and waits for its answer. A failure does not block the deletion:
 * the auth state is purged next, so the account cannot connect again from here; the phone may
 * still list the device until it notices, which the Warning event says.
 */
async function logOut(ctx: ReconcileContext, resource: StoredMessagingSession, session: string): Promise<void> {
  try {
    await sendHostCommand(ctx.nc, session, { op: 'host.logout' }, LOGOUT_TIMEOUT_MS);
    ctx.events.normal(resource, 'LoggedOut', `Session '${session}' logged out of its account`);
  } catch (error) {
    ctx.log.warn({ resource: resource.metadata.name, err: error }, 'logout before delete failed');
    ctx.events.warning(resource, 'LogoutFailed', `${(error as Error).message}; deleting without unpairing the device`);
  }
}
