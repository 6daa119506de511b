import Fastify, { type FastifyInstance } from 'fastify';
import { type LoadResult, runLoad } from './load.js';
import { startBenchGateway } from './local-gateway.js';
import { recordResults } from './results.js';
import { numberSetting } from './settings.js';

/**
 * sendText through the whole local-mode gateway (auth, validation, engine host, SANDBOX, event
 * fan-out, event log, history) beside a bare fastify route answering the same JSON, in the same
 * run. Target (issue 2): at least half of the bare route's throughput.
 *
 * Beside them, calibration routes: the bare route doing a fixed amount of extra work per request
 * (a busy loop of N µs). Their ratios show what "half the bare route" allows on the machine the
 * bench runs on: on a 2-core machine the load generator takes a core, and a response that wakes
 * it costs the server more the busier the server is, so the budget is far smaller than "twice
 * the bare route's CPU". Each side also reports the CPU time the bench process spent per request
 * (all its threads: the gateway's writer thread included), which a busy machine disturbs less
 * than the rates.
 */
const SECONDS = numberSetting('BENCH_SECONDS', 3);
const ROUNDS = numberSetting('BENCH_ROUNDS', 5);
const CONNECTIONS = numberSetting('BENCH_CONNECTIONS', 32);
/** Extra work of each calibration route, µs; 0 runs none. */
const CALIBRATION_US = numberSetting('BENCH_CALIBRATION_US', 20);
const KEY = 'bench-key';

/** One measured run, with the process's CPU time per request during it. */
interface Measured extends LoadResult {
  readonly cpuMicrosPerRequest: number;
}

interface Side {
  readonly name: string;
  readonly url: string;
  readonly runs: Measured[];
}

async function main(): Promise<void> {
  const gateway = await startBenchGateway(KEY);
  const gatewayUrl = gateway.url;
  const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };
  const call = (method: string, path: string, body?: unknown) =>
    fetch(gatewayUrl + path, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
  await call('POST', '/api/sessions', { name: 'bench' });
  await waitForStatus(gatewayUrl, 'SCAN_QR_CODE');
  await call('POST', '/api/bench/sandbox/simulate', { kind: 'scan' });
  const body = JSON.stringify({ session: 'bench', chatId: '15551234567@c.us', text: 'benchmark message' });
  const sample = await (await call('POST', '/api/sendText', JSON.parse(body))).text();

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

  const bare: Side = { name: 'bare fastify route', url: await bareRoute(0), runs: [] };
  const product: Side = { name: 'switchboard /api/sendText', url: gatewayUrl, runs: [] };
  const calibration: Side | null =
    CALIBRATION_US > 0 ? { name: `bare route + ${CALIBRATION_US} µs of work`, url: await bareRoute(CALIBRATION_US), runs: [] } : null;
  const sides = [bare, ...(calibration ? [calibration] : []), product];

  const load = async (side: Side, seconds = SECONDS): Promise<Measured> => {
    const before = process.cpuUsage();
    const started = performance.now();
    const result = await runLoad({ url: `${side.url}/api/sendText`, method: 'POST', headers, body, seconds, connections: CONNECTIONS });
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

  print(bare, calibration, product);
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

function print(bare: Side, calibration: Side | null, product: Side): void {
  const bareCpu = median(bare.runs.map((run) => run.cpuMicrosPerRequest));
  const row = (side: Side) => {
    const r = medianRun(side.runs);
    const cpu = median(side.runs.map((run) => run.cpuMicrosPerRequest));
    return (
      `${side.name.padEnd(30)} ${r.requestsPerSecond.toFixed(0).padStart(7)} req/s   p50 ${r.latencyMs.p50.toFixed(2).padStart(6)} ms` +
      `   p99 ${r.latencyMs.p99.toFixed(2).padStart(6)} ms   CPU ${cpu.toFixed(0).padStart(4)} µs/req` +
      (side === bare ? '' : ` (+${(cpu - bareCpu).toFixed(0)})`) +
      `   non-2xx ${r.non2xx}   errors ${r.errors}`
    );
  };
  const ratios = ratiosOf(product, bare);
  const ratio = median(ratios);
  console.log(`\nsendText, SANDBOX, local mode (${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s per side; median rounds)`);
  console.log(row(bare));
  if (calibration) console.log(row(calibration));
  console.log(row(product));
  console.log(`ratio per round: ${ratios.map((r) => r.toFixed(2)).join(' ')}`);
  console.log(
    `throughput ratio (switchboard / bare, median of the rounds): ${ratio.toFixed(2)}   target >= 0.50: ${ratio >= 0.5 ? 'met' : 'NOT met'}`,
  );
  if (calibration) {
    console.log(
      `calibration: the bare route with ${CALIBRATION_US} µs of extra work per request reaches ${median(ratiosOf(calibration, bare)).toFixed(2)} of the bare route on this machine`,
    );
  }
  console.log(`added median latency: ${(medianRun(product.runs).latencyMs.p50 - medianRun(bare.runs).latencyMs.p50).toFixed(2)} ms\n`);
  const p = medianRun(product.runs);
  const b = medianRun(bare.runs);
  const cpu = (side: Side) => median(side.runs.map((run) => run.cpuMicrosPerRequest));
  recordResults('send-text', [
    {
      name: 'sendText throughput',
      value: p.requestsPerSecond,
      unit: 'req/s',
      baseline: b.requestsPerSecond,
      ratio,
      target: { of: 'ratio', atLeast: 0.5 },
    },
    { name: 'sendText latency p50', value: p.latencyMs.p50, unit: 'ms', baseline: b.latencyMs.p50 },
    { name: 'sendText latency p99', value: p.latencyMs.p99, unit: 'ms', baseline: b.latencyMs.p99 },
    { name: 'sendText CPU per request', value: cpu(product), unit: 'µs', baseline: cpu(bare) },
  ]);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
