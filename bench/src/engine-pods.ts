import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_ENGINE_RESOURCES, engineNodeOptions } from '@switchboard/operator';
import { chromiumPathFromEnv } from '@switchboard/engine-pod';
import { BUILT_ENGINES, type BuiltEngine, CommandReply, ENGINE_CATALOG, STREAMS, SUBJECTS } from '@switchboard/protocol';
import { freePort, type NatsServer, startNatsServer } from '@switchboard/testkit';
import { connect, type NatsConnection } from 'nats';
import { type FakeWaServer, startFakeWa } from './engine-pod-sources.js';
import { PROBE_SCRIPT, type Probe, printImportCosts, printProbe, summarizeSnapshot } from './engine-pod-breakdown.js';
import { LoopbackWeb } from './loopback-web.js';
import { peakRss, treeCpuSeconds, type TreeMemory, TreeMemorySampler, treeMemory } from './process-tree-memory.js';
import { type FigureInput, recordResults } from './results.js';
import { numberSetting } from './settings.js';

/**
 * What one engine pod needs, measured on the engine pod process itself (`engine-pod/dist/pod/main.js`,
 * the images' entry point) with everything it talks to on loopback: a real nats-server, the fake
 * WhatsApp Web server (NOWEB), and for WEBJS Debian's chromium behind a loopback proxy that
 * serves one page for every address (loopback-web.ts). For each engine:
 *  - time from spawn to `/healthz` answering, to `/readyz` (lease held, engine started), and to
 *    WORKING (SANDBOX: a simulated scan; NOWEB and GOWS: the fake's phone scans the QR code) or, WEBJS, to
 *    Chromium's first page request; then the same again for restarts of the paired session
 *    (`BENCH_POD_RESTARTS`, no QR code), and the time a SIGTERM takes to end the pod;
 *  - idle memory: the pod's process tree (Chromium included) once WORKING and quiet;
 *  - the send round trip (not WEBJS): `BENCH_POD_ROUND_TRIPS` send.text commands one at a time,
 *    each answered once the server (the fake, for NOWEB and GOWS) acknowledged it;
 *  - busy memory (SANDBOX, NOWEB, GOWS): the peak while `BENCH_POD_BURST` messages are sent (16 commands
 *    in flight) while as many arrive, until every event is in JetStream. WEBJS has no busy figure:
 *    without WhatsApp Web (the internet) it has nothing to send or receive.
 * Memory is the sum over the process tree of RSS, of PSS and of anonymous memory
 * (process-tree-memory.ts), plus the node process's own peak RSS (VmHWM). The data goes to stdout as JSON (`engine-pods data:`) and
 * to `BENCH_OUTPUT` (default .cache/bench/engine-pods.json). docs/operations.md's sizing table and
 * the engine catalog's pod sizes (protocol/src/engine-catalog.ts), the operator's defaults, come from these figures.
 * There is no baseline to divide by: these are absolute figures for sizing, not a comparison.
 */
const BURST = numberSetting('BENCH_POD_BURST', 1_000);
const RESTARTS = numberSetting('BENCH_POD_RESTARTS', 3);
const IN_FLIGHT = 16;
/** The sweep's bursts: smaller, there are many of them. */
const SWEEP_BURST = numberSetting('BENCH_POD_SWEEP_BURST', 300);
const IDLE_SETTLE_MS = numberSetting('BENCH_POD_IDLE_SETTLE_MS', 5_000);
const POD_MAIN = fileURLToPath(new URL('./pod/main.js', import.meta.resolve('@switchboard/engine-pod')));
const CHROMIUM = chromiumPathFromEnv(process.env);
const OUTPUT = process.env.BENCH_OUTPUT ?? fileURLToPath(new URL('../../.cache/bench/engine-pods.json', import.meta.url));
const CONTACT = '15551230001';
/**
 * Every engine of the build (protocol's catalog), the browser ones last, and GOWS twice: in the
 * Node engine pod, which runs the Go engine as its child (`GOWS`), and as the Go engine pod of its
 * own image (`GOWS-GO`: `switchboard-gows nats`, no Node).
 */
