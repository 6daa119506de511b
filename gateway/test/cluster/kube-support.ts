import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { CommandServer, DEFAULT_SANDBOX_OPTIONS, EngineHost, EventPublisher, NatsAuthStateStore, SandboxEngine } from '@switchboard/engine-pod';
import { MESSAGING_SESSION, resourceNameFor } from '@switchboard/protocol';
import { type ApiCall, apiClient } from '@switchboard/testkit';
import type { NatsConnection } from 'nats';
import { type Logger, pino } from 'pino';
import type { ControlPlane } from '../../../test/e2e/support/control-plane.js';
import { type ClusterGateway, createClusterGateway } from '../../src/cluster/create-cluster-gateway.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const ADMIN_KEY = 'cluster-test-admin-key-0123456789';
const silent = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/** etcd and kube-apiserver as processes, with the MessagingSession CRD applied and established. */
export async function startControlPlane(namespace: string): Promise<ControlPlane> {
  const { start } = await import('../../../test/e2e/support/control-plane.js');
  const cp = await start();
  await cp.kubectl(['apply', '-f', join(repoRoot, 'crds/messagingsession.yaml')]);
  await cp.kubectl(['wait', '--for=condition=Established', '--timeout=60s', `crd/${MESSAGING_SESSION.plural}.${MESSAGING_SESSION.group}`]);
  await cp.ensureNamespace(namespace);
  return cp;
}

export interface TestClusterGateway {
  readonly url: string;
  readonly api: ApiCall;
  readonly gateway: ClusterGateway;
  close(): Promise<void>;
}

/** A gateway in cluster mode on a loopback port, against the control plane and a NATS server. */
export async function startClusterGateway(
  cp: ControlPlane,
  namespace: string,
  natsUrl: string,
  logger: Logger = silent,
): Promise<TestClusterGateway> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(cp.kubeconfigPath);
  const gateway = await createClusterGateway({
    port: 0,
    host: '127.0.0.1',
    apiKey: ADMIN_KEY,
    defaultEngine: 'SANDBOX',
    logLevel: 'silent',
    logger,
    globalWebhook: null,
    namespace,
    natsUrl,
    kubeConfig,
    webhookTimeoutMs: 2_000,
    settleTimeoutMs: 5_000,
  });
  const url = await gateway.listen();
  return { url, api: apiClient(url, ADMIN_KEY), gateway, close: () => gateway.close() };
}

/** The resource behind a session, straight from the API server, as the operator would see it. */
export function resourceClient(cp: ControlPlane, namespace: string) {
  const { group, version, plural } = MESSAGING_SESSION;
  const path = (session: string) => `/apis/${group}/${version}/namespaces/${namespace}/${plural}/${resourceNameFor(session)}`;
  const patch = async (session: string, body: unknown, contentType: string, subresource = '') => {
    const res = await cp.fetch(path(session) + subresource, {
      method: 'PATCH',
      body: JSON.stringify(body),
      headers: { 'content-type': contentType },
    });
    if (!res.ok) throw new Error(`patch ${session}${subresource}: ${res.status} ${await res.text()}`);
  };
  return {
    // Tests read arbitrary resource JSON.
    async read(session: string): Promise<any> {
      const res = await cp.fetch(path(session));
      return res.status === 404 ? null : res.json();
    },
    mergePatch: (session: string, body: unknown) => patch(session, body, 'application/merge-patch+json'),
    jsonPatch: (session: string, body: unknown) => patch(session, body, 'application/json-patch+json'),
    /** A `kubectl delete`: straight to the API server, past any gateway. */
    async remove(session: string): Promise<void> {
      const res = await cp.fetch(path(session), { method: 'DELETE' });
      if (!res.ok) throw new Error(`delete ${session}: ${res.status} ${await res.text()}`);
    },
    /** What the operator does: writes the status subresource. */
    reportStatus: (session: string, status: unknown) => patch(session, { status }, 'application/merge-patch+json', '/status'),
  };
}

/**
 * The engine pod of a session, in process: the real engine-pod runtime (EngineHost with the
 * SANDBOX engine, auth state in NATS KV, events to JetStream, commands on `sb.cmd.<session>`).
 */
export async function startEnginePod(nc: NatsConnection, session: string): Promise<{ host: EngineHost; stop(): Promise<void> }> {
  const publisher = await EventPublisher.open(nc, { log: silent });
  const host = new EngineHost({
    session,
    engine: 'SANDBOX',
    factory: (context) => new SandboxEngine(context, { ...DEFAULT_SANDBOX_OPTIONS, qrRenewMs: 60_000 }),
    authState: await NatsAuthStateStore.open(nc, session),
    metadata: {},
    environment: { tier: 'CORE', version: 'test' },
    publish: (event) => publisher.publish(event),
    log: silent,
  });
  const commands = new CommandServer({ nc, session, host, log: silent, events: publisher });
  commands.start();
  await host.start();
  return {
    host,
    async stop() {
      await commands.close();
      await host.stop();
      await publisher.flush(2_000);
      publisher.close();
    },
  };
}
