import { type MessagingSessionObject, API_VERSION, sessionNameOf } from '../messaging-session.js';
import { mintEngineCredentials } from '../nats-auth/nats-auth.js';
import type { ReconcileContext } from './context.js';
import { ENGINE_CREDENTIALS_KEY, engineCredentialsSecretName, engineLabels } from './engine-pod-spec.js';
import { MESSAGING_SESSION } from '@switchboard/protocol';

/**
 * Before a session's engine pod is created: the Secret with its NATS credentials, a user whose
 * permissions name this session's subjects and keys only (nats-auth/permissions.ts). One per
 * session, owned by the resource, so it goes when the resource does. A Secret left by an earlier
 * resource of the same name is replaced: the garbage collector is about to delete it.
 */
export async function ensureEngineCredentials(ctx: ReconcileContext, resource: MessagingSessionObject): Promise<void> {
  if (ctx.pods.natsCredentials?.kind !== 'per-session' || !ctx.natsSigner) return;
  const name = engineCredentialsSecretName(resource.metadata.name);
  const existing = await ctx.kube.readSecret(name);
  if (existing && existing.metadata?.ownerReferences?.some((owner) => owner.uid === resource.metadata.uid)) return;
  if (existing) await ctx.kube.deleteSecret(name, existing.metadata!.uid!);
  const credentials = await mintEngineCredentials(ctx.natsSigner, sessionNameOf(resource));
  await ctx.kube.createSecret({
    metadata: {
      name,
      labels: engineLabels(resource.metadata.name),
      ownerReferences: [{ apiVersion: API_VERSION, kind: MESSAGING_SESSION.kind, name: resource.metadata.name, uid: resource.metadata.uid, blockOwnerDeletion: true }],
    },
    type: 'Opaque',
    stringData: { [ENGINE_CREDENTIALS_KEY]: credentials },
  });
}