type Engine = BuiltEngine | 'GOWS-GO';
/** The engines that drive Chromium (the catalog's `browser` image): measured on a loopback page, never paired here. */
const isBrowser = (engine: Engine) => engine !== 'GOWS-GO' && ENGINE_CATALOG[engine].image === 'browser';
const browserLast = (a: BuiltEngine, b: BuiltEngine) => Number(ENGINE_CATALOG[a].image === 'browser') - Number(ENGINE_CATALOG[b].image === 'browser');
const ENGINES: readonly Engine[] = [...BUILT_ENGINES]
  .sort(browserLast)
  .flatMap((engine): Engine[] => (engine === 'GOWS' ? ['GOWS', 'GOWS-GO'] : [engine]));
/** Sends one after the other, each answered once the server acknowledged it: the send round trip through the fake server. */
const ROUND_TRIPS = numberSetting('BENCH_POD_ROUND_TRIPS', 50);
/** `BENCH_POD_ENGINES`: a comma-separated few of them; all when unset. */
const PICKED = process.env.BENCH_POD_ENGINES?.split(',').map((name) => name.trim());
/** The Go engine's binary (`make build` puts it there); GOWS is measured when it exists. */
const GOWS_BIN = process.env.SWITCHBOARD_GOWS_BIN ?? fileURLToPath(new URL('../../engines/gows/bin/switchboard-gows', import.meta.url));
/** `BENCH_POD_BREAKDOWN=0` skips the breakdown (a probed pod per engine, a heap snapshot, the import costs). */
const BREAKDOWN = process.env.BENCH_POD_BREAKDOWN !== '0';
/**
 * V8 flag sets measured beside the operator's (`BENCH_POD_FLAG_SWEEP=0` skips them): the idle
 * and busy memory and the busy CPU of SANDBOX and NOWEB pods run with each instead.
 */
const FLAG_SWEEP = process.env.BENCH_POD_FLAG_SWEEP !== '0';
const SWEPT_FLAGS = ['', '--max-semi-space-size=1', '--max-semi-space-size=2', '--lite-mode', '--jitless', '--optimize-for-size', '--no-opt'];
/** What the operator gives each engine's pod (NODE_OPTIONS, from its default memory limit): the bench runs pods as the operator does. */
const podNodeOptions = (engine: Engine) => {
  // GOWS-GO runs no Node: the Go binary ignores NODE_OPTIONS.
  const node = engine === 'GOWS-GO' ? 'GOWS' : engine;
  return engineNodeOptions(node, DEFAULT_ENGINE_RESOURCES[node]);
};

interface StartTimes {
  readonly healthyMs: number;
  readonly readyMs: number;
  /** To WORKING, or for WEBJS to the first page Chromium asked for. */
  readonly workingMs: number;
}

interface EngineFigures {
  readonly engine: Engine;
  readonly firstStart: StartTimes;
  readonly restarts: StartTimes[];
  readonly stopMs: number;
  /** The median and 95th percentile of a send.text command's reply, in ms, sends one at a time; null for WEBJS. */
  readonly sendRoundTrip: { readonly medianMs: number; readonly p95Ms: number } | null;
  /** `cores`: CPU time over wall time while measured (1 = one core busy). */
  readonly idle: TreeMemory & { readonly cores: number };
  readonly idleNodePeakRss: number;
  readonly busy:
    | (TreeMemory & {
        readonly cores: number;
        readonly nodePeakRss: number;
        readonly messages: number;
        readonly notStored: number;
        readonly seconds: number;
        /** The slowest `/healthz` answer while busy, in ms: what a liveness probe's timeout must allow. */
        readonly slowestHealthzMs: number;
      })
    | null;
  readonly note?: string;
}

