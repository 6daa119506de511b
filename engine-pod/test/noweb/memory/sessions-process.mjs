// The measured process: only engine hosts (the built engine-pod), no fake server, no test runner.
// Usage: node --expose-gc sessions-process.mjs <SANDBOX|NOWEB> <count> <waUrl>
// Prints JSON lines: {qr, session} for each QR code to scan (NOWEB), then one {memory} line:
// usage before any session, with one (the first: it also warms the library up) paired and idle,
// after that warm-up session, with N sessions paired and idle, with them stopped, and with
// them started again from their stores and idle.
// Scanned QR codes need no answer: the process watches its hosts become WORKING.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_NOWEB_OPTIONS, EngineHost, FileAuthStateStore, NowebEngine, SandboxEngine } from '../../../dist/index.js';

const [engine, countArg, waUrl] = process.argv.slice(2);
const count = Number(countArg);
const silent = { info() {}, warn() {}, error() {} };
const out = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);
const settle = async () => {
  for (let i = 0; i < 4; i++) {
    global.gc();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};
const usage = () => {
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
  return { rss, heapUsed, external, arrayBuffers };
};

const factory =
  engine === 'NOWEB'
    ? (context) => new NowebEngine(context, { ...DEFAULT_NOWEB_OPTIONS, waUrl })
    : (context) => new SandboxEngine(context, { qrRenewMs: 3_600_000, ackDelaysMs: { server: 100, device: 400 } });

// Warm up what every session shares (module code, lazy library state) with one throwaway
// session, so the baseline holds it and the deltas are what sessions add.
const root = mkdtempSync(join(tmpdir(), 'sb-memory-'));
const hosts = [];
const published = { count: 0 };
const makeHost = (name) =>
  new EngineHost({
    session: name,
    engine,
    factory,
    authState: new FileAuthStateStore(join(root, name)),
    metadata: {},
    environment: { tier: 'CORE', version: 'memory' },
    publish: () => {
      published.count++;
    },
    log: silent,
  });

async function pair(host, name) {
  await host.start();
  while (host.status !== 'SCAN_QR_CODE') await new Promise((resolve) => setTimeout(resolve, 5));
  if (engine === 'NOWEB') {
    const { value } = await host.execute({ op: 'auth.qr' });
    out({ qr: value, session: name });
  } else {
    await host.execute({ op: 'sandbox.simulate', args: { kind: 'scan' } });
  }
  while (host.status !== 'WORKING') await new Promise((resolve) => setTimeout(resolve, 5));
}

await settle();
const initial = usage();
const warm = makeHost('warm-up');
await pair(warm, 'warm-up');
await new Promise((resolve) => setTimeout(resolve, 2_000));
await settle();
const warmedUp = usage();
await warm.stop();
await settle();
const baseline = usage();
for (let i = 0; i < count; i++) {
  const host = makeHost(`s${i}`);
  hosts.push(host);
  await pair(host, `s${i}`);
}
// Idle: connected, history and app state synced, nothing happening.
await new Promise((resolve) => setTimeout(resolve, 2_000));
await settle();
const paired = usage();
// The steady state: the same sessions stopped, then started again from their stores (a login,
// no pairing), against the process with them stopped.
for (const host of hosts) await host.stop();
await settle();
const stopped = usage();
for (const host of hosts) await host.start();
for (const host of hosts) while (host.status !== 'WORKING') await new Promise((resolve) => setTimeout(resolve, 5));
await new Promise((resolve) => setTimeout(resolve, 2_000));
await settle();
const restarted = usage();
out({ memory: { engine, count, initial, warmedUp, baseline, paired, stopped, restarted, events: published.count } });
for (const host of hosts) await host.stop();
rmSync(root, { recursive: true, force: true });
process.exit(0);
