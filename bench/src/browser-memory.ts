import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_ENGINE_RESOURCES, engineNodeOptions } from '@switchboard/operator';
import { chromiumPathFromEnv, WEBJS_BROWSER_FLAGS } from '@switchboard/engine-pod';
import { CommandReply, SUBJECTS } from '@switchboard/protocol';
import { freePort, startNatsServer } from '@switchboard/testkit';
import { connect, type NatsConnection } from 'nats';
import { loadEnginePodSources } from './engine-pod-sources.js';
import { processesOf, type TreeMemory, TreeMemorySampler, treeMemory, treeResidentAlone } from './process-tree-memory.js';
import { type FigureInput, recordResults } from './results.js';
import { numberSetting } from './settings.js';

/**
 * The browser-engine pod's memory (issue 27, part 4): a WEBJS engine pod as its image runs it
 * (`engine-pod/dist/pod/main.js`, Node, whatsapp-web.js and Debian's chromium), on the fake
 * WhatsApp Web page (engine-pod/test/fake-web/), paired and WORKING. Memory is the whole process
 * tree's (Node and every Chromium process), RSS and PSS (process-tree-memory.ts): idle (the
 * median of ten samples once quiet) and busy (the peak while `BENCH_BROWSER_BURST` texts are
 * sent and as many received). Idle PSS is held to 300 MiB for one session (WAHA publishes 400 MB
 * for one WEBJS session); when it is over, the tree's PSS by process kind says what bounds it.
 *
 * Then the Chromium flags measured rather than guessed (`BENCH_BROWSER_FLAG_SWEEP=0` skips them):
 * the same pod with its shipped flags (WEBJS_BROWSER_FLAGS), without each flag kept for memory
 * (what it saves), without all of them (the flags before), and with each candidate that was
 * not kept (why not). Chromium is started through a wrapper that drops and adds flags, so the
 * product's own flag list is what is measured. A row whose session does not reach WORKING (the
 * library did not get its QR code, or the page broke) says so: such a flag cannot be kept.
 */
const BURST = numberSetting('BENCH_BROWSER_BURST', 200);
const IN_FLIGHT = 16;
const IDLE_SETTLE_MS = numberSetting('BENCH_BROWSER_IDLE_SETTLE_MS', 5_000);
const FLAG_SWEEP = process.env.BENCH_BROWSER_FLAG_SWEEP !== '0';
const TARGET_PSS_MIB = 300;
const CHROMIUM = chromiumPathFromEnv(process.env);
const POD_MAIN = fileURLToPath(new URL('./pod/main.js', import.meta.resolve('@switchboard/engine-pod')));
const FAKE_WEB = new URL('../../engine-pod/test/fake-web/index.ts', import.meta.url);
const CONTACT = '15551230001@c.us';
const ME = { id: '15550009999@c.us', pushName: 'Bench' };

/**
 * The flags measured for memory. Those WEBJS_BROWSER_FLAGS holds are measured left out (what each
 * saves), the others added (why they are not kept; docs/operations.md has the table).
 */
const MEMORY_FLAGS = [
  '--renderer-process-limit=1',
  '--in-process-gpu',
  '--disable-software-rasterizer',
  '--disable-site-isolation-trials',
  '--disable-extensions',
  '--disable-features=Translate,OptimizationHints,OptimizationGuideModelDownloading,OptimizationHintsFetching,MediaRouter,AutofillServerCommunication',
  '--disk-cache-size=1048576',
  '--media-cache-size=1048576',
  '--single-process',
  '--process-per-site',
  '--no-zygote',
  '--js-flags=--max-old-space-size=128',
  '--js-flags=--lite-mode',
  '--js-flags=--optimize-for-size',
];
const KEPT_FOR_MEMORY = MEMORY_FLAGS.filter((flag) => WEBJS_BROWSER_FLAGS.includes(flag));
const CANDIDATES = MEMORY_FLAGS.filter((flag) => !WEBJS_BROWSER_FLAGS.includes(flag));

interface FakeWebPhone {
  text(from: string, body: string): string;
}
interface FakeWeb {
  /** The pod's environment for this fake: its page as the pinned web version and the Chromium flags it needs. */
  engineEnv(): Record<string, string>;
  scanQr(qr: string, account: { id: string; pushName: string }): Promise<FakeWebPhone>;
  close(): Promise<void>;
}
interface FakeWebModule {
  FakeWhatsAppWeb: { start(): Promise<FakeWeb> };
}

