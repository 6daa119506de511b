import { writeFileSync } from 'node:fs';
import { type PublishedEvent, sessionAccess } from '@switchboard/gateway';
import type { MessageRecord } from '@switchboard/protocol';
import Fastify, { type FastifyInstance } from 'fastify';
import { monotonicFactory } from 'ulid';
import { costsReport, profiled, topCosts } from './cpu-profile.js';
import { type LoadResult, runLoad } from './load.js';
import { startBenchGateway } from './local-gateway.js';
import { recordResults } from './results.js';
import { numberSetting } from './settings.js';

/**
 * sendText through the whole local-mode gateway (auth, validation, engine host, SANDBOX, event
 * fan-out, event log, history) beside a baseline that does the work every send must do, in the
 * same run (issue 17): a route on the same gateway's app (the same fastify, logger, body parser
 * and key check) that looks the key up, inserts one message into the history and appends one
 * event to the event log, in the same SQLite files through the same writers, and answers the
 * same JSON. Target: sendText at least 0.7 of its throughput.
 *
 * Beside them, for reference: a bare fastify route answering the same JSON (issue 2's old
 * baseline), and a calibration route, the bare route with a fixed busy loop per request, which
 * shows what a ratio means on the machine the bench runs on (on a 2-core machine the load
 * generator takes a core). Each side also reports the CPU time the bench process spent per
 * request (all its threads: the gateway's writer thread included), which a busy machine disturbs
 * less than the rates. Then one more sendText run under the CPU profiler, whose top costs it prints
 * (`BENCH_CPU_PROFILE` names a file to write the profile to, for Chrome's DevTools).
 */
const SECONDS = numberSetting('BENCH_SECONDS', 3);
const ROUNDS = numberSetting('BENCH_ROUNDS', 5);
const CONNECTIONS = numberSetting('BENCH_CONNECTIONS', 32);
/** Extra work of each calibration route, µs; 0 runs none. */
const CALIBRATION_US = numberSetting('BENCH_CALIBRATION_US', 20);
const KEY = 'bench-key';
const TARGET = 0.7;
const BASELINE_URL = '/api/bench/sendBaseline';

/** One measured run, with the process's CPU time per request during it. */
interface Measured extends LoadResult {
  readonly cpuMicrosPerRequest: number;
}

interface Side {
  readonly name: string;
  readonly url: string;
  readonly path: string;
  readonly runs: Measured[];
}

async function main(): Promise<void> {
  // What the baseline route writes: the send's event and its history record, once the sample send made them.
  let sent: PublishedEvent | null = null;
  let record: MessageRecord | null = null;
  let sample = '';
  const gateway = await startBenchGateway(KEY, ({ app, history, events }) => {
    events.subscribe((event) => {
      sent ??= event;
    });
    // The send's necessary work, as the gateway does it: the key check (the route guard, as on
    // every /api route), one history insert and one event log append (through the writers the
    // bus's consumers use), the same answer. Ids are fresh each time, as a send's are.
    const nextId = monotonicFactory();
    app.post(BASELINE_URL, { config: sessionAccess('use', 'body.session') }, async (request, reply) => {
      const { session, chatId } = request.body as { session: string; chatId: string };
      const id = nextId();
      await history.messages.put(session, chatId, id, { ...record!, id: `true_${chatId}_${id}` });
      const envelope = { ...sent!.envelope, id };
      history.eventLog.append({ envelope, json: JSON.stringify(envelope) });
      return reply.code(201).type('application/json').send(sample);
    });
  });
  const gatewayUrl = gateway.url;
  const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };
  const call = (method: string, path: string, body?: unknown) =>
    fetch(gatewayUrl + path, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
  await call('POST', '/api/sessions', { name: 'bench' });
  await waitForStatus(gatewayUrl, 'SCAN_QR_CODE');
  await call('POST', '/api/bench/sandbox/simulate', { kind: 'scan' });
  const chatId = '15551234567@c.us';
  const body = JSON.stringify({ session: 'bench', chatId, text: 'benchmark message' });
  sent = null;
  sample = await (await call('POST', '/api/sendText', JSON.parse(body))).text();
  if (sent === null) throw new Error('sendText published no event');
  for (let i = 0; i < 100 && record === null; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    [record = null] = await gateway.gateway.history.messages.query('bench', [chatId], { limit: 1, offset: 0, sortOrder: 'desc' });
  }
  if (record === null) throw new Error('sendText recorded no history');

  const servers: FastifyInstance[] = [];
  const bareRoute = async (workMicros: number): Promise<string> => {
    const server = Fastify();
    server.post('/api/sendText', async (_request, reply) => {
      if (workMicros > 0) busyFor(workMicros);
      return reply.code(201).type('application/json').send(sample);
    });
    servers.push(server);
    return server.listen({ port: 0, host: '127.0.0.1' });
  };

  const bare: Side = { name: 'bare fastify route', url: await bareRoute(0), path: '/api/sendText', runs: [] };
  const baseline: Side = { name: 'baseline: key, history, event log', url: gatewayUrl, path: BASELINE_URL, runs: [] };
  const product: Side = { name: 'switchboard /api/sendText', url: gatewayUrl, path: '/api/sendText', runs: [] };
  const calibration: Side | null =
    CALIBRATION_US > 0
      ? { name: `bare route + ${CALIBRATION_US} µs of work`, url: await bareRoute(CALIBRATION_US), path: '/api/sendText', runs: [] }
      : null;
  const sides = [bare, ...(calibration ? [calibration] : []), baseline, product];

  const load = async (side: Side, seconds = SECONDS): Promise<Measured> => {
    const before = process.cpuUsage();
    const started = performance.now();
    const result = await runLoad({ url: `${side.url}${side.path}`, method: 'POST', headers, body, seconds, connections: CONNECTIONS });
    const cpu = process.cpuUsage(before);
    const requests = result.requestsPerSecond * ((performance.now() - started) / 1000);
    return { ...result, cpuMicrosPerRequest: (cpu.user + cpu.system) / Math.max(1, requests) };
  };
  // Warm every side up (JIT, connection pools) before measuring.
  for (const side of sides) await load(side, 2);
  // Each round measures every side back to back, so a slow spell of the machine (2 cores, shared
  // with the load generator and whatever else runs) hits them alike; a ratio is the median of
  // the rounds' ratios, not of two medians that may come from different spells. The order
  // reverses every round, so no side always gets another's leftovers.
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) side.runs.push(await load(side));
  }
  // Not one of the measured runs: the profiler's sampling costs time of its own.
  const { profile } = await profiled(() => load(product));
  if (process.env.BENCH_CPU_PROFILE) writeFileSync(process.env.BENCH_CPU_PROFILE, JSON.stringify(profile));

  print(bare, calibration, baseline, product, topCosts(profile));
  for (const server of servers) await server.close();
  await gateway.close();
}
/** Keeps the thread busy for `micros`, as a route doing that much work would. */
function busyFor(micros: number): void {
  const until = performance.now() + micros / 1000;
  while (performance.now() < until) {
    // spin
  }
}

