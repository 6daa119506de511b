// A real API server (etcd + kube-apiserver from test/e2e/support) with the MessagingSession CRD
// applied, and helpers to drive it the way the gateway and a kubelet would. No node runs pods:
// tests set pod status through the status subresource where they need a running, ready pod.
import { fileURLToPath } from 'node:url';
import { CoreV1Api, CustomObjectsApi, KubeConfig, PatchStrategy, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import type { StoredMessagingSession } from '@switchboard/kube';
import { enginePodName, MESSAGING_SESSION } from '@switchboard/protocol';
import { type ControlPlane, start } from '../../../test/e2e/support/control-plane.js';
import type { OperatorConfig } from '../../src/config.js';
import { settings } from '../fixtures.js';

const CRD_PATH = fileURLToPath(new URL('../../../crds/messagingsession.yaml', import.meta.url));
const { group, version, plural } = MESSAGING_SESSION;
const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export class TestCluster {
  readonly kubeConfig = new KubeConfig();
  readonly core: CoreV1Api;
  readonly custom: CustomObjectsApi;
  private namespaces = 0;

  private constructor(readonly cp: ControlPlane) {
    this.kubeConfig.loadFromFile(cp.kubeconfigPath);
    this.core = this.kubeConfig.makeApiClient(CoreV1Api);
    this.custom = this.kubeConfig.makeApiClient(CustomObjectsApi);
  }

  /**
   * Starts the control plane and applies the CRD, as generated (or the one at `crdPath`), waiting
   * until it is Established.
   */
  static async start(crdPath = CRD_PATH): Promise<TestCluster> {
    const cp = await start();
    const cluster = new TestCluster(cp);
    try {
      await cluster.applyCrd(crdPath);
      return cluster;
    } catch (error) {
      await cp.stop();
      throw error;
    }
  }

  /** Applies a CRD the way docs/operations.md upgrades one, and waits until it is Established. */
  async applyCrd(crdPath = CRD_PATH): Promise<void> {
    await this.cp.kubectl(['apply', '--server-side', '--force-conflicts', '-f', crdPath]);
    await this.cp.kubectl(['wait', '--for=condition=Established', '--timeout=60s', `crd/${plural}.${group}`]);
  }

  async stop(): Promise<void> {
    await this.cp.stop();
  }

  /** A fresh namespace per test: its own sessions, pods, events and lease. */
  async namespace(prefix: string): Promise<string> {
    const name = `${prefix}-${++this.namespaces}`;
    await this.cp.ensureNamespace(name);
    return name;
  }

  /** A KubeConfig whose API server is `server` (a proxy in front of the real one). */
  kubeConfigVia(server: string): KubeConfig {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(this.cp.kubeconfigPath);
    const cluster = kubeConfig.getCurrentCluster()!;
    kubeConfig.clusters = kubeConfig.clusters.map((c) => (c.name === cluster.name ? { ...c, server } : c));
    return kubeConfig;
  }

  operatorConfig(namespace: string, natsUrl: string, overrides: Partial<OperatorConfig> = {}): OperatorConfig {
    return {
      kubeConfig: this.kubeConfig,
      namespace,
      natsUrl,
      natsReplicas: 1,
      pods: { ...settings, natsUrl },
      identity: 'operator-a',
      leaseName: 'switchboard-operator',
      workers: 2,
      logLevel: 'silent',
      // Several operators run in one test process: each HTTP endpoint on a free port.
      httpPort: 0,
      rollout: { canary: { count: 1 }, maxUnavailable: { percent: 10 }, workingTimeoutMs: 300_000 },
      ...overrides,
    };
  }

  /**
   * Runs `stored` while the CRD's `spec.engine` enum also has `engines`, as a CRD of an earlier
   * or other build did, then puts the generated CRD back: what `stored` creates is a resource an
   * upgrade left in etcd.
   */
  async withEarlierEngineEnum<T>(engines: readonly string[], stored: () => Promise<T>): Promise<T> {
    const path = '/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/engine/enum/-';
    const patch = JSON.stringify(engines.map((engine) => ({ op: 'add', path, value: engine })));
    await this.cp.kubectl(['patch', 'crd', `${plural}.${group}`, '--type=json', '-p', patch]);
    try {
      return await stored();
    } finally {
      await this.applyCrd();
    }
  }

  async createSession(
    namespace: string,
    name: string,
    spec: Record<string, unknown> = {},
    annotations: Record<string, string> = {},
  ): Promise<StoredMessagingSession> {
    return this.custom.createNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      body: {
        apiVersion: `${group}/${version}`,
        kind: MESSAGING_SESSION.kind,
        metadata: { name, annotations },
        spec: { engine: 'SANDBOX', ...spec },
      },
    });
  }

  async session(namespace: string, name: string): Promise<StoredMessagingSession | null> {
    try {
      return await this.custom.getNamespacedCustomObject({ group, version, namespace, plural, name });
    } catch (error) {
      if ((error as { code?: number }).code === 404) return null;
      throw error;
    }
  }

  async patchSession(namespace: string, name: string, patch: Record<string, unknown>): Promise<void> {
    await this.custom.patchNamespacedCustomObject({ group, version, namespace, plural, name, body: patch }, MERGE_PATCH);
  }

  async deleteSession(namespace: string, name: string): Promise<void> {
    await this.custom.deleteNamespacedCustomObject({ group, version, namespace, plural, name });
  }

  async enginePods(namespace: string): Promise<V1Pod[]> {
    return (await this.core.listNamespacedPod({ namespace, labelSelector: 'app.kubernetes.io/component=engine' })).items;
  }

  async pod(namespace: string, session: string): Promise<V1Pod | null> {
    try {
      return await this.core.readNamespacedPod({ namespace, name: enginePodName(session) });
    } catch (error) {
      if ((error as { code?: number }).code === 404) return null;
      throw error;
    }
  }

  /** What a kubelet reports for a running container that passes its readiness probe. */
  async markPodReady(namespace: string, session: string, ready = true): Promise<void> {
    const now = new Date().toISOString();
    await this.core.patchNamespacedPodStatus(
      {
        namespace,
        name: enginePodName(session),
        body: {
          status: {
            phase: 'Running',
            conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: now }],
          },
        },
      },
      MERGE_PATCH,
    );
  }

  async patchPod(namespace: string, session: string, patch: Record<string, unknown>): Promise<void> {
    await this.core.patchNamespacedPod({ namespace, name: enginePodName(session), body: patch }, MERGE_PATCH);
  }

  /** Events recorded on one resource, oldest first: what `kubectl describe` shows. */
  async eventsOf(namespace: string, name: string): Promise<{ reason: string; message: string; reportingInstance: string }[]> {
    const list = await this.core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` });
    return list.items.map((e) => ({ reason: e.reason ?? '', message: e.message ?? '', reportingInstance: e.reportingInstance ?? '' }));
  }
}