interface Row {
  readonly label: string;
  /** The browser engine the pod runs: WEBJS for the flag sweep, WPP once with the shipped flags. */
  readonly engine?: 'WEBJS' | 'WPP';
  readonly drop: readonly string[];
  readonly add: readonly string[];
}
type Measured = Row &
  (
    | {
        readonly idle: TreeMemory;
        /** The pod's distinct resident pages, idle: what it holds alone (treeResidentAlone), null when not root. */
        readonly idleAlone: number | null;
        readonly busy: TreeMemory;
        readonly byKind: Map<string, number>;
        readonly workingMs: number;
      }
    | { readonly failed: string }
  );

interface Harness {
  readonly nc: NatsConnection;
  readonly fake: FakeWeb;
  readonly dir: string;
  readonly natsUrl: string;
}

async function main(): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    console.log(`browser-memory skipped: no chromium at ${CHROMIUM} (scripts/ensure-chromium.sh)`);
    return;
  }
  loadEnginePodSources();
  const { FakeWhatsAppWeb } = (await import(FAKE_WEB.href)) as FakeWebModule;
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-bench-browser-'));
  const nats = await startNatsServer();
  const fake = await FakeWhatsAppWeb.start();
  const nc = await connect({ servers: nats.url, name: 'bench client' });
  const h: Harness = { nc, fake, dir, natsUrl: nats.url };
  const rows: Measured[] = [];
  try {
    const shipped: Row = { label: 'shipped (WEBJS_BROWSER_FLAGS)', drop: [], add: [] };
    // The first browser of a run reads Chromium's files from disk and measures high: not counted.
    await measure(h, { ...shipped, label: 'warm-up' }, 0);
    rows.push(await measure(h, shipped, 1));
    if (FLAG_SWEEP) {
      const sweep: Row[] = [
        ...(KEPT_FOR_MEMORY.length > 0 ? [{ label: 'before (none of the memory flags)', drop: KEPT_FOR_MEMORY, add: [] }] : []),
        ...KEPT_FOR_MEMORY.map((flag) => ({ label: `shipped without ${flag}`, drop: [flag], add: [] })),
        ...CANDIDATES.map((flag) => ({ label: `shipped with ${flag}`, drop: [], add: [flag] })),
      ];
      for (const [i, row] of sweep.entries()) rows.push(await measure(h, row, i + 2));
    }
    // WPP runs the same Chromium with the same flags; WPPConnect and its wa-js are its own.
    rows.push(await measure(h, { label: 'WPP, shipped flags', drop: [], add: [], engine: 'WPP' }, rows.length + 2));
  } finally {
    await nc.close();
    await fake.close();
    await nats.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  print(rows);
  const shipped = rows[0]!;
  const wpp = rows.find((row) => row.engine === 'WPP');
  const inMib = (bytes: number) => bytes / 1024 / 1024;
  if ('failed' in shipped) throw new Error(`the WEBJS pod with its shipped flags did not reach WORKING: ${shipped.failed}`);
  if (!wpp || 'failed' in wpp) throw new Error(`the WPP pod did not reach WORKING: ${wpp && 'failed' in wpp ? wpp.failed : 'not measured'}`);
  const figures: FigureInput[] = [];
  for (const [engine, row] of [
    ['WEBJS', shipped],
    ['WPP', wpp],
  ] as const) {
    figures.push(
      { name: `${engine} browser pod idle PSS`, value: inMib(row.idle.pss), unit: 'MiB', target: { of: 'value', atMost: TARGET_PSS_MIB } },
      { name: `${engine} browser pod idle RSS`, value: inMib(row.idle.rss), unit: 'MiB' },
      ...(row.idleAlone === null ? [] : [{ name: `${engine} browser pod idle, alone (distinct pages)`, value: inMib(row.idleAlone), unit: 'MiB' }]),
      { name: `${engine} browser pod busy PSS`, value: inMib(row.busy.pss), unit: 'MiB' },
      { name: `${engine} browser pod busy RSS`, value: inMib(row.busy.rss), unit: 'MiB' },
    );
  }
  recordResults('browser-memory', figures);
  const before = rows.find((row) => row.drop.length > 1 && !('failed' in row));
  for (const [engine, row] of [
    ['WEBJS', shipped],
    ['WPP', wpp],
  ] as const) {
    console.log(
      `\n${engine} browser pod idle PSS ${mib(row.idle.pss)} MiB (busy ${mib(row.busy.pss)} MiB), target at most ${TARGET_PSS_MIB} MiB for one session (WAHA publishes 400 MB): ` +
        `${inMib(row.idle.pss) <= TARGET_PSS_MIB ? 'met' : 'NOT met'}` +
        (engine === 'WEBJS' && before && !('failed' in before) ? `; ${mib(before.idle.pss)} MiB without the memory flags` : '') +
        // PSS splits Chromium's binary with every other Chromium on the machine: alone is the figure that does not move.
        (row.idleAlone === null ? '' : `; alone (its distinct pages, whatever else runs) ${mib(row.idleAlone)} MiB`),
    );
    if (inMib(row.idle.pss) > TARGET_PSS_MIB) {
      const kinds = [...row.byKind].sort((a, b) => b[1] - a[1]);
      console.log(`what bounds it (idle PSS by process kind): ${kinds.map(([kind, bytes]) => `${kind} ${mib(bytes)} MiB`).join(', ')}`);
    }
  }
}

