import { CustomObjectsApi, type KubeConfig, type KubernetesListObject, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { type MessagingSession, orUndefinedIfNotFound as orUndefined } from '@switchboard/kube';
import { MESSAGING_SESSION } from '@switchboard/protocol';

/** One operation of an RFC 6902 JSON patch. */
export interface JsonPatchOperation {
  readonly op: 'add' | 'replace' | 'remove' | 'test';
  readonly path: string;
  readonly value?: unknown;
}

/**
 * The MessagingSession resources of one namespace, straight from the API server. Reads normally
 * go through `SessionCache`; this is for writes and for reads the cache cannot answer yet.
 * "Not found" is a value here (undefined or false), not an error: callers decide what it means.
 */
export class SessionResources {
  /** The collection's URL path, which the informer watches. */
  readonly path: string;
  private readonly api: CustomObjectsApi;
  private readonly coordinates: { group: string; version: string; namespace: string; plural: string };

  constructor(
    kubeConfig: KubeConfig,
    readonly namespace: string,
  ) {
    this.api = kubeConfig.makeApiClient(CustomObjectsApi);
    const { group, version, plural } = MESSAGING_SESSION;
    this.coordinates = { group, version, namespace, plural };
    this.path = `/apis/${group}/${version}/namespaces/${namespace}/${plural}`;
  }

  list(): Promise<KubernetesListObject<MessagingSession>> {
    return this.api.listNamespacedCustomObject(this.coordinates);
  }

  get(name: string): Promise<MessagingSession | undefined> {
    return orUndefined(this.api.getNamespacedCustomObject({ ...this.coordinates, name }));
  }

  /** Rejects with an ApiException of code 409 when the name is taken. */
  create(resource: MessagingSession): Promise<MessagingSession> {
    return this.api.createNamespacedCustomObject({ ...this.coordinates, body: resource });
  }

  mergePatch(name: string, patch: object): Promise<MessagingSession | undefined> {
    const options = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    return orUndefined(this.api.patchNamespacedCustomObject({ ...this.coordinates, name, body: patch }, options));
  }

  jsonPatch(name: string, operations: readonly JsonPatchOperation[]): Promise<MessagingSession | undefined> {
    const options = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
    return orUndefined(this.api.patchNamespacedCustomObject({ ...this.coordinates, name, body: operations }, options));
  }

  /** Resolves false when there was nothing to delete. */
  async delete(name: string): Promise<boolean> {
    return (await orUndefined(this.api.deleteNamespacedCustomObject({ ...this.coordinates, name }))) !== undefined;
  }
}
