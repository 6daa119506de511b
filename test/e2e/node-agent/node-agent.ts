import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import type { ImageCommand } from './container-launch.js';
import type { ContainerState, RestartBackoff } from './container-process.js';
import { apiConfigSource, isStatus } from './kube-calls.js';
import { k8s } from './kubernetes-client.js';
import { NodeRegistration, nodeLabels } from './node-registration.js';
import { OrphanReaper } from './orphan-reaper.js';
import { PodRuntime } from './pod-runtime.js';
import { PodWatch } from './pod-watch.js';

export { HEALTH_PORT_ENV, type ImageCommand } from './container-launch.js';

export interface NodeAgentOptions {
  kubeconfigPath: string;
  /** Default `switchboard-test-node`. */
  nodeName?: string;
  /** Watch, bind and run pods of this namespace only; default every namespace. */
  namespace?: string;
  /** Only pods with these labels, e.g. `app.kubernetes.io/component=engine`. */
  labelSelector?: string;
  /** What each image runs on this host: `{'switchboard/engine-socket:dev': {command: 'node', args: [...]}}`. */
  images: Record<string, ImageCommand>;
  /**
   * Where pod directories and logs go. Default: a new directory under the OS temp dir, removed by
   * stop() unless SWITCHBOARD_E2E_KEEP is set (as the control plane's).
   */
  workDir?: string;
  /** Env set on every process, over the pod's own (e.g. a local NATS URL in place of a cluster DNS name). */
  envOverrides?: Record<string, string>;
  /** Node heartbeat (Ready condition and Lease); default 10 s, as kubelet. */
  heartbeatMs?: number;
  /** Readiness probe period, in place of the pod's periodSeconds; default 1 s. */
  probePeriodMs?: number;
  /** Delay before restarting an exited container, doubled each restart; default 250 ms up to 5 s. */
  restartBackoff?: RestartBackoff;
  /** Also receives every line of the agent's own log (the CLI prints them). */
  log?: (line: string) => void;
}

/** A pod this agent runs, as a test sees it. */
export interface LocalPod {
  uid: string;
  /** The pod's directory: `<container>.log` files, and the processes' working directory. */
  dir: string;
  /** Container port to the host port that stands in for it: `{"8080": 41234}`. */
  ports: Record<string, number>;
  containers: { name: string; pid: number | undefined; restartCount: number; ready: boolean; state: ContainerState; logPath: string }[];
}

export interface NodeAgent {
  readonly nodeName: string;
  readonly workDir: string;
  /** The agent's own log: bindings, starts, stops, failed API calls. */
  readonly logPath: string;
  /** The pod with this name that the agent runs now (or ran last). */
  pod(namespace: string, name: string): LocalPod | undefined;
  /** Every container log of every pod of this name the agent ran, oldest first: for failure messages. */
  logs(namespace: string, name: string): string;
  /** Kills every process and stops watching; pods and the Node stay in the API server. */
  stop(): Promise<void>;
}

const DEFAULT_SCHEDULER = 'default-scheduler';
const DEFAULT_GRACE_SECONDS = 30;
const RETRY_MS = 1_000;

/**
 * One fake node: kubelet and scheduler in one. Registers a Ready Node, binds unscheduled pods to
 * it, runs each bound pod's containers as local processes, reports their status, and finalizes
 * deletions. Every decision is taken from the pod's current state (level-triggered), so a
 * repeated or missed event changes nothing.
 */
