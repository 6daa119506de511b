import type { KubeConfig, RequestContext } from '@kubernetes/client-node';

type Dispatcher = NonNullable<ReturnType<RequestContext['getDispatcher']>>;

const reusing = new WeakSet<KubeConfig>();

/**
 * Makes the API clients made from `kubeConfig` keep their connections to the API server, and
 * answers the same object.
 *
 * @kubernetes/client-node 2.0.1 gives every request of a generated API client a new undici Agent
 * (`applySecurityAuthentication` → `createDispatcher`; its agent cache covers watches only), so
 * every API call opened a TCP connection and did a TLS handshake, on both sides: measured in the
 * reconcile benchmark, a fifth of the operator process's busy time was TLS set-up, and the API
 * server paid as much again. Here the first Agent made for a cluster, server and user is kept and
 * handed to every later request; the ones the library makes after it hold no connection and are
 * closed at once. A client certificate read from a file is therefore read once per process, as
 * the library's own watch agents already do.
 */
export function reusingConnections(kubeConfig: KubeConfig): KubeConfig {
  if (reusing.has(kubeConfig)) return kubeConfig;
  reusing.add(kubeConfig);
  const apply = kubeConfig.applySecurityAuthentication.bind(kubeConfig);
  const kept = new Map<string, Dispatcher>();
  kubeConfig.applySecurityAuthentication = async (context: RequestContext) => {
    await apply(context);
    const made = context.getDispatcher();
    if (!made) return;
    const cluster = kubeConfig.getCurrentCluster();
    const key = JSON.stringify([cluster?.name ?? '', cluster?.server ?? '', kubeConfig.getCurrentUser()?.name ?? '']);
    const reused = kept.get(key);
    if (!reused) {
      kept.set(key, made);
      return;
    }
    context.setDispatcher(reused);
    made.close().catch(() => undefined);
  };
  return kubeConfig;
}
