import Fastify from 'fastify';
import { type LoadResult, runLoad } from './load.js';
import { startBenchGateway } from './local-gateway.js';
import { numberSetting } from './settings.js';

/**
 * sendText through the whole local-mode gateway (auth, validation, engine host, SANDBOX, event
 * fan-out) beside a bare fastify route answering the same JSON, in the same run.
 * Target (issue 2): at least half of the bare route's throughput.
 */
const SECONDS = numberSetting('BENCH_SECONDS', 3);
const ROUNDS = numberSetting('BENCH_ROUNDS', 5);
const CONNECTIONS = numberSetting('BENCH_CONNECTIONS', 32);
const KEY = 'bench-key';

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

  const bare = Fastify();
  bare.post('/api/sendText', async (_request, reply) => reply.code(201).type('application/json').send(sample));
  const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });

  const load = (url: string) =>
    runLoad({ url: `${url}/api/sendText`, method: 'POST', headers, body, seconds: SECONDS, connections: CONNECTIONS });
  // Warm both up (JIT, connection pools) before measuring.
  await runLoad({ url: `${bareUrl}/api/sendText`, method: 'POST', headers, body, seconds: 2, connections: CONNECTIONS });
  await runLoad({ url: `${gatewayUrl}/api/sendText`, method: 'POST', headers, body, seconds: 2, connections: CONNECTIONS });
  // Each round measures both sides back to back, so a slow spell of the machine (2 cores, shared
  // with the load generator and whatever else runs) hits the pair alike; the ratio is the median
  // of the rounds' ratios, not of two medians that may come from different spells. Which side
  // goes first alternates, so neither always gets the other's leftovers.
  const baselines: LoadResult[] = [];
  const products: LoadResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      baselines.push(await load(bareUrl));
      products.push(await load(gatewayUrl));
    } else {
      products.push(await load(gatewayUrl));
      baselines.push(await load(bareUrl));
    }
  }
  const ratios = products.map((product, round) => product.requestsPerSecond / baselines[round]!.requestsPerSecond);

  print(medianRun(baselines), medianRun(products), ratios);
  await bare.close();
  await gateway.close();
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
function medianRun(runs: LoadResult[]): LoadResult {
  const sorted = [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function print(baseline: LoadResult, product: LoadResult, ratios: readonly number[]): void {
  const row = (name: string, r: LoadResult) =>
    `${name.padEnd(28)} ${r.requestsPerSecond.toFixed(0).padStart(8)} req/s   p50 ${r.latencyMs.p50.toFixed(2).padStart(6)} ms   p99 ${r.latencyMs.p99.toFixed(2).padStart(6)} ms   non-2xx ${r.non2xx}   errors ${r.errors}`;
  const ratio = median(ratios);
  console.log(`\nsendText, SANDBOX, local mode (${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s per side; median rounds)`);
  console.log(row('bare fastify route', baseline));
  console.log(row('switchboard /api/sendText', product));
  console.log(`ratio per round: ${ratios.map((r) => r.toFixed(2)).join(' ')}`);
  console.log(`throughput ratio (switchboard / bare, median of the rounds): ${ratio.toFixed(2)}   target >= 0.50: ${ratio >= 0.5 ? 'met' : 'NOT met'}`);
  console.log(`added median latency: ${(product.latencyMs.p50 - baseline.latencyMs.p50).toFixed(2)} ms\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
