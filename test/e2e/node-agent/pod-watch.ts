import type { CoreV1Api, KubeConfig, V1Pod } from '@kubernetes/client-node';
import { k8s } from './kubernetes-client.js';

export interface PodWatchScope {
  /** One namespace, or every namespace when absent. */
  namespace?: string;
  labelSelector?: string;
}

const RESTART_DELAY_MS = 1_000;

/**
 * An informer on pods that never gives up: the client's ListWatch already resumes a watch the
 * server closed and lists again after 410 Gone; on any other error it stops, and this restarts it.
 */
export class PodWatch {
  readonly #informer: ReturnType<typeof k8s.makeInformer<V1Pod>>;
  #stopped = false;
  #restartTimer: NodeJS.Timeout | undefined;

  constructor(
    kubeConfig: KubeConfig,
    core: CoreV1Api,
    scope: PodWatchScope,
    onPod: (pod: V1Pod, deleted: boolean) => void,
    private readonly log: (line: string) => void,
  ) {
    const { namespace, labelSelector } = scope;
    const path = namespace ? `/api/v1/namespaces/${namespace}/pods` : '/api/v1/pods';
    const list = namespace ? () => core.listNamespacedPod({ namespace, labelSelector }) : () => core.listPodForAllNamespaces({ labelSelector });
    this.#informer = k8s.makeInformer<V1Pod>(kubeConfig, path, list, labelSelector);
    this.#informer.on('add', (pod) => onPod(pod, false));
    this.#informer.on('update', (pod) => onPod(pod, false));
    this.#informer.on('delete', (pod) => onPod(pod, true));
    this.#informer.on('error', (err) => {
      if (this.#stopped) return;
      this.log(`pod watch failed, restarting in ${RESTART_DELAY_MS} ms: ${String(err)}`);
      this.#restartTimer = setTimeout(() => void this.#start(), RESTART_DELAY_MS);
    });
  }

  /** Resolves once the first list has been delivered and the watch is open. */
  async start(): Promise<void> {
    await this.#informer.start();
  }

  /** The latest cached pod, for handling one again later. */
  get(namespace: string, name: string): V1Pod | undefined {
    return this.#informer.get(name, namespace);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#restartTimer);
    await this.#informer.stop();
  }

  async #start(): Promise<void> {
    if (this.#stopped) return;
    try {
      await this.#informer.start();
    } catch (err) {
      this.log(`pod watch could not restart, trying again in ${RESTART_DELAY_MS} ms: ${String(err)}`);
      this.#restartTimer = setTimeout(() => void this.#start(), RESTART_DELAY_MS);
    }
  }
}
