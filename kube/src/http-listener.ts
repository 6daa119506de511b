import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A small HTTP endpoint that is listening: the port it got, and how to stop it. */
export interface HttpListener {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves `handler` on `port` (0: a free one) of `host` (every address when left out). Resolves
 * once listening, rejects when the port cannot be had. `close` drops kept-alive connections
 * first, so a prober's idle socket cannot hold it open. For the probe and metrics endpoints of
 * engine pods and the operator, which need no framework.
 */
export async function listenHttp(handler: RequestListener, port: number, host?: string): Promise<HttpListener> {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
