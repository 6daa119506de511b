import { randomUUID } from 'node:crypto';
import { CoreV1Api, CustomObjectsApi, KubeConfig, type V1Pod, Watch } from '@kubernetes/client-node';
import { reusingConnections } from '@switchboard/kube';
import { buildEnginePod, readConfig } from '@switchboard/operator';
import { LABELS, MESSAGING_SESSION } from '@switchboard/protocol';
import { numberSetting } from './settings.js';

/**
 * What the benchmarks against a real control plane share (reconcile.ts, scale.ts): the e2e
 * suite's etcd + kube-apiserver and NATS, and watching for the pods a run makes.
 */
const TIMEOUT_MS = numberSetting('BENCH_RECONCILE_TIMEOUT_MS', 300_000);
export const ENGINE_SELECTOR = `${LABELS.component}=engine`;
const { group, version, plural, kind } = MESSAGING_SESSION;
type SessionResource = Parameters<typeof buildEnginePod>[0];

/** The part of test/e2e/support/control-plane.ts this benchmark uses. */
export interface ControlPlane {
  readonly kubeconfigPath: string;
  kubectl(args: string[], stdin?: string): Promise<string>;
  ensureNamespace(name: string): Promise<void>;
  stop(): Promise<void>;
}
export interface Nats {
  readonly url: string;
  stop(): Promise<void>;
}
interface ControlPlaneModule {
  start: () => Promise<ControlPlane>;
  startNats: () => Promise<Nats>;
}

/**
 * The e2e suite's control plane, imported from its TypeScript source by relative path (Node runs
 * it with type stripping). It lives outside this package's rootDir, so tsc does not compile it
 * here; the interfaces above are what this file relies on.
 */
const CONTROL_PLANE_SOURCE = new URL('../../test/e2e/support/control-plane.ts', import.meta.url);
const CRD = new URL('../../crds/messagingsession.yaml', import.meta.url);

export const names = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `bench-${prefix}-${String(i).padStart(4, '0')}`);

/**
 * A MessagingSession as the API server would hand it to the operator, for building the
 * baseline's pods; its uid is made up, so their owner reference points at nothing (no garbage
 * collector runs here to care).
 */
export function fakeSession(name: string, namespace: string): SessionResource {
  return {
    apiVersion: `${group}/${version}`,
    kind,
    metadata: { name, namespace, uid: randomUUID(), generation: 1 },
    spec: { engine: 'SANDBOX', desiredState: 'Running', config: {}, apps: [] },
  };
}

/**
 * Watches the engine pods of a namespace from now on; `allSeen` resolves with the hrtime at
 * which the last of `expected` was added, `missing` says how many are still to come. Resolves
 * once the watch is open. The client ends a watch that is quiet for 30 s (or that a busy API
 * server is slow to answer): it is resumed from the last resourceVersion seen, so nothing is
 * missed and nothing is counted twice.
 */
export async function watchPods(
  kubeConfig: KubeConfig,
  core: CoreV1Api,
  namespace: string,
  expected: readonly string[],
): Promise<{ controller: AbortController; allSeen: Promise<bigint>; missing: () => number }> {
  const list = await core.listNamespacedPod({ namespace, labelSelector: ENGINE_SELECTOR, limit: 1 });
  const missing = new Set(expected);
  let resolveSeen!: (at: bigint) => void;
  let rejectSeen!: (error: Error) => void;
  const allSeen = new Promise<bigint>((resolve, reject) => {
    resolveSeen = resolve;
    rejectSeen = reject;
  });
  const controller = new AbortController();
  let resourceVersion = list.metadata?.resourceVersion;
  let resumes = 0;
  const watch = async (): Promise<void> => {
    const watching = await new Watch(kubeConfig).watch(
      `/api/v1/namespaces/${namespace}/pods`,
      { labelSelector: ENGINE_SELECTOR, resourceVersion, allowWatchBookmarks: false },
      (phase: string, pod: V1Pod) => {
        resourceVersion = pod.metadata?.resourceVersion ?? resourceVersion;
        if (phase !== 'ADDED' || !pod.metadata?.name || !missing.delete(pod.metadata.name)) return;
        if (missing.size === 0) resolveSeen(process.hrtime.bigint());
      },
      (error: unknown) => {
        if (controller.signal.aborted || missing.size === 0) return;
        if (++resumes > 100) {
          rejectSeen(new Error(`pod watch in ${namespace} ended with ${missing.size} pods not seen: ${String(error)}`));
          return;
        }
        watch().catch((failure: unknown) => rejectSeen(new Error(`pod watch in ${namespace} could not resume: ${String(failure)}`)));
      },
    );
    if (controller.signal.aborted) watching.abort();
    else controller.signal.addEventListener('abort', () => watching.abort(), { once: true });
  };
  await watch();
  return { controller, allSeen, missing: () => missing.size };
}

