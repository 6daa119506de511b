import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { ResourceInformer, type StoredMessagingSession } from '@switchboard/kube';
import { LABELS, MESSAGING_SESSION } from '@switchboard/protocol';
import type { Logger } from 'pino';

/** The operator's pod informer sees engine pods only. */
export const ENGINE_POD_SELECTOR = `${LABELS.app}=switchboard,${LABELS.component}=engine`;

export interface InformerOptions {
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
  /** Receives the resource name (the work-queue key) of every session something happened to. */
  readonly enqueue: (key: string) => void;
  readonly log: Logger;
  /** Every key is enqueued this often (the informers' resync), so a missed event only delays a reconcile. */
  readonly resyncMs?: number;
  /** A watch that delivers nothing, not even a bookmark, for this long is restarted (kube's default when left out). */
  readonly quietTimeoutMs?: number;
}

/**
 * The caches the reconciler reads: MessagingSessions and engine pods of one namespace. Every
 * change enqueues the session it concerns; the reconcile reads the caches again rather than
 * trusting what the event said.
 */
export class OperatorInformers {
  readonly sessions: ResourceInformer<StoredMessagingSession>;
  readonly pods: ResourceInformer<V1Pod>;

  constructor(private readonly options: InformerOptions) {
    const { kubeConfig, namespace, log, enqueue } = options;
    const { group, version, plural } = MESSAGING_SESSION;
    const custom = kubeConfig.makeApiClient(CustomObjectsApi);
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const resyncMs = options.resyncMs ?? 30_000;
    this.sessions = new ResourceInformer<StoredMessagingSession>({
      name: plural,
      kubeConfig,
      path: `/apis/${group}/${version}/namespaces/${namespace}/${plural}`,
      list: () => custom.listNamespacedCustomObject({ group, version, namespace, plural }),
      onChange: (resource) => enqueue(resource.metadata.name),
      log,
      quietTimeoutMs: options.quietTimeoutMs,
      resyncMs,
    });
    this.pods = new ResourceInformer<V1Pod>({
      name: 'pods',
      kubeConfig,
      path: `/api/v1/namespaces/${namespace}/pods`,
      labelSelector: ENGINE_POD_SELECTOR,
      list: () => core.listNamespacedPod({ namespace, labelSelector: ENGINE_POD_SELECTOR }),
      onChange: (pod) => {
        const key = sessionKeyOfPod(pod);
        if (key) enqueue(key);
      },
      log,
      quietTimeoutMs: options.quietTimeoutMs,
      // Every engine pod's owner is enqueued too, orphans included.
      resyncMs,
    });
  }

  start(): void {
    this.sessions.start();
    this.pods.start();
  }

  async stop(): Promise<void> {
    await Promise.all([this.sessions.stop(), this.pods.stop()]);
  }

  async waitForSync(): Promise<void> {
    await Promise.all([this.sessions.waitForSync(), this.pods.waitForSync()]);
  }

  /** Every session the caches know of, and the owner of every engine pod (orphans included). */
  enqueueAll(): void {
    for (const resource of this.sessions.list()) this.options.enqueue(resource.metadata.name);
    for (const pod of this.pods.list()) {
      const key = sessionKeyOfPod(pod);
      if (key) this.options.enqueue(key);
    }
  }
}

/** The resource name of the session a pod runs: its controller, else its session label. */
export function sessionKeyOfPod(pod: V1Pod): string | undefined {
  const owner = pod.metadata?.ownerReferences?.find((ref) => ref.controller && ref.kind === MESSAGING_SESSION.kind);
  return owner?.name ?? pod.metadata?.labels?.[LABELS.session];
}
