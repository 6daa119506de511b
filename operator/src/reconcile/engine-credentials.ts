import { API_VERSION, sessionNameOf, type StoredMessagingSession } from '@switchboard/kube';
import { MESSAGING_SESSION } from '@switchboard/protocol';
import { mintEngineCredentials } from '../nats-auth/nats-auth.js';
import type { ReconcileContext } from './context.js';
import { ENGINE_CREDENTIALS_KEY, engineCredentialsSecretName, engineLabels } from './engine-pod-spec.js';

/**
 * Before a session's engine pod is created: the Secret with its NATS credentials, a user whose
 * permissions name this session's subjects and keys only (nats-auth/permissions.ts). One per
 * resource, owned by it, so it goes when the resource does. One that exists already (an earlier
 * pod of the resource) is kept: the operator may create Secrets, never read or change them.
 */
export async function ensureEngineCredentials(ctx: ReconcileContext, resource: StoredMessagingSession): Promise<void> {
  if (ctx.pods.natsCredentials?.kind !== 'per-session' || !ctx.natsSigner) return;
  const { name, uid } = resource.metadata;
  await ctx.kube.createSecret({
    metadata: {
      name: engineCredentialsSecretName(resource),
      labels: engineLabels(name),
      ownerReferences: [{ apiVersion: API_VERSION, kind: MESSAGING_SESSION.kind, name, uid, blockOwnerDeletion: true }],
    },
    type: 'Opaque',
    stringData: { [ENGINE_CREDENTIALS_KEY]: await mintEngineCredentials(ctx.natsSigner, sessionNameOf(resource)) },
  });
}