export async function withTimeout<T>(promise: Promise<T>, what: string, timeoutMs: number = TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Starts the e2e suite's control plane and a NATS server (without authentication), side by side. */
export async function startControlPlane(): Promise<{ cp: ControlPlane; nats: Nats }> {
  const { start, startNats } = (await import(CONTROL_PLANE_SOURCE.href)) as ControlPlaneModule;
  const [cp, nats] = await Promise.all([start(), startNats()]);
  return { cp, nats };
}

/**
 * The cluster a benchmark measures on: the CRD installed, a namespace for the baseline's pods and
 * one the operator serves, API clients, and the operator's configuration read through the
 * product's own path and defaults (workers, resources; BENCH_WORKERS sets the workers) with a
 * KubeConfig of its own. `createDirectPod` makes the pod the operator would build for a session
 * of that name, straight through the API (the baseline); `createSession` makes the
 * MessagingSession (SANDBOX, desiredState Running) the operator is to reconcile.
 */
export async function prepareCluster(cp: ControlPlane, nats: Nats, namespaces: { direct: string; operator: string }) {
  await cp.kubectl(['apply', '-f', CRD.pathname]);
  await cp.kubectl(['wait', '--for=condition=Established', '--timeout=60s', `crd/${plural}.${group}`]);
  await cp.ensureNamespace(namespaces.direct);
  await cp.ensureNamespace(namespaces.operator);
  // The floor keeps its connections as the operator does (kube/src/kube-connections.ts), so the
  // ratio compares the writes each side makes, not TLS handshakes.
  const kubeConfig = reusingConnections(new KubeConfig());
  kubeConfig.loadFromFile(cp.kubeconfigPath);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const operatorKube = new KubeConfig();
  operatorKube.loadFromFile(cp.kubeconfigPath);
  const config = readConfig(
    {
      SWITCHBOARD_NAMESPACE: namespaces.operator,
      SWITCHBOARD_NATS_URL: nats.url,
      SWITCHBOARD_ENGINE_IMAGE: 'ghcr.io/switchboard/engine:bench',
      SWITCHBOARD_BROWSER_ENGINE_IMAGE: 'ghcr.io/switchboard/engine-browser:bench',
      SWITCHBOARD_IDENTITY: 'bench-operator',
      SWITCHBOARD_HTTP_PORT: '0',
      SWITCHBOARD_LOG_LEVEL: 'silent',
      ...(process.env.BENCH_WORKERS ? { SWITCHBOARD_WORKERS: process.env.BENCH_WORKERS } : {}),
    },
    operatorKube,
  );
  const createDirectPod = (session: string) =>
    core.createNamespacedPod({ namespace: namespaces.direct, body: buildEnginePod(fakeSession(session, namespaces.direct), config.pods) });
  const createSession = (name: string, spec: Record<string, unknown> = {}) =>
    custom.createNamespacedCustomObject({
      group,
      version,
      namespace: namespaces.operator,
      plural,
      body: { apiVersion: `${group}/${version}`, kind, metadata: { name }, spec: { engine: 'SANDBOX', desiredState: 'Running', ...spec } },
    });
  return { kubeConfig, core, config, createDirectPod, createSession };
}
