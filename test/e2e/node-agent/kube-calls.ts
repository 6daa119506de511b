import type { CoreV1Api } from '@kubernetes/client-node';
import type { ConfigSource } from './container-launch.js';
import { k8s } from './kubernetes-client.js';

/** Request options for a JSON merge patch (the client sends a JSON patch by default). */
export const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

/** Whether an API call failed with this HTTP status (404 gone, 409 conflict ...). */
export function isStatus(err: unknown, code: number): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code;
}

/** ConfigMaps and Secrets read from the API server, for env vars that refer to them. */
export function apiConfigSource(core: CoreV1Api): ConfigSource {
  const orUndefined = <T>(read: Promise<T>): Promise<T | undefined> =>
    read.catch((err: unknown) => {
      if (isStatus(err, 404)) return undefined;
      throw err;
    });
  return {
    async configMap(namespace, name) {
      const configMap = await orUndefined(core.readNamespacedConfigMap({ namespace, name }));
      return configMap && (configMap.data ?? {});
    },
    async secret(namespace, name) {
      const secret = await orUndefined(core.readNamespacedSecret({ namespace, name }));
      if (!secret) return undefined;
      const data = Object.entries(secret.data ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]);
      return { ...Object.fromEntries(data), ...secret.stringData };
    },
  };
}
