import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@switchboard/testkit';
import { afterEach } from 'vitest';

/** What a counting receiver tells about its requests. */
export interface CountingReceiver {
  url: string;
  requests: () => number;
  /** The most requests open at once when each request from the `n`th on arrived. */
  peakSince: (n: number) => number;
  /** When each request arrived, and when it ended (undefined while open), by arrival. */
  arrivedAt: readonly number[];
  endedAt: readonly (number | undefined)[];
  server: Server;
}

/**
 * A receiver that counts its requests and how many are open at once; `answer` decides each one
 * (a status, sent after `delayMs`, or null to hang until the client gives up).
 */
export async function countingReceiver(answer: () => number | null, delayMs = 0): Promise<CountingReceiver> {
  let open = 0;
  /** Open requests when each one arrived. */
  const openAt: number[] = [];
  const arrivedAt: number[] = [];
  const endedAt: (number | undefined)[] = [];
  const server = createServer((req, res) => {
    open++;
    openAt.push(open);
    const index = arrivedAt.push(Date.now()) - 1;
    endedAt.push(undefined);
    res.on('close', () => {
      open--;
      endedAt[index] = Date.now();
    });
    req.resume();
    req.on('end', () => {
      const status = answer();
      if (status !== null) setTimeout(() => res.writeHead(status).end(), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    requests: () => openAt.length,
    peakSince: (n) => Math.max(0, ...openAt.slice(n)),
    arrivedAt,
    endedAt,
    server,
  };
}

/**
 * The index of the first request that can only be a probe, once the circuit has opened (call it
 * right after its log line). A request sent just before the circuit opened may reach the receiver
 * up to `lastsMs` later (its answer or its timeout bounds it), so every request that arrived
 * within that span may be one; the first probe is the first request to arrive after all of those
 * had ended. Read from arrival and end times: sampling for a moment with nothing open missed the
 * short gaps between probes on a loaded machine (a CI run waited 15 s for one).
 */
export async function probesFrom(rx: Pick<CountingReceiver, 'arrivedAt' | 'endedAt'>, lastsMs: number): Promise<number> {
  const cutoff = Date.now() + lastsMs + 100;
  await waitFor(() => Date.now() > cutoff, 'the requests from before the circuit opened to arrive');
  const early = rx.arrivedAt.flatMap((at, index) => (at <= cutoff ? [index] : []));
  await waitFor(() => early.every((index) => rx.endedAt[index] !== undefined), 'the requests from before the circuit opened to end');
  const lastEnd = Math.max(0, ...early.map((index) => rx.endedAt[index]!));
  await waitFor(() => rx.arrivedAt.some((at) => at >= lastEnd), 'a request after them');
  return rx.arrivedAt.findIndex((at) => at >= lastEnd);
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