interface Harness {
  readonly nats: NatsServer;
  readonly nc: NatsConnection;
  readonly fake: FakeWaServer;
  /** GOWS's fake, with signal sessions for its contacts; null without the binary. */
  readonly gowsFake: FakeWaServer | null;
  readonly web: LoopbackWeb | null;
  readonly dir: string;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-bench-pods-'));
  const nats = await startNatsServer();
  const fake = await startFakeWa();
  const gowsFake = existsSync(GOWS_BIN) ? await startFakeWa({ signal: true }) : null;
  // whatsmeow sends to the contact's LID, which it looks up: the fake must know one.
  gowsFake?.contact(CONTACT, '245120000000001');
  const web = existsSync(CHROMIUM) ? await LoopbackWeb.start(dir, CHROMIUM) : null;
  const nc = await connect({ servers: nats.url, name: 'bench client' });
  const harness: Harness = { nats, nc, fake, gowsFake, web, dir };
  const figures: EngineFigures[] = [];
  const probes: [Engine, Probe, string[]][] = [];
  const sweep: SweepRow[] = [];
  try {
    for (const engine of ENGINES) {
      if (PICKED && !PICKED.includes(engine)) continue;
      if (isBrowser(engine) && !web) {
        console.error(`${engine} skipped: no chromium at ${CHROMIUM} (scripts/ensure-chromium.sh)`);
        continue;
      }
      if ((engine === 'GOWS' || engine === 'GOWS-GO') && !gowsFake) {
        console.error(`GOWS skipped: no ${GOWS_BIN} (make build)`);
        continue;
      }
      const started = performance.now();
      figures.push(await measureEngine(harness, engine));
      console.error(`${engine} measured in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      if (BREAKDOWN && !isBrowser(engine) && engine !== 'GOWS-GO') probes.push([engine, ...(await probeEngine(harness, engine))]);
      if (FLAG_SWEEP && (engine === 'SANDBOX' || engine === 'NOWEB')) {
        for (const flags of SWEPT_FLAGS) sweep.push(await sweepPoint(harness, engine, flags));
      }
    }
  } finally {
    await nc.close();
    await web?.close();
    await fake.close();
    await gowsFake?.close();
    await nats.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  print(figures, web);
  for (const [engine, probe, snapshot] of probes) printProbe(engine, probe, snapshot);
  if (BREAKDOWN) await printImportCosts(podNodeOptions('NOWEB').split(' '));
  if (sweep.length > 0) printSweep(sweep);
  const data = { measuredAt: new Date().toISOString(), burst: BURST, restarts: RESTARTS, engines: figures };
  mkdirSync(dirname(OUTPUT), { recursive: true });
  writeFileSync(OUTPUT, `${JSON.stringify(data, null, 2)}\n`);
  console.log(`engine-pods data: ${JSON.stringify(data)}`);
  console.log(`(written to ${OUTPUT})`);
  recordResults('engine-pods', figures.flatMap(asFigures));
}

/** Issue 17's targets for an idle engine pod process (WORKING, connected); the others are sized, not held to one. */
const IDLE_RSS_TARGET_MIB: Partial<Record<Engine, number>> = { NOWEB: 64, SANDBOX: 50, 'GOWS-GO': 25 };

function asFigures(f: EngineFigures): FigureInput[] {
  const inMib = (bytes: number) => bytes / 1024 / 1024;
  const target = IDLE_RSS_TARGET_MIB[f.engine];
  return [
    {
      name: `${f.engine} engine pod idle RSS`,
      value: inMib(f.idle.rss),
      unit: 'MiB',
      ...(target ? { target: { of: 'value', atMost: target } } : {}),
    },
    { name: `${f.engine} engine pod idle PSS`, value: inMib(f.idle.pss), unit: 'MiB' },
    ...(f.busy ? [{ name: `${f.engine} engine pod busy RSS`, value: inMib(f.busy.rss), unit: 'MiB' }] : []),
    { name: `${f.engine} engine pod spawn to WORKING`, value: f.firstStart.workingMs / 1000, unit: 's' },
    ...(f.sendRoundTrip ? [{ name: `${f.engine} send round trip (median)`, value: f.sendRoundTrip.medianMs, unit: 'ms' }] : []),
  ];
}

/** The fake phone of each paired engine's account: restarted pods reconnect as the same device. */
const phones = new Map<Engine, Pod['phone']>();
const sessionOf = (engine: Engine) => `sizing-${engine.toLowerCase()}`;

async function measureEngine(h: Harness, engine: Engine): Promise<EngineFigures> {
  const session = sessionOf(engine);
  const pod = await Pod.start(h, engine, session);
  try {
    const firstStart = await pod.untilWorking(h, true);
    phones.set(engine, pod.phone);
    await sleep(IDLE_SETTLE_MS);
    const idle = await idleMemory(pod.pid);
    const idleNodePeakRss = peakRss(pod.pid);
    const sendRoundTrip = isBrowser(engine) ? null : await roundTrips(h, session);
    const busy = isBrowser(engine) ? null : await burst(h, pod, engine, session);
    const stopMs = await pod.stop();
    const restarts: StartTimes[] = [];
    // A browser engine never pairs here, so its restarts would measure the same first start again.
    for (let i = 0; i < (isBrowser(engine) ? 0 : RESTARTS); i++) {
      const again = await Pod.start(h, engine, session);
      try {
        restarts.push(await again.untilWorking(h, false));
      } finally {
        await again.stop();
      }
    }
    return {
      engine,
      firstStart,
      restarts,
      stopMs,
      sendRoundTrip,
      idle,
      idleNodePeakRss,
      busy,
      ...(isBrowser(engine) ? { note: 'Chromium with one loopback page; WhatsApp Web itself (the internet) not loaded' } : {}),
    };
  } catch (error) {
    process.stderr.write(`${engine} engine pod output (last lines):\n${pod.output.slice(-30).join('\n')}\n`);
    throw error;
  } finally {
    await pod.stop();
  }
}

/**
 * The breakdown: one more pod of the (paired) session with pod-probe.ts loaded, asked once WORKING
 * and idle for what it holds and for a heap snapshot. Not the pod measured above: the probe's
 * module hook and the snapshot would change what it measured.
 */
async function probeEngine(h: Harness, engine: Engine): Promise<[Probe, string[]]> {
  const out = join(h.dir, `${engine}-probe.json`);
  const snapshot = join(h.dir, `${engine}.heapsnapshot`);
  const pod = await Pod.start(h, engine, sessionOf(engine), { nodeArgs: ['--import', PROBE_SCRIPT], probeOut: out, snapshot });
  try {
    await pod.untilWorking(h, false);
    await sleep(IDLE_SETTLE_MS);
    process.kill(pod.pid, 'SIGUSR2');
    // `out` appears once the snapshot is written too.
    await pod.waitFor('the probe', () => existsSync(out), 60_000);
    return [JSON.parse(readFileSync(out, 'utf8')) as Probe, summarizeSnapshot(snapshot)];
  } finally {
    await pod.stop();
  }
}

type SweepRow = { readonly engine: Engine; readonly flags: string } & (
  | { readonly idle: TreeMemory; readonly busy: NonNullable<EngineFigures['busy']> }
  /** The engine does not run with these flags (NOWEB's Baileys needs WebAssembly, which --jitless and --lite-mode turn off). */
  | { readonly failed: string }
);

/** The paired session again, its node run with `flags` instead of the operator's NODE_OPTIONS: idle memory, then a burst. */
async function sweepPoint(h: Harness, engine: Engine, flags: string): Promise<SweepRow> {
  // On the command line: NODE_OPTIONS refuses some V8 flags (--lite-mode, --no-opt).
  const pod = await Pod.start(h, engine, sessionOf(engine), { nodeOptions: '', nodeArgs: flags.split(' ').filter(Boolean) });
  try {
    await pod.untilWorking(h, false);
    pod.phone = phones.get(engine) ?? null;
    await sleep(IDLE_SETTLE_MS);
    const idle = await idleMemory(pod.pid);
    const busy = await burst(h, pod, engine, sessionOf(engine), SWEEP_BURST);
    return { engine, flags, idle, busy };
  } catch (error) {
    const said = pod.output.findLast((line) => /error/i.test(line)) ?? String(error);
    return { engine, flags, failed: said.slice(0, 160) };
  } finally {
    await pod.stop();
  }
}

/** The median of ten samples over three seconds (the pod's steady figure, not one moment's), and the CPU it used meanwhile. */
async function idleMemory(pid: number): Promise<EngineFigures['idle']> {
  const samples: TreeMemory[] = [];
  const cpuBefore = treeCpuSeconds(pid);
  const started = performance.now();
  for (let i = 0; i < 10; i++) {
    samples.push(treeMemory(pid));
    await sleep(300);
  }
  const cores = (treeCpuSeconds(pid) - cpuBefore) / ((performance.now() - started) / 1000);
  const median = (pick: (m: TreeMemory) => number) => samples.map(pick).sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
  return { rss: median((m) => m.rss), pss: median((m) => m.pss), anon: median((m) => m.anon), processes: median((m) => m.processes), cores };
}

/** ROUND_TRIPS texts, one after the other: each reply comes once the server (the fake, or the SANDBOX) acknowledged the send. */
async function roundTrips(h: Harness, session: string): Promise<NonNullable<EngineFigures['sendRoundTrip']>> {
  const times: number[] = [];
  for (let i = 0; i < ROUND_TRIPS; i++) {
    const started = performance.now();
    await command(h.nc, session, { op: 'send.text', args: { chatId: `${CONTACT}@c.us`, text: `round trip ${i}`, linkPreview: true } });
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(times.length / 2)]!, p95Ms: times[Math.min(times.length - 1, Math.floor(times.length * 0.95))]! };
}

/** BURST texts sent and BURST received at once; the peak until every event is stored. */
async function burst(h: Harness, pod: Pod, engine: Engine, session: string, count = BURST): Promise<NonNullable<EngineFigures['busy']>> {
  const chatId = `${CONTACT}@c.us`;
  const phone = pod.phone;
  const sampler = new TreeMemorySampler(pod.pid);
  const cpuBefore = treeCpuSeconds(pod.pid);
  const started = performance.now();
  let slowestHealthzMs = 0;
  let busy = true;
  const prober = async () => {
    while (busy) {
      slowestHealthzMs = Math.max(slowestHealthzMs, await pod.probeMs('/healthz'));
      await sleep(200);
    }
  };
  const probing = prober();
  let sent = 0;
  // A command whose events JetStream has not acknowledged within 5 s answers NOT_STORED (the pod
  // keeps publishing them): under a burst that is load all the same, counted rather than fatal.
  let notStored = 0;
  const sender = async () => {
    while (sent < count) {
      const i = sent++;
      await command(h.nc, session, { op: 'send.text', args: { chatId, text: `burst message ${i}` } }, 30_000).catch((error: unknown) => {
        if (!String(error).includes('NOT_STORED')) throw error;
        notStored++;
      });
    }
  };
  let received = 0;
  const receiver = async () => {
    while (received < count) {
      const i = received++;
      if (engine === 'NOWEB' || engine === 'GOWS' || engine === 'GOWS-GO') {
        phone!.text(CONTACT, `incoming ${i}`);
        if (i % IN_FLIGHT === 0) await sleep(0);
      } else {
        await command(h.nc, session, { op: 'sandbox.simulate', args: { kind: 'message', from: chatId, body: `incoming ${i}` } }, 30_000);
      }
    }
  };
  await Promise.all([...Array.from({ length: IN_FLIGHT }, sender), ...Array.from({ length: engine === 'SANDBOX' ? IN_FLIGHT : 1 }, receiver)]);
  await eventsSettled(h.nc);
  busy = false;
  await probing;
  const seconds = (performance.now() - started) / 1000;
  const cores = (treeCpuSeconds(pod.pid) - cpuBefore) / seconds;
  const peak = sampler.stop();
  return { ...peak, cores, nodePeakRss: peakRss(pod.pid), messages: 2 * count, notStored, seconds, slowestHealthzMs };
}

/** Until the events stream stops growing: the pod publishes each event and waits for its ack. */
async function eventsSettled(nc: NatsConnection): Promise<void> {
  const jsm = await nc.jetstreamManager();
  const count = async () => (await jsm.streams.info(STREAMS.events)).state.messages;
  // The SANDBOX acks each sent message after 100 and 400 ms.
  await sleep(500);
  let last = await count();
  for (;;) {
    await sleep(500);
    const now = await count();
    if (now === last) return;
    last = now;
  }
}

async function command(nc: NatsConnection, session: string, body: object, timeout = 10_000): Promise<unknown> {
  const reply = CommandReply.parse(JSON.parse((await nc.request(SUBJECTS.command(session), JSON.stringify(body), { timeout })).string()));
  if (!reply.ok) throw new Error(`${session}: ${JSON.stringify(body)} answered ${reply.error.code}: ${reply.error.message}`);
  return reply.result;
}

interface PodOptions {
  /** Instead of the operator's NODE_OPTIONS. */
  readonly nodeOptions?: string;
  readonly nodeArgs?: readonly string[];
  /** pod-probe.ts's output files. */
  readonly probeOut?: string;
  readonly snapshot?: string;
}

class Pod {
  readonly output: string[] = [];
  phone: Awaited<ReturnType<FakeWaServer['scanQr']>> | null = null;
  private readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly healthPort: number,
    private readonly engine: Engine,
    private readonly session: string,
    private readonly spawnedAt: number,
  ) {
    const collect = (chunk: Buffer) => this.output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  static async start(h: Harness, engine: Engine, session: string, options: PodOptions = {}): Promise<Pod> {
    const healthPort = await freePort();
    const home = join(h.dir, session);
    mkdirSync(home, { recursive: true });
    const spawnedAt = performance.now();
    // GOWS-GO: the gows image's entry point, the Go binary alone.
    const [program, args] = engine === 'GOWS-GO' ? [GOWS_BIN, ['nats']] : [process.execPath, [...(options.nodeArgs ?? []), POD_MAIN]];
    const child = spawn(program, args, {
      env: {
        PATH: process.env.PATH,
        NODE_OPTIONS: options.nodeOptions ?? podNodeOptions(engine),
        ...(options.probeOut ? { BENCH_PROBE_OUT: options.probeOut } : {}),
        ...(options.snapshot ? { BENCH_PROBE_SNAPSHOT: options.snapshot } : {}),
        HOME: home,
        SWITCHBOARD_SESSION: session,
        SWITCHBOARD_ENGINE: engine === 'GOWS-GO' ? 'GOWS' : engine,
        SWITCHBOARD_NATS_URL: h.nats.url,
        SWITCHBOARD_POD_NAME: `engine-${session}`,
        SWITCHBOARD_HEALTH_PORT: String(healthPort),
        SWITCHBOARD_LOG_LEVEL: 'warn',
        SWITCHBOARD_NOWEB_WS_URL: h.fake.url,
        ...(h.gowsFake
          ? {
              SWITCHBOARD_GOWS_WS_URL: h.gowsFake.url,
              SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY: h.gowsFake.certRootPublicKey,
              SWITCHBOARD_GOWS_BIN: GOWS_BIN,
            }
          : {}),
        SWITCHBOARD_WEBJS_DATA_DIR: join(home, 'webjs'),
        ...(h.web ? { SWITCHBOARD_CHROMIUM_PATH: h.web.chromiumWrapper } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new Pod(child, healthPort, engine, session, spawnedAt);
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Spawn to /healthz, /readyz and WORKING (first: pairs; else a restart that needs no QR code). */
  async untilWorking(h: Harness, first: boolean): Promise<StartTimes> {
    const healthyMs = (await this.until('/healthz')) - this.spawnedAt;
    const readyMs = (await this.until('/readyz')) - this.spawnedAt;
    if (isBrowser(this.engine)) {
      const web = h.web!;
      // Each browser engine's pod is timed to its own first page (WEBJS's came before WPP's).
      if (web.firstPageAt !== null && web.firstPageAt < this.spawnedAt) web.firstPageAt = null;
      await this.poll('Chromium to ask for its first page', () => web.firstPageAt !== null, 120_000);
      return { healthyMs, readyMs, workingMs: web.firstPageAt! - this.spawnedAt };
    }
    if (first) {
      if (this.engine === 'SANDBOX') {
        await this.poll('SCAN_QR_CODE', async () => (await this.status(h)) === 'SCAN_QR_CODE', 30_000);
        await command(h.nc, this.session, { op: 'sandbox.simulate', args: { kind: 'scan' } });
      } else {
        let qr = '';
        await this.poll(
          'a QR code',
          async () => {
            const answer = await command(h.nc, this.session, { op: 'auth.qr' }).catch(() => null);
            qr = (answer as { value?: string } | null)?.value ?? '';
            return qr !== '';
          },
          60_000,
        );
        this.phone = await (this.engine === 'GOWS' || this.engine === 'GOWS-GO' ? h.gowsFake! : h.fake).scanQr(qr);
      }
    }
    await this.poll('WORKING', async () => (await this.status(h)) === 'WORKING', 60_000);
    return { healthyMs, readyMs, workingMs: performance.now() - this.spawnedAt };
  }

  private async status(h: Harness): Promise<string> {
    const answer = (await command(h.nc, this.session, { op: 'host.status' }).catch(() => null)) as { status?: string } | null;
    return answer?.status ?? '';
  }

  /** How long one `path` request takes to answer. */
  async probeMs(path: '/healthz' | '/readyz'): Promise<number> {
    const started = performance.now();
    await fetch(`http://127.0.0.1:${this.healthPort}${path}`).catch(() => null);
    return performance.now() - started;
  }

  /** The moment `path` first answers 200. */
  private async until(path: '/healthz' | '/readyz'): Promise<number> {
    let at = 0;
    await this.poll(
      `${path} to answer 200`,
      async () => {
        const response = await fetch(`http://127.0.0.1:${this.healthPort}${path}`).catch(() => null);
        at = performance.now();
        return response?.status === 200;
      },
      120_000,
      20,
    );
    return at;
  }

  waitFor(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
    return this.poll(what, check, timeoutMs);
  }

  private async poll(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 50): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      if (this.child.exitCode !== null) throw new Error(`${this.engine} engine pod exited with ${this.child.exitCode} waiting for ${what}`);
      if (await check()) return;
      await sleep(everyMs);
    }
    throw new Error(`${this.engine} engine pod: no ${what} within ${timeoutMs / 1000} s`);
  }

