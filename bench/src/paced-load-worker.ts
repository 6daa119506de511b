import { Agent, request } from 'node:http';

/**
 * Child process of `paced-load.ts`: POSTs at an even pace, open loop. Request i is due at
 * start + i / rate and is sent when due, whether or not the earlier ones have been answered
 * (they wait for a free connection if all are busy), so a slow server does not slow the load.
 *
 * Not autocannon: its `overallRate` lets each connection send its share of a second as fast as it
 * can at the start of that second, so "1,000 a second" arrives as a burst of 1,000 every second,
 * and a latency measured under it is mostly the time to drain the burst.
 *
 * The first `warmupSeconds` of the schedule are not measured: this process's own start (loading,
 * compiling, connecting) takes a core of a small machine away from the server for a moment.
 * Options come as JSON in argv[2]; the result, of the measured part only, goes to stdout as JSON.
 */
const options = JSON.parse(process.argv[2]!) as {
  url: string;
  paths: string[];
  headers: Record<string, string>;
  body: string;
  rate: number;
  seconds: number;
  warmupSeconds: number;
  connections: number;
};

const target = new URL(options.url);
const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
const body = Buffer.from(options.body);
const headers = { ...options.headers, 'content-length': String(body.length) };
const warmup = Math.round(options.rate * options.warmupSeconds);
const total = warmup + Math.round(options.rate * options.seconds);
let sent = 0;
let answered = 0;
let non2xx = 0;
let errors = 0;
/** Lateness of each measured send against its due time, to report how even the pace really was. */
const lateMs: number[] = [];
let measuredFrom = 0;
let measuredTo = 0;

const done = new Promise<void>((resolve) => {
  const send = () => {
    const index = sent++;
    const measured = index >= warmup;
    const settle = (ok: boolean) => {
      if (measured && !ok) non2xx++;
      if (++answered === total) {
        measuredTo = Date.now();
        resolve();
      }
    };
    const path = options.paths[index % options.paths.length]!;
    const req = request({ host: target.hostname, port: target.port, path, method: 'POST', headers, agent }, (res) => {
      const ok = res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300;
      res.resume();
      res.once('end', () => settle(ok));
    });
    req.once('error', () => {
      if (measured) errors++;
      settle(true);
    });
    req.end(body);
  };
  const start = performance.now();
  const dueAt = (index: number) => (index * 1000) / options.rate;
  // Timers fire about every millisecond at best: each tick sends whatever has fallen due since.
  const tick = () => {
    const now = performance.now() - start;
    const due = Math.min(total, Math.floor((now * options.rate) / 1000) + 1);
    while (sent < due) {
      if (sent === warmup) measuredFrom = Date.now();
      if (sent >= warmup) lateMs.push(now - dueAt(sent));
      send();
    }
    if (sent < total) setTimeout(tick, Math.max(0, dueAt(sent) - (performance.now() - start)));
  };
  tick();
});

await done;
agent.destroy();
lateMs.sort((a, b) => a - b);
const measured = total - warmup;
process.stdout.write(
  JSON.stringify({
    requestsPerSecond: measured / ((measuredTo - measuredFrom) / 1000),
    non2xx,
    errors,
    sendLateMs: { median: lateMs[Math.floor(lateMs.length / 2)] ?? 0, p99: lateMs[Math.floor(lateMs.length * 0.99)] ?? 0 },
    measuredFrom,
    measuredTo,
  }),
);
