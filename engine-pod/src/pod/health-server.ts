import { type HttpListener, listenHttp } from '@switchboard/kube/pod';

const STATUS_TEXT: Record<number, string> = { 200: 'ok', 404: 'not found', 503: 'not ready' };

export type HealthServer = HttpListener;

/**
 * The kubelet's probes. `/healthz` answers 200 as long as the process serves at all: a pod
 * waiting for the lease is healthy, and restarting it would not help. `/readyz` answers 200
 * only while `ready()` holds: this pod owns the session and its engine runs.
 */
export function startHealthServer(port: number, ready: () => boolean): Promise<HealthServer> {
  return listenHttp((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const status = path === '/healthz' ? 200 : path === '/readyz' ? (ready() ? 200 : 503) : 404;
    response.writeHead(status, { 'content-type': 'text/plain' }).end(`${STATUS_TEXT[status]}\n`);
  }, port);
}
