import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@switchboard/testkit';
import { afterEach } from 'vitest';

/**
 * A receiver that counts its requests and how many are open at once; `answer` decides each one
 * (a status, sent after `delayMs`, or null to hang until the client gives up).
 */
export async function countingReceiver(
  answer: () => number | null,
  delayMs = 0,
): Promise<{ url: string; requests: () => number; open: () => number; peakSince: (n: number) => number; server: Server }> {
  let open = 0;
  /** Open requests when each one arrived. */
  const openAt: number[] = [];
  const server = createServer((req, res) => {
    open++;
    openAt.push(open);
    res.on('close', () => open--);
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
    open: () => open,
    peakSince: (n) => Math.max(0, ...openAt.slice(n)),
    server,
  };
}

/**
 * Waits until the requests that began before the circuit opened have ended at the receiver, and
 * returns its request count then: what comes after are probes. A request sent just before the
 * circuit opened may not have reached the receiver yet when the log line shows, so seeing no open
 * request is not enough; such requests end within `lastsMs` (their answer or their timeout), so
 * the count is taken once that long has passed and none is open.
 */
export async function probesFrom(rx: { open: () => number; requests: () => number }, lastsMs: number): Promise<number> {
  const openedAt = Date.now();
  await waitFor(() => Date.now() - openedAt > lastsMs + 100 && rx.open() === 0, 'the requests from before the circuit opened ended');
  return rx.requests();
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