  /** SIGTERM, as the kubelet stops a pod; resolves with the time it took to exit. */
  async stop(): Promise<number> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return 0;
    const started = performance.now();
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 30_000);
    await this.exited;
    clearTimeout(timer);
    return performance.now() - started;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
const s = (ms: number) => (ms / 1000).toFixed(2);

function print(figures: readonly EngineFigures[], web: LoopbackWeb | null): void {
  console.log('Engine pod processes, one session each (MiB = 2^20 bytes; CPU in cores; times from spawn, in s)');
  const rows = [
    [
      'engine',
      'idle RSS',
      'idle PSS',
      'idle anon',
      'idle CPU',
      'busy RSS',
      'busy PSS',
      'busy anon',
      'busy CPU',
      'node peak',
      'procs',
      '/healthz',
      '/readyz',
      'WORKING',
      'restart WORKING (max)',
      'SIGTERM',
      'send RTT ms (median/p95)',
    ],
    ...figures.map((f) => [
      f.engine,
      mib(f.idle.rss),
      mib(f.idle.pss),
      mib(f.idle.anon),
      f.idle.cores.toFixed(3),
      f.busy ? mib(f.busy.rss) : 'n/a',
      f.busy ? mib(f.busy.pss) : 'n/a',
      f.busy ? mib(f.busy.anon) : 'n/a',
      f.busy ? f.busy.cores.toFixed(2) : 'n/a',
      mib(f.busy?.nodePeakRss ?? f.idleNodePeakRss),
      String(f.busy?.processes ?? f.idle.processes),
      s(f.firstStart.healthyMs),
      s(f.firstStart.readyMs),
      s(f.firstStart.workingMs),
      f.restarts.length > 0 ? s(Math.max(...f.restarts.map((r) => r.workingMs))) : 'n/a',
      s(f.stopMs),
      f.sendRoundTrip ? `${f.sendRoundTrip.medianMs.toFixed(1)}/${f.sendRoundTrip.p95Ms.toFixed(1)}` : 'n/a',
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const row of rows) console.log(row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '));
  for (const f of figures) {
    if (f.busy) {
      console.log(
        `${f.engine} busy: ${f.busy.messages} messages (half sent, half received) in ${f.busy.seconds.toFixed(1)} s; ` +
          `${f.busy.notStored} sends answered NOT_STORED (events not acknowledged by JetStream within 5 s); ` +
          `slowest /healthz answer ${f.busy.slowestHealthzMs.toFixed(0)} ms`,
      );
    }
    if (f.note) console.log(`${f.engine}: ${f.note}; its WORKING column is Chromium's first page request`);
  }
  if (figures.some((f) => f.engine === 'GOWS-GO')) {
    console.log(
      'GOWS-GO: the Go engine pod (`switchboard-gows nats`, the gows image), no Node; its "node peak" column is the Go process\'s own peak RSS (VmHWM). ' +
        'One session per process, as one pod per session: an extra idle session costs a whole process (its idle RSS), there is no per-session share to measure',
    );
  }
  if (web) console.log(`Chromium asked the loopback proxy for: ${[...new Set(web.hosts)].join(', ') || '(nothing)'}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);

function printSweep(rows: readonly SweepRow[]): void {
  console.log(
    `\nV8 flags measured (instead of the operator's NODE_OPTIONS; idle, then a burst of ${SWEEP_BURST} sent and ${SWEEP_BURST} received; MiB, cores):`,
  );
  console.log(
    `operator's: ${ENGINES.filter((e) => !isBrowser(e))
      .map((e) => `${e} '${podNodeOptions(e)}'`)
      .join(', ')}`,
  );
  const width = Math.max(...rows.map((r) => r.flags.length), 'none'.length);
  console.log(`engine   ${'flags'.padEnd(width)}  idle RSS  idle anon  busy RSS  busy anon  busy CPU  busy s`);
  for (const r of rows) {
    if ('failed' in r) {
      console.log(`${r.engine.padEnd(8)} ${(r.flags || 'none').padEnd(width)}  does not run: ${r.failed}`);
      continue;
    }
    console.log(
      `${r.engine.padEnd(8)} ${(r.flags || 'none').padEnd(width)}  ${mib(r.idle.rss).padStart(8)}  ${mib(r.idle.anon).padStart(9)}  ` +
        `${mib(r.busy.rss).padStart(8)}  ${mib(r.busy.anon).padStart(9)}  ${r.busy.cores.toFixed(2).padStart(8)}  ${r.busy.seconds.toFixed(1).padStart(6)}`,
    );
  }
}
