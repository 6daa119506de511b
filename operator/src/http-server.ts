import type { RequestListener } from 'node:http';
import { type HttpListener, listenHttp } from '@switchboard/kube';
import type { Registry } from 'prom-client';

export interface OperatorHttpOptions {
  readonly port: number;
  readonly host?: string;
  readonly metrics: Registry;
  /** Readiness: the caches are synced, so this replica can reconcile or take over at once. */
  readonly ready: () => boolean;
}

export type OperatorHttp = HttpListener;

const text = (body: string) => ({ 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) });

/**
 * The operator's only inbound endpoint, for the kubelet and Prometheus: `GET /healthz` (the
 * process answers: liveness), `GET /readyz` (503 until the caches are synced) and `GET /metrics`.
 * No API key: it reveals counts, never sessions' data, and the chart's NetworkPolicy admits it
 * only from where the values say. Plain node:http (engine-pod `listenHttp`, as the engine pods'
 * probes): three fixed routes need no framework.
 */
export function startOperatorHttp(options: OperatorHttpOptions): Promise<OperatorHttp> {
  const handler: RequestListener = (request, response) => {
    const path = (request.url ?? '/').split('?', 1)[0];
    const route = path === '/healthz' || path === '/readyz' || path === '/metrics';
    if (!route) {
      response.writeHead(404, text('not found\n')).end('not found\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { ...text('method not allowed\n'), allow: 'GET, HEAD' }).end('method not allowed\n');
      return;
    }
    if (path === '/healthz') {
      response.writeHead(200, text('ok\n')).end('ok\n');
    } else if (path === '/readyz') {
      const ready = options.ready();
      const body = ready ? 'ok\n' : 'caches not synced yet\n';
      response.writeHead(ready ? 200 : 503, text(body)).end(body);
    } else {
      options.metrics.metrics().then(
        (body) => response.writeHead(200, { 'content-type': options.metrics.contentType, 'content-length': Buffer.byteLength(body) }).end(body),
        (error: unknown) => {
          const body = `metrics failed: ${(error as Error).message}\n`;
          response.writeHead(500, text(body)).end(body);
        },
      );
    }
  };
  return listenHttp(handler, options.port, options.host ?? '0.0.0.0');
}