export async function startNodeAgent(options: NodeAgentOptions): Promise<NodeAgent> {
  const nodeName = options.nodeName ?? 'switchboard-test-node';
  const workDir = options.workDir ?? mkdtempSync(join(tmpdir(), 'switchboard-node-agent-'));
  mkdirSync(workDir, { recursive: true });
  const logPath = join(workDir, 'agent.log');
  const log = (line: string) => {
    appendFileSync(logPath, `${new Date().toISOString()} ${line}\n`);
    options.log?.(line);
  };

  const kubeConfig = new k8s.KubeConfig();
  kubeConfig.loadFromFile(options.kubeconfigPath);
  const core = kubeConfig.makeApiClient(k8s.CoreV1Api);
  const reaper = new OrphanReaper();
  const runtimes = new Map<string, PodRuntime>();
  const lastRun = new Map<string, PodRuntime>();
  const binding = new Set<string>();
  const deleting = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;

  const runtimeDeps = {
    core,
    config: apiConfigSource(core),
    reaper,
    nodeName,
    workDir,
    images: options.images,
    envOverrides: options.envOverrides ?? {},
    probePeriodMs: options.probePeriodMs ?? 1_000,
    restartBackoff: options.restartBackoff ?? { initialMs: 250, maxMs: 5_000 },
    log,
  };

  const retryLater = (pod: V1Pod) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      const latest = watch.get(pod.metadata?.namespace ?? '', pod.metadata?.name ?? '');
      if (latest) handle(latest, false);
    }, RETRY_MS);
    timers.add(timer);
  };

  const handle = (pod: V1Pod, deleted: boolean): void => {
    if (stopped) return;
    const uid = pod.metadata?.uid ?? '';
    const key = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
    const runtime = runtimes.get(uid);
    if (deleted) {
      // Deleted outright (forced, or while we were not looking): stop what runs, with the grace the delete gave.
      if (runtime) void runtime.terminate(graceMs(pod)).then(() => runtimes.delete(uid));
      return;
    }
    if (!pod.spec?.nodeName) {
      if (schedulable(pod, nodeName) && !binding.has(uid)) void bind(pod, key, uid);
      return;
    }
    if (pod.spec.nodeName !== nodeName) return;
    if (pod.metadata?.deletionTimestamp) {
      if (!deleting.has(uid)) void stopAndDelete(runtime, pod, key);
      return;
    }
    if (runtime || pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return;
    const started = new PodRuntime(pod, runtimeDeps);
    runtimes.set(uid, started);
    lastRun.set(key, started);
    log(`${key}: starting ${started.containers.map((container) => container.name).join(', ')} in ${started.dir}`);
    started.start();
  };

  const bind = async (pod: V1Pod, key: string, uid: string) => {
    binding.add(uid);
    try {
      await core.createNamespacedPodBinding({
        name: pod.metadata?.name ?? '',
        namespace: pod.metadata?.namespace ?? '',
        body: { metadata: { name: pod.metadata?.name, uid }, target: { apiVersion: 'v1', kind: 'Node', name: nodeName } },
      });
      log(`${key}: bound to ${nodeName}`);
    } catch (err) {
      // 409: bound already, by us or another scheduler; the next event shows where.
      if (!isStatus(err, 409) && !isStatus(err, 404)) {
        log(`${key}: binding failed, retrying: ${String(err)}`);
        retryLater(pod);
      }
    } finally {
      binding.delete(uid);
    }
  };

  /** kubelet's graceful deletion: stop the containers, then the delete that removes the object. */
  const stopAndDelete = async (runtime: PodRuntime | undefined, pod: V1Pod, key: string) => {
    const uid = pod.metadata?.uid ?? '';
    deleting.add(uid);
    if (runtime) {
      await runtime.terminate(graceMs(pod));
      runtimes.delete(uid);
    }
    if (stopped) return;
    try {
      await core.deleteNamespacedPod({
        name: pod.metadata?.name ?? '',
        namespace: pod.metadata?.namespace ?? '',
        gracePeriodSeconds: 0,
        body: { gracePeriodSeconds: 0, preconditions: { uid } },
      });
      log(`${key}: containers stopped, pod deleted`);
    } catch (err) {
      // 404: gone already; 409: the uid precondition failed, so that pod is gone too.
      if (!isStatus(err, 404) && !isStatus(err, 409)) {
        log(`${key}: final delete failed, retrying: ${String(err)}`);
        deleting.delete(uid);
        retryLater(pod);
      }
    }
  };

  const registration = new NodeRegistration(core, kubeConfig.makeApiClient(k8s.CoordinationV1Api), nodeName, log);
  const watch = new PodWatch(kubeConfig, core, options, handle, log);
  try {
    await registration.start(options.heartbeatMs ?? 10_000);
    await watch.start();
  } catch (err) {
    registration.stop();
    await watch.stop();
    reaper.close();
    throw new Error(`node agent ${nodeName} could not start against ${kubeConfig.getCurrentCluster()?.server}: ${String(err)}`, {
      cause: err,
    });
  }
  log(`node ${nodeName}: watching pods in ${options.namespace ?? 'every namespace'}${options.labelSelector ? ` with ${options.labelSelector}` : ''}`);

  return {
    nodeName,
    workDir,
    logPath,
    pod(namespace, name) {
      const runtime = lastRun.get(`${namespace}/${name}`);
      if (!runtime) return undefined;
      return {
        uid: runtime.uid,
        dir: runtime.dir,
        ports: runtime.ports.mapping(),
        containers: runtime.snapshots().map(({ name: container, pid, restartCount, ready, state, logPath: path }) => ({
          name: container,
          pid,
          restartCount,
          ready,
          state,
          logPath: path,
        })),
      };
    },
    logs(namespace, name) {
      return podDirs(workDir, namespace, name)
        .flatMap((dir) =>
          readdirSync(dir)
            .filter((file) => file.endsWith('.log'))
            .map((file) => `===== ${join(dir, file)}\n${readFileSync(join(dir, file), 'utf8')}`),
        )
        .join('\n');
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      registration.stop();
      await watch.stop();
      await Promise.all([...runtimes.values()].map((runtime) => runtime.kill()));
      reaper.close();
      log(`node ${nodeName}: stopped`);
      if (!options.workDir && !process.env.SWITCHBOARD_E2E_KEEP) rmSync(workDir, { recursive: true, force: true });
      else if (!options.workDir) console.error(`e2e: kept ${workDir}`);
    },
  };
}

function graceMs(pod: V1Pod): number {
  return (pod.metadata?.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? DEFAULT_GRACE_SECONDS) * 1000;
}

/** What the default scheduler would check here: its name, and the node's labels against nodeSelector. */
function schedulable(pod: V1Pod, nodeName: string): boolean {
  if (pod.metadata?.deletionTimestamp) return false;
  if ((pod.spec?.schedulerName ?? DEFAULT_SCHEDULER) !== DEFAULT_SCHEDULER) return false;
  const labels = nodeLabels(nodeName);
  return Object.entries(pod.spec?.nodeSelector ?? {}).every(([label, value]) => labels[label] === value);
}

/** `<namespace>_<name>_<uid>` directories, in the order they were made. */
function podDirs(workDir: string, namespace: string, name: string): string[] {
  if (!existsSync(workDir)) return [];
  return readdirSync(workDir)
    .filter((entry) => entry.startsWith(`${namespace}_${name}_`))
    .map((entry) => join(workDir, entry))
    .sort((a, b) => statSync(a).birthtimeMs - statSync(b).birthtimeMs);
}
