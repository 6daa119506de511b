import {
  type CoreV1Event,
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1ConfigMap,
  type V1Pod,
  type V1Secret,
} from '@kubernetes/client-node';
import { ConflictError, httpStatusOf, ResourceGoneError, type StoredMessagingSession } from '@switchboard/kube';
import { LOGOUT_FINALIZER, MESSAGING_SESSION, type MessagingSessionStatus } from '@switchboard/protocol';

const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const JSON_PATCH = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);

/**
 * The operator's writes to the API server, one method per thing it does. Reads go through
 * the informer caches, never through here. Writes to the resource carry the resourceVersion
 * the reconcile read, so a write based on a stale cache fails with a conflict instead of
 * overwriting newer state.
 */
export class KubeClient {
  private readonly core: CoreV1Api;
  private readonly custom: CustomObjectsApi;

  constructor(
    kubeConfig: KubeConfig,
    readonly namespace: string,
  ) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  async createEvent(event: CoreV1Event): Promise<void> {
    await this.core.createNamespacedEvent({ namespace: this.namespace, body: event });
  }

  async createPod(pod: V1Pod): Promise<void> {
    try {
      await this.core.createNamespacedPod({ namespace: this.namespace, body: pod });
    } catch (error) {
      if (httpStatusOf(error) === 409) throw new ConflictError(`pod ${pod.metadata?.name} already exists`);
      throw error;
    }
  }

  /** A Secret of the namespace, or null when there is none of that name. */
  async readSecret(name: string): Promise<V1Secret | null> {
    try {
      return await this.core.readNamespacedSecret({ name, namespace: this.namespace });
    } catch (error) {
      if (httpStatusOf(error) === 404) return null;
      throw error;
    }
  }

  /** Creates a Secret; false when one of that name exists already (whoever made it first wins). */
  async createSecret(secret: V1Secret): Promise<boolean> {
    try {
      await this.core.createNamespacedSecret({ namespace: this.namespace, body: secret });
      return true;
    } catch (error) {
      if (httpStatusOf(error) === 409) return false;
      throw error;
    }
  }

  /** The namespace's ConfigMaps with these labels (the rollouts' state: rollout/rollout-store.ts). */
  async listConfigMaps(labelSelector: string): Promise<V1ConfigMap[]> {
    return (await this.core.listNamespacedConfigMap({ namespace: this.namespace, labelSelector })).items;
  }

  /**
   * Creates a ConfigMap, or replaces the one read (its resourceVersion): a ConflictError when
   * another writer got there first, so a stale state is never written over a newer one.
   */
  async writeConfigMap(configMap: V1ConfigMap): Promise<V1ConfigMap> {
    const name = configMap.metadata!.name!;
    try {
      return configMap.metadata?.resourceVersion
        ? await this.core.replaceNamespacedConfigMap({ name, namespace: this.namespace, body: configMap })
        : await this.core.createNamespacedConfigMap({ namespace: this.namespace, body: configMap });
    } catch (error) {
      const status = httpStatusOf(error);
      if (status === 409 || status === 404) throw new ConflictError(`ConfigMap ${name} changed since it was read`);
      throw error;
    }
  }

  /** Deletes exactly the pod that was read (its uid), not a newer one under the same name. */
  async deletePod(name: string, uid: string): Promise<void> {
    try {
      await this.core.deleteNamespacedPod({ name, namespace: this.namespace, body: { preconditions: { uid } } });
    } catch (error) {
      const status = httpStatusOf(error);
      if (status === 404) return;
      if (status === 409) throw new ConflictError(`pod ${name} is not the one read (uid ${uid})`);
      throw error;
    }
  }

  /** Appends the logout finalizer, unless the resource changed since it was read. */
  async addFinalizer(resource: StoredMessagingSession): Promise<StoredMessagingSession> {
    const finalizers = [...(resource.metadata.finalizers ?? []), LOGOUT_FINALIZER];
    const patch = { metadata: { finalizers, resourceVersion: resource.metadata.resourceVersion } };
    return (await this.patchResource(resource, patch, MERGE_PATCH)) as StoredMessagingSession;
  }

  /** Removes exactly our finalizer: the test op fails the patch if the list moved meanwhile. */
  async removeFinalizer(resource: StoredMessagingSession): Promise<void> {
    const index = resource.metadata.finalizers?.indexOf(LOGOUT_FINALIZER) ?? -1;
    if (index < 0) return;
    const path = `/metadata/finalizers/${index}`;
    const patch = [
      { op: 'test', path, value: LOGOUT_FINALIZER },
      { op: 'remove', path },
    ];
    try {
      await this.patchResource(resource, patch, JSON_PATCH);
    } catch (error) {
      if (error instanceof ResourceGoneError) return;
      throw error;
    }
  }

  /** A merge patch of the status subresource, with the resourceVersion read as precondition. */
  async patchStatus(resource: StoredMessagingSession, status: MessagingSessionStatus): Promise<void> {
    const { group, version, plural } = MESSAGING_SESSION;
    const body = { metadata: { resourceVersion: resource.metadata.resourceVersion }, status };
    try {
      await this.custom.patchNamespacedCustomObjectStatus(
        { group, version, plural, namespace: this.namespace, name: resource.metadata.name, body },
        MERGE_PATCH,
      );
    } catch (error) {
      throw conflictOr(error, resource);
    }
  }

  private async patchResource(resource: StoredMessagingSession, body: unknown, options: typeof MERGE_PATCH): Promise<unknown> {
    const { group, version, plural } = MESSAGING_SESSION;
    try {
      return await this.custom.patchNamespacedCustomObject(
        { group, version, plural, namespace: this.namespace, name: resource.metadata.name, body },
        options,
      );
    } catch (error) {
      throw conflictOr(error, resource);
    }
  }
}

/** 409 (stale resourceVersion), 422 (a failed JSON patch test) and 404 all mean: read again. */
function conflictOr(error: unknown, resource: StoredMessagingSession): unknown {
  const status = httpStatusOf(error);
  if (status === 409 || status === 422) {
    return new ConflictError(`MessagingSession ${resource.metadata.name} changed since it was read`);
  }
  if (status === 404) return new ResourceGoneError(`MessagingSession ${resource.metadata.name} is gone`);
  return error;
}
