import { type HttpListener, listenHttp } from '@switchboard/kube/pod';
import type { Registry } from 'prom-client';

const STATUS_TEXT: Record<number, string> = { 200: 'ok', 404: 'not found', 503: 'not ready' };

export type HealthServer = HttpListener;

/**
 * The kubelet's probes and Prometheus's scrape. `/healthz` answers 200 as long as the process
 * serves at all: a pod waiting for the lease is healthy, and restarting it would not help.
 * `/readyz` answers 200 only while `ready()` holds: this pod owns the session and its engine runs.
 * `/metrics` serves `metrics` (pod-metrics.ts) on the same port, so the pod opens no other.
 */
export function startHealthServer(port: number, ready: () => boolean, metrics?: Registry): Promise<HealthServer> {
  return listenHttp((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path === '/metrics' && metrics) {
      metrics.metrics().then(
        (text) => response.writeHead(200, { 'content-type': metrics.contentType }).end(text),
        () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n'),
      );
      return;
    }
    const status = path === '/healthz' ? 200 : path === '/readyz' ? (ready() ? 200 : 503) : 404;
    response.writeHead(status, { 'content-type': 'text/plain' }).end(`${STATUS_TEXT[status]}\n`);
  }, port);
}
