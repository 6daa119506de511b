import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/**
 * A receiver that counts its requests and how many are open at once; `answer` decides each one
 * (a status, sent after `delayMs`, or null to hang until the client gives up).
 */
export async function countingReceiver(
  answer: () => number | null,
  delayMs = 0,
): Promise<{
  url: string;
  requests: () => number;
  open: () => number;
  peakSince: (n: number) => number;
  peakSentAfter: (at: number) => number;
  server: Server;
}> {
  let open = 0;
  /** Open requests when each one arrived. */
  const openAt: number[] = [];
  /** When each request open now was sent (its X-Webhook-Timestamp), and, per request, how many of those were sent after it when it arrived. */
  const sentOpen = new Set<{ sentAt: number }>();
  const arrivals: { sentAt: number; sentNoLater: number[] }[] = [];
  const server = createServer((req, res) => {
    open++;
    openAt.push(open);
    const request = { sentAt: Number(req.headers['x-webhook-timestamp']) };
    sentOpen.add(request);
    arrivals.push({ sentAt: request.sentAt, sentNoLater: [...sentOpen].map((other) => other.sentAt) });
    res.on('close', () => {
      open--;
      sentOpen.delete(request);
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
    open: () => open,
    peakSince: (n) => Math.max(0, ...openAt.slice(n)),
    // Requests sent after `at` open at once, whenever one sent before arrives (a request may reach
    // the receiver a moment after it was sent, under load after later checks).
    peakSentAfter: (at) =>
      Math.max(0, ...arrivals.filter(({ sentAt }) => sentAt > at).map(({ sentNoLater }) => sentNoLater.filter((sentAt) => sentAt > at).length)),
    server,
  };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
