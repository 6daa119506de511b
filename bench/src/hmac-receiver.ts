import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The benchmark's webhook receiver, a process of its own (forked by `webhook-deliveries.ts`): a
 * plain node HTTP server that checks every request's X-Webhook-Hmac over the raw body, as a
 * careful user's receiver would, and answers 200 (401 when the HMAC is wrong). Both the gateway's
 * deliveries and the load generator's requests hit it, so both pay the same receiving cost.
 *
 * IPC: it sends `{ port }` once listening; `{ type: 'reset', latency }` zeroes the counts (and
 * turns on recording the delay from each envelope's `timestamp`); `{ type: 'stats' }` answers
 * `{ ok, bad, timestamps, latenciesMs }`: per received event, its envelope `timestamp` and delay,
 * so the benchmark can keep the events of its measured window only.
 */
const key = process.env.BENCH_HMAC_KEY ?? '';
let ok = 0;
let bad = 0;
let recordLatency = false;
let timestamps: number[] = [];
let latenciesMs: number[] = [];

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks);
    const presented = Buffer.from(String(request.headers['x-webhook-hmac'] ?? ''), 'hex');
    const expected = createHmac('sha512', key).update(body).digest();
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
      bad++;
      response.writeHead(401).end();
      return;
    }
    ok++;
    if (recordLatency) {
      const { timestamp } = JSON.parse(body.toString('utf8')) as { timestamp: number };
      timestamps.push(timestamp);
      latenciesMs.push(performance.timeOrigin + performance.now() - timestamp);
    }
    response.writeHead(200).end();
  });
});
// Senders keep their connections: a new one per request would measure TCP set-up instead.
server.keepAliveTimeout = 60_000;

process.on('message', (message: { type: 'reset'; latency: boolean } | { type: 'stats' }) => {
  if (message.type === 'reset') {
    ok = bad = 0;
    timestamps = [];
    latenciesMs = [];
    recordLatency = message.latency;
    process.send!({ type: 'reset' });
  } else {
    process.send!({ type: 'stats', ok, bad, timestamps, latenciesMs });
  }
});
process.on('disconnect', () => process.exit(0));

server.listen(0, '127.0.0.1', () => process.send!({ type: 'listening', port: (server.address() as AddressInfo).port }));
