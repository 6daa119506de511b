import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SANDBOX_OPTIONS, EngineHost, FileAuthStateStore, SandboxEngine } from '@switchboard/engine-pod';
import { CommandReply, EngineCommand, STREAMS, SUBJECTS } from '@switchboard/protocol';
import { freePort, startNatsServer } from '@switchboard/testkit';
import { connect, type NatsConnection } from 'nats';
import { pino } from 'pino';
import { recordResults } from './results.js';
import { elapsedMs, type Summary, summarize } from './stats.js';
import { numberSetting } from './settings.js';

/**
 * One sendText command, answered by a WORKING SANDBOX engine, two ways in the same run:
 *  - baseline: local mode's command channel, `EngineHost.execute` called directly in process;
 *  - product: cluster mode's command channel, a NATS request to `sb.cmd.<session>` answered by a
 *    real engine pod process (`engine-pod/dist/pod/main.js`) through a real nats-server, the
 *    reply read the way the gateway reads it (JSON, CommandReply schema).
 * Both are measured sequentially (one command at a time) and with IN_FLIGHT commands at once,
 * alternating in rounds so that drift on a busy machine falls on both alike.
 * Target: the NATS round trip adds less than 1 ms to the median (sequential).
 */
const COMMANDS = numberSetting('BENCH_COMMANDS', 5_000);
const WARMUP = numberSetting('BENCH_WARMUP', 500);
const IN_FLIGHT = numberSetting('BENCH_IN_FLIGHT', 16);
const ROUNDS = numberSetting('BENCH_ROUNDS', 5);
const TARGET_ADDED_MEDIAN_MS = 1;
const SESSION = 'bench';
const POD_MAIN = fileURLToPath(new URL('./pod/main.js', import.meta.resolve('@switchboard/engine-pod')));

const SEND = EngineCommand.parse({ op: 'send.text', args: { chatId: '15551234567@c.us', text: 'benchmark message' } });
const SEND_JSON = JSON.stringify(SEND);

type Send = () => Promise<void>;

interface Measured {
  readonly samples: bigint[];
  /** Wall time of the concurrent runs, for their throughput. */
  wallMs: number;
}