async function waitForStatus(url: string, status: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const res = await fetch(`${url}/api/sessions/bench`, { headers: { 'x-api-key': KEY } });
    if (((await res.json()) as { status: string }).status === status) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`session never reached ${status}`);
}

/** The run with the median throughput. */
function medianRun(runs: readonly Measured[]): Measured {
  const sorted = [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Per round, this side's throughput over the bare route's. */
const ratiosOf = (side: Side, bare: Side) => side.runs.map((run, round) => run.requestsPerSecond / bare.runs[round]!.requestsPerSecond);

function print(bare: Side, calibration: Side | null, baseline: Side, product: Side, costs: ReturnType<typeof topCosts>): void {
  const cpu = (side: Side) => median(side.runs.map((run) => run.cpuMicrosPerRequest));
  const row = (side: Side) => {
    const r = medianRun(side.runs);
    return (
      `${side.name.padEnd(34)} ${r.requestsPerSecond.toFixed(0).padStart(7)} req/s   p50 ${r.latencyMs.p50.toFixed(2).padStart(6)} ms` +
      `   p99 ${r.latencyMs.p99.toFixed(2).padStart(6)} ms   CPU ${cpu(side).toFixed(0).padStart(4)} µs/req` +
      `   non-2xx ${r.non2xx}   errors ${r.errors}`
    );
  };
  const ratios = ratiosOf(product, baseline);
  const ratio = median(ratios);
  const overBare = median(ratiosOf(product, bare));
  const baselineOverBare = median(ratiosOf(baseline, bare));
  console.log(`\nsendText, SANDBOX, local mode (${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s per side; median rounds)`);
  console.log(row(bare));
  if (calibration) console.log(row(calibration));
  console.log(row(baseline));
  console.log(row(product));
  console.log(`ratio to the baseline per round: ${ratios.map((r) => r.toFixed(2)).join(' ')}`);
  console.log(
    `throughput ratio (switchboard / baseline, median of the rounds): ${ratio.toFixed(2)}   target >= ${TARGET}: ${ratio >= TARGET ? 'met' : 'NOT met'}`,
  );
  console.log(
    `CPU per request: sendText ${cpu(product).toFixed(0)} µs, baseline ${cpu(baseline).toFixed(0)} µs (+${(cpu(product) - cpu(baseline)).toFixed(0)}), ` +
      `bare route ${cpu(bare).toFixed(0)} µs`,
  );
  console.log(`for reference: sendText / bare route ${overBare.toFixed(2)}, baseline / bare route ${baselineOverBare.toFixed(2)}`);
  if (calibration) {
    console.log(
      `calibration: the bare route with ${CALIBRATION_US} µs of extra work per request reaches ${median(ratiosOf(calibration, bare)).toFixed(2)} of the bare route on this machine`,
    );
  }
  console.log(`${costsReport("sendText's", 'one more run', costs)}\n`);
  const p = medianRun(product.runs);
  const b = medianRun(baseline.runs);
  recordResults('send-text', [
    {
      name: 'sendText throughput',
      value: p.requestsPerSecond,
      unit: 'req/s',
      baseline: b.requestsPerSecond,
      ratio,
      target: { of: 'ratio', atLeast: TARGET },
    },
    {
      name: 'sendText throughput against a bare route',
      value: p.requestsPerSecond,
      unit: 'req/s',
      baseline: medianRun(bare.runs).requestsPerSecond,
      ratio: overBare,
    },
    { name: 'sendText latency p50', value: p.latencyMs.p50, unit: 'ms', baseline: b.latencyMs.p50 },
    { name: 'sendText latency p99', value: p.latencyMs.p99, unit: 'ms', baseline: b.latencyMs.p99 },
    { name: 'sendText CPU per request', value: cpu(product), unit: 'µs', baseline: cpu(baseline) },
    ...costs.byPlace.slice(0, 3).map((c, i) => ({ name: `sendText profile cost ${i + 1}: ${c.name}`, value: c.share * 100, unit: '% of samples' })),
  ]);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