/** One browser engine pod (WEBJS unless the row says) with the row's flags, paired on the fake page: idle, then busy. */
async function measure(h: Harness, row: Row, index: number): Promise<Measured> {
  const session = `browser-${index}`;
  const home = join(h.dir, session);
  mkdirSync(home, { recursive: true });
  const wrapper = join(home, 'chromium');
  // The wrapper runs chromium with the row's flags: those the engine gives, less `drop`, plus `add`.
  const dropped = row.drop.map((flag) => `${shellQuote(flag)}) ;;`).join(' ');
  writeFileSync(
    wrapper,
    `#!/bin/bash\nargs=()\nfor a in "$@"; do case "$a" in ${dropped} *) args+=("$a") ;; esac; done\n` +
      `exec ${shellQuote(CHROMIUM)} "\${args[@]}" ${row.add.map(shellQuote).join(' ')}\n`,
  );
  chmodSync(wrapper, 0o755);
  const pod = spawn(process.execPath, [POD_MAIN], {
    env: {
      PATH: process.env.PATH,
      HOME: home,
      NODE_OPTIONS: engineNodeOptions(row.engine ?? 'WEBJS', DEFAULT_ENGINE_RESOURCES[row.engine ?? 'WEBJS']),
      SWITCHBOARD_SESSION: session,
      SWITCHBOARD_ENGINE: row.engine ?? 'WEBJS',
      SWITCHBOARD_NATS_URL: h.natsUrl,
      SWITCHBOARD_POD_NAME: `engine-${session}`,
      SWITCHBOARD_HEALTH_PORT: String(await freePort()),
      SWITCHBOARD_LOG_LEVEL: 'warn',
      SWITCHBOARD_CHROMIUM_PATH: wrapper,
      SWITCHBOARD_WEBJS_DATA_DIR: join(home, 'webjs'),
      ...h.fake.engineEnv(),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const collect = (chunk: Buffer) => output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
  pod.stdout.on('data', collect);
  pod.stderr.on('data', collect);
  const started = performance.now();
  try {
    let qr = '';
    await poll(pod, 'a QR code', async () => {
      const answer = (await command(h.nc, session, { op: 'auth.qr' }).catch(() => null)) as { value?: string } | null;
      qr = answer?.value ?? '';
      return qr !== '';
    });
    const phone = await h.fake.scanQr(qr, ME);
    await poll(pod, 'WORKING', async () => {
      const answer = (await command(h.nc, session, { op: 'host.status' }).catch(() => null)) as { status?: string } | null;
      return answer?.status === 'WORKING';
    });
    const workingMs = performance.now() - started;
    await sleep(IDLE_SETTLE_MS);
    const idle = await idleMemory(pod.pid!);
    const idleAlone = treeResidentAlone(pod.pid!);
    const byKind = new Map<string, number>();
    for (const process of processesOf(pod.pid!)) byKind.set(kindOf(process.command), (byKind.get(kindOf(process.command)) ?? 0) + process.pss);
    const busy = await burst(h, pod.pid!, session, phone);
    const measured: Measured = { ...row, idle, idleAlone, busy, byKind, workingMs };
    console.error(`${row.label}: idle PSS ${mib(idle.pss)} MiB, ${idle.processes} processes`);
    return measured;
  } catch (error) {
    const said = output.findLast((line) => /error|fail/i.test(line)) ?? String(error);
    console.error(`${row.label}: ${String(error)}`);
    return { ...row, failed: said.slice(0, 200) };
  } finally {
    await stop(pod);
  }
}

/** BURST texts sent (16 in flight) while as many arrive from the contact; the peak meanwhile. */
async function burst(h: Harness, pid: number, session: string, phone: FakeWebPhone): Promise<TreeMemory> {
  const sampler = new TreeMemorySampler(pid);
  let sent = 0;
  const sender = async () => {
    while (sent < BURST) {
      const i = sent++;
      await command(h.nc, session, { op: 'send.text', args: { chatId: CONTACT, text: `burst message ${i}` } }, 30_000);
    }
  };
  const receiver = async () => {
    for (let i = 0; i < BURST; i++) {
      phone.text(CONTACT, `incoming ${i}`);
      if (i % IN_FLIGHT === 0) await sleep(10);
    }
  };
  await Promise.all([...Array.from({ length: IN_FLIGHT }, sender), receiver()]);
  await sleep(1_000);
  return sampler.stop();
}

/** The median of ten samples over three seconds. */
async function idleMemory(pid: number): Promise<TreeMemory> {
  const samples: TreeMemory[] = [];
  for (let i = 0; i < 10; i++) {
    samples.push(treeMemory(pid));
    await sleep(300);
  }
  const median = (pick: (m: TreeMemory) => number) => samples.map(pick).sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
  return { rss: median((m) => m.rss), pss: median((m) => m.pss), anon: median((m) => m.anon), processes: median((m) => m.processes) };
}

/** What a process of the tree is, from its command line: node, or Chromium's browser, renderer, gpu, a utility by its service, zygote. */
function kindOf(command: string): string {
  if (!command.includes('chromium') && !command.includes('chrome')) return 'node';
  const type = /--type=(\S+)/.exec(command)?.[1];
  if (!type) return 'chromium browser';
  if (type === 'utility') return `chromium ${/--utility-sub-type=(\S+)/.exec(command)?.[1] ?? 'utility'}`;
  return `chromium ${type}`;
}

async function command(nc: NatsConnection, session: string, body: object, timeout = 10_000): Promise<unknown> {
  const reply = CommandReply.parse(JSON.parse((await nc.request(SUBJECTS.command(session), JSON.stringify(body), { timeout })).string()));
  if (!reply.ok) throw new Error(`${session}: ${JSON.stringify(body)} answered ${reply.error.code}: ${reply.error.message}`);
  return reply.result;
}

async function poll(pod: ChildProcess, what: string, check: () => Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (pod.exitCode !== null) throw new Error(`the WEBJS pod exited with ${pod.exitCode} waiting for ${what}`);
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`no ${what} within ${timeoutMs / 1000} s`);
}

async function stop(pod: ChildProcess): Promise<void> {
  if (pod.exitCode !== null || pod.signalCode !== null) return;
  const exited = new Promise((resolve) => pod.once('exit', resolve));
  pod.kill('SIGTERM');
  const timer = setTimeout(() => pod.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}

const shellQuote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

function print(rows: readonly Measured[]): void {
  console.log(
    `Browser engine pods (WEBJS, and WPP on its last row), one session on the fake WhatsApp Web page, WORKING (MiB = 2^20 bytes; busy: ${BURST} sent and ${BURST} received)`,
  );
  const width = Math.max(...rows.map((row) => row.label.length));
  console.log(`${'flags'.padEnd(width)}  idle PSS  idle alone  idle RSS  idle anon  busy PSS  busy RSS  procs  WORKING s`);
  for (const row of rows) {
    if ('failed' in row) {
      console.log(`${row.label.padEnd(width)}  does not work: ${row.failed}`);
      continue;
    }
    console.log(
      `${row.label.padEnd(width)}  ${mib(row.idle.pss).padStart(8)}  ${(row.idleAlone === null ? '-' : mib(row.idleAlone)).padStart(10)}  ${mib(row.idle.rss).padStart(8)}  ${mib(row.idle.anon).padStart(9)}  ` +
        `${mib(row.busy.pss).padStart(8)}  ${mib(row.busy.rss).padStart(8)}  ${String(row.idle.processes).padStart(5)}  ${(row.workingMs / 1000).toFixed(1).padStart(9)}`,
    );
  }
  const shipped = rows[0];
  if (shipped && !('failed' in shipped)) {
    const kinds = [...shipped.byKind].sort((a, b) => b[1] - a[1]);
    console.log(`shipped, idle PSS by process kind: ${kinds.map(([kind, bytes]) => `${kind} ${mib(bytes)}`).join(', ')}`);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