async function main(): Promise<void> {
  const log = pino({ level: 'silent' });

  // Baseline: an engine host as local mode builds one (file auth state, SANDBOX), paired.
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-rt-'));
  const host = new EngineHost({
    session: SESSION,
    engine: 'SANDBOX',
    factory: (context) => new SandboxEngine(context, DEFAULT_SANDBOX_OPTIONS),
    authState: new FileAuthStateStore(join(dataDir, 'auth')),
    metadata: {},
    environment: { tier: 'CORE', version: 'bench' },
    // Local mode hands events to its in-process fan-out; with no subscriber that is next to nothing.
    publish: () => {},
    log,
  });
  await host.start();
  await host.execute({ op: 'sandbox.simulate', args: { kind: 'scan' } });
  if (host.status !== 'WORKING') throw new Error(`local host is ${host.status}, not WORKING`);
  const local: Send = async () => {
    await host.execute(SEND);
  };

  // Product: a real nats-server and a real engine pod process, paired the same way.
  const nats = await startNatsServer();
  const healthPort = await freePort();
  const pod = startPod(nats.url, healthPort);
  let nc: NatsConnection | null = null;
  try {
    await waitForReady(pod, healthPort);
    nc = await connect({ servers: nats.url, name: 'bench client' });
    const client = nc;
    const request = async (data: string): Promise<unknown> => {
      const reply = CommandReply.parse(JSON.parse((await client.request(SUBJECTS.command(SESSION), data, { timeout: 10_000 })).string()));
      if (!reply.ok) throw new Error(`engine pod answered ${reply.error.code}: ${reply.error.message}`);
      return reply.result;
    };
    await request(JSON.stringify({ op: 'sandbox.simulate', args: { kind: 'scan' } }));
    const status = (await request(JSON.stringify({ op: 'host.status' }))) as { status: string };
    if (status.status !== 'WORKING') throw new Error(`engine pod is ${status.status}, not WORKING`);
    const remote: Send = async () => {
      await request(SEND_JSON);
    };
    const settle = settler(client);

    // Warm-up: JIT, the connection, the pod's JetStream publisher; not measured.
    for (const send of [local, remote]) {
      await runSequential(send, WARMUP, []);
      await runConcurrent(send, WARMUP, IN_FLIGHT, []);
      await settle();
    }

    const seq = { local: measured(), remote: measured() };
    const con = { local: measured(), remote: measured() };
    const perRound = Math.ceil(COMMANDS / ROUNDS);
    for (let round = 0; round < ROUNDS; round++) {
      await runSequential(local, perRound, seq.local.samples);
      await settle();
      await runSequential(remote, perRound, seq.remote.samples);
      await settle();
    }
    for (let round = 0; round < ROUNDS; round++) {
      con.local.wallMs += await runConcurrent(local, perRound, IN_FLIGHT, con.local.samples);
      await settle();
      con.remote.wallMs += await runConcurrent(remote, perRound, IN_FLIGHT, con.remote.samples);
      await settle();
    }
    print(seq, con);
  } catch (error) {
    process.stderr.write(`engine pod output (last lines):\n${podOutput(pod)}\n`);
    throw error;
  } finally {
    await nc?.close();
    await stopPod(pod);
    await host.stop();
    await nats.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const measured = (): Measured => ({ samples: [], wallMs: 0 });

async function runSequential(send: Send, count: number, samples: bigint[]): Promise<void> {
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    await send();
    samples.push(process.hrtime.bigint() - start);
  }
}

/** `count` commands with `inFlight` outstanding at any time; resolves with the wall time in ms. */
async function runConcurrent(send: Send, count: number, inFlight: number, samples: bigint[]): Promise<number> {
  let started = 0;
  const begin = process.hrtime.bigint();
  const worker = async () => {
    while (started < count) {
      started++;
      const start = process.hrtime.bigint();
      await send();
      samples.push(process.hrtime.bigint() - start);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return elapsedMs(begin);
}

/**
 * Waits until the work a block left behind is done, so that it does not land on the next block:
 * the SANDBOX acknowledges each message after 100 and 400 ms (both hosts), and the pod publishes
 * every event to JetStream one at a time, each waiting for its ack. Done when the ack delay has
 * passed and the events stream has stopped growing.
 */
function settler(nc: NatsConnection): () => Promise<void> {
  return async () => {
    const jsm = await nc.jetstreamManager();
    const count = async () => (await jsm.streams.info(STREAMS.events)).state.messages;
    await new Promise((resolve) => setTimeout(resolve, DEFAULT_SANDBOX_OPTIONS.ackDelaysMs.device + 50));
    let last = await count();
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      const now = await count();
      if (now === last) return;
      last = now;
    }
  };
}

// ---- the engine pod process ----------------------------------------------------------------

const output = new WeakMap<ChildProcess, string[]>();

function startPod(natsUrl: string, healthPort: number): ChildProcess {
  const child = spawn(process.execPath, [POD_MAIN], {
    env: {
      ...process.env,
      SWITCHBOARD_SESSION: SESSION,
      SWITCHBOARD_ENGINE: 'SANDBOX',
      SWITCHBOARD_NATS_URL: natsUrl,
      SWITCHBOARD_HEALTH_PORT: String(healthPort),
      SWITCHBOARD_POD_NAME: 'engine-bench',
      SWITCHBOARD_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  output.set(child, lines);
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString().split('\n').filter(Boolean));
    lines.splice(0, Math.max(0, lines.length - 40));
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  process.once('exit', () => child.kill('SIGKILL'));
  return child;
}

const podOutput = (child: ChildProcess) => (output.get(child) ?? []).join('\n');

/** `/readyz` answers 200 once the pod holds the session lease and its engine host runs. */
async function waitForReady(child: ChildProcess, port: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`engine pod exited with ${child.exitCode}`);
    const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null);
    if (res?.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('engine pod not ready within 30 s');
}

async function stopPod(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

// ---- report ----------------------------------------------------------------------------------

function print(seq: { local: Measured; remote: Measured }, con: { local: Measured; remote: Measured }): void {
  const ms = (value: number) => value.toFixed(3).padStart(8);
  const row = (name: string, s: Summary, wallMs?: number) =>
    `  ${name.padEnd(38)} ${ms(s.medianMs)} ${ms(s.p90Ms)} ${ms(s.p99Ms)}` +
    (wallMs === undefined ? '' : `   ${(s.count / (wallMs / 1000)).toFixed(0).padStart(7)} cmd/s`);
  const header = `  ${''.padEnd(38)} ${'median'.padStart(8)} ${'p90'.padStart(8)} ${'p99'.padStart(8)}   (ms)`;
  const baselineName = 'local: EngineHost.execute';
  const productName = 'cluster: NATS request -> engine pod';

  const sl = summarize(seq.local.samples);
  const sr = summarize(seq.remote.samples);
  const cl = summarize(con.local.samples);
  const cr = summarize(con.remote.samples);
  const addedSeq = sr.medianMs - sl.medianMs;
  const addedCon = cr.medianMs - cl.medianMs;

  console.log(`\nsendText command round trip, SANDBOX, WORKING (${WARMUP} warm-up each, then ${ROUNDS} alternating rounds)`);
  console.log(`sequential: ${sl.count} commands each, one at a time`);
  console.log(header);
  console.log(row(baselineName, sl));
  console.log(row(productName, sr));
  console.log(`  added median (cluster - local): ${addedSeq.toFixed(3)} ms   ratio of medians: ${(sr.medianMs / sl.medianMs).toFixed(1)}x`);
  console.log(`concurrent: ${cl.count} commands each, ${IN_FLIGHT} in flight`);
  console.log(header);
  console.log(row(baselineName, cl, con.local.wallMs));
  console.log(row(productName, cr, con.remote.wallMs));
  console.log(`  added median (cluster - local): ${addedCon.toFixed(3)} ms`);
  console.log(
    `target: added median under ${TARGET_ADDED_MEDIAN_MS} ms (sequential): ${addedSeq < TARGET_ADDED_MEDIAN_MS ? 'met' : 'NOT met'}` +
      `   (at ${IN_FLIGHT} in flight: ${addedCon < TARGET_ADDED_MEDIAN_MS ? 'met' : 'not met'})\n`,
  );
  const rate = (m: Measured) => m.samples.length / (m.wallMs / 1000);
  recordResults('command-round-trip', [
    { name: 'command round trip median, sequential', value: sr.medianMs, unit: 'ms', baseline: sl.medianMs },
    { name: 'command round trip p99, sequential', value: sr.p99Ms, unit: 'ms', baseline: sl.p99Ms },
    // The target is on the difference, so it is its own figure (the baseline is 0 added).
    { name: 'command round trip added median, sequential', value: addedSeq, unit: 'ms', target: { of: 'value', atMost: TARGET_ADDED_MEDIAN_MS } },
    { name: `command round trip median, ${IN_FLIGHT} in flight`, value: cr.medianMs, unit: 'ms', baseline: cl.medianMs },
    { name: `command round trip p99, ${IN_FLIGHT} in flight`, value: cr.p99Ms, unit: 'ms', baseline: cl.p99Ms },
    { name: `commands per second, ${IN_FLIGHT} in flight`, value: rate(con.remote), unit: '/s', baseline: rate(con.local) },
  ]);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
