import { inject } from 'vitest';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { MESSAGING_SESSION, resourceNameFor } from '@switchboard/protocol';
import type { ApiCall } from '@switchboard/testkit';
import { startGatewayProcess } from '../e2e/support/cluster-environment.js';
import { ADMIN_KEY, type ContractGateway, type ContractOptions } from './harness.js';

/** Creations whose answer names a session this gateway made (or took over, for the deprecated start). */
const CREATES = new Set(['/api/sessions', '/api/sessions/start']);

/**
 * Cluster mode: a gateway process in the environment the contract-cluster project's global setup
 * started once for the run (test/e2e/support/contract-cluster-setup.ts): control plane, NATS, an
 * operator process and the node agent running engine pods. `close()` deletes the sessions this
 * gateway created, so the next file starts from an empty namespace, then stops the gateway.
 * The QR period is the engine pods' (QR_RENEW_MS), so `qrRenewMs` does not apply here.
 */
export async function startGateway(options: ContractOptions): Promise<ContractGateway> {
  const gateway = await startGatewayProcess(inject('clusterEnvironment'), {
    apiKey: ADMIN_KEY,
    globalWebhook: options.globalWebhook ?? null,
    oauth: options.oauth ?? null,
    ...(options.mediaLifetimeSeconds === undefined ? {} : { mediaLifetimeSeconds: options.mediaLifetimeSeconds }),
    ...(options.defaultEngine === undefined ? {} : { defaultEngine: options.defaultEngine }),
    ...(options.wsMaxConnectionsPerKey === undefined ? {} : { wsMaxConnectionsPerKey: options.wsMaxConnectionsPerKey }),
  });
  const created = new Set<string>();
  const api: ApiCall = async (method, path, body, key) => {
    const res = await gateway.api(method, path, body, key);
    if (method === 'POST' && CREATES.has(path) && res.status === 201) created.add(res.body.name);
    return res;
  };
  return {
    url: gateway.url,
    api,
    async close() {
      try {
        const deleted = await Promise.all([...created].map((name) => gateway.api('DELETE', `/api/sessions/${name}`)));
        const failed = deleted.filter((res) => res.status !== 200);
        if (failed.length > 0) throw new Error(`deleting the sessions failed: ${failed.map((res) => JSON.stringify(res.body)).join('; ')}`);
      } finally {
        await gateway.process.stop();
      }
    },
  };
}

/**
 * What `kubectl get` shows of the environment's namespace: a session's MessagingSession, or a
 * Secret (its data decoded). Null when there is none.
 */
export async function readFromCluster(kind: 'resource' | 'secret', name: string): Promise<any> {
  const { kubeconfigPath, namespace } = inject('clusterEnvironment');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfigPath);
  try {
    if (kind === 'resource') {
      const { group, version, plural } = MESSAGING_SESSION;
      const api = kubeConfig.makeApiClient(CustomObjectsApi);
      return await api.getNamespacedCustomObject({ group, version, namespace, plural, name: resourceNameFor(name) });
    }
    const secret = await kubeConfig.makeApiClient(CoreV1Api).readNamespacedSecret({ name, namespace });
    const data = Object.fromEntries(Object.entries(secret.data ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64').toString()]));
    return { ...secret, data };
  } catch (error) {
    if ((error as { code?: number }).code === 404) return null;
    throw error;
  }
}
