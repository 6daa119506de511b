import type { KubeConfig, V1Secret } from '@kubernetes/client-node';
import { KubeClient } from '../kube-client.js';
import { createNatsAuth, NATS_AUTH_SECRET_KEYS, type NatsAuth } from './nats-auth.js';

/**
 * The release's NATS authentication, kept in one Secret: read it, or make it the first time
 * (Helm cannot make nkeys or sign JWTs, so the operator does, before it connects; the bundled
 * nats-server mounts the Secret's `auth.conf` and starts once it exists). A Secret that exists
 * is never replaced: every credential minted from it stays valid. Two replicas starting at once
 * both try to create it, and both then use the one stored.
 */
export async function loadOrCreateNatsAuth(kube: Pick<KubeClient, 'readSecret' | 'createSecret'>, name: string): Promise<NatsAuth> {
  const existing = await kube.readSecret(name);
  if (existing) return fromSecret(existing, name);
  const made = await createNatsAuth();
  const stringData = Object.fromEntries(Object.entries(NATS_AUTH_SECRET_KEYS).map(([field, key]) => [key, made[field as keyof NatsAuth]]));
  const created = await kube.createSecret({
    metadata: { name, labels: { 'app.kubernetes.io/name': 'switchboard', 'app.kubernetes.io/component': 'nats-auth' } },
    type: 'Opaque',
    stringData,
  });
  if (created) return made;
  const winner = await kube.readSecret(name);
  if (!winner) throw new Error(`NATS auth Secret ${name} was created by someone else and is gone again`);
  return fromSecret(winner, name);
}

/** The same, for whoever holds a kubeconfig rather than the operator's client (the e2e suite). */
export function loadOrCreateNatsAuthIn(kubeConfig: KubeConfig, namespace: string, name: string): Promise<NatsAuth> {
  return loadOrCreateNatsAuth(new KubeClient(kubeConfig, namespace), name);
}

function fromSecret(secret: V1Secret, name: string): NatsAuth {
  const data = secret.data ?? {};
  const read = (key: string) => {
    const value = data[key];
    if (value === undefined) throw new Error(`NATS auth Secret ${name} has no key ${key} (it is not one the operator made)`);
    return Buffer.from(value, 'base64').toString('utf8');
  };
  return {
    serverConfig: read(NATS_AUTH_SECRET_KEYS.serverConfig),
    account: read(NATS_AUTH_SECRET_KEYS.account),
    signingKeySeed: read(NATS_AUTH_SECRET_KEYS.signingKeySeed),
    gatewayCredentials: read(NATS_AUTH_SECRET_KEYS.gatewayCredentials),
    operatorCredentials: read(NATS_AUTH_SECRET_KEYS.operatorCredentials),
    adminCredentials: read(NATS_AUTH_SECRET_KEYS.adminCredentials),
  };
}
