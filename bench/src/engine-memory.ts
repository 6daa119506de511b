import { type FakeWaServer, MEASURE, startFakeWa } from './engine-pod-sources.js';
import { type FigureInput, recordResults } from './results.js';

/**
 * Resident memory of idle sessions: NOWEB (real Baileys, paired with and connected to the fake
 * WhatsApp Web server of engine-pod/test/fake-wa) beside SANDBOX (no connection at all), N = 1,
 * 10 and 50 sessions in one process. The sessions run in a child process on the built
 * engine-pod (engine-pod/test/noweb/memory/sessions-process.mjs); the fake runs here, so its
 * memory is not counted. The measurement is the vitest memory measurement's own
 * (engine-pod/test/noweb/memory/measure.ts): RSS and heap after GC with N sessions paired and
 * idle, minus the same process after one warm-up session was paired and stopped.
 */
const COUNTS = (process.env.BENCH_MEMORY_SESSIONS ?? '1,10,50')
  .split(',')
  .map((value) => Number(value.trim()))
  .filter((value) => Number.isInteger(value) && value > 0);
/** A published figure for one NOWEB session in a comparable product, in MB (10^6 bytes). */
const PUBLISHED_MB = 200;

/**
 * The part of engine-pod/test/noweb/memory/measure.ts this benchmark uses: the usage it reads at
 * the stages it compares.
 */
type Usage = Pick<NodeJS.MemoryUsage, 'rss' | 'heapUsed'>;
type Stage = 'initial' | 'warmedUp' | 'baseline' | 'paired';
interface MeasureModule {
  measureIdleSessions: (engine: Engine, count: number, fake: FakeWaServer) => Promise<Record<Stage, Usage>>;
}
/** SANDBOX first: the baseline of the same N, measured in this run. */
const ENGINES = ['SANDBOX', 'NOWEB'] as const;
type Engine = (typeof ENGINES)[number];

const mib = (bytes: number) => bytes / 1024 / 1024;
const fixed = (value: number, digits = 1) => value.toFixed(digits);

interface Row {
  engine: Engine;
  count: number;
  rss: number;
  heap: number;
  processRss: number;
  /** What the first session of the process (the warm-up: library loaded, JIT warmed) added. */
  firstSession: number;
}

async function main(): Promise<void> {
  if (COUNTS.length === 0) throw new Error('BENCH_MEMORY_SESSIONS names no session count');
  const fake = await startFakeWa();
  const { measureIdleSessions } = (await import(MEASURE.href)) as MeasureModule;
  const rows: Row[] = [];
  try {
    for (const count of COUNTS) {
      for (const engine of ENGINES) {
        const started = process.hrtime.bigint();
        const m = await measureIdleSessions(engine, count, fake);
        rows.push({
          engine,
          count,
          rss: m.paired.rss - m.baseline.rss,
          heap: m.paired.heapUsed - m.baseline.heapUsed,
          processRss: m.paired.rss,
          firstSession: m.warmedUp.rss - m.initial.rss,
        });
        console.error(`${engine} x${count} measured in ${fixed(Number(process.hrtime.bigint() - started) / 1e9)} s`);
      }
    }
  } finally {
    await fake.close();
  }
  print(rows);
}

function print(rows: readonly Row[]): void {
  const header = [
    'engine',
    'N',
    'RSS Δ MiB',
    'RSS Δ/session',
    'heap Δ MiB',
    'heap Δ/session',
    'process RSS',
    'NOWEB/SANDBOX per session',
    'NOWEB − SANDBOX per session',
  ];
  const table = rows.map((row) => {
    let ratio = '(baseline)';
    let difference = '';
    const sandbox = rows.find((other) => other.engine === 'SANDBOX' && other.count === row.count);
    if (row.engine === 'NOWEB' && sandbox) {
      const perSession = row.rss / row.count;
      const basePerSession = sandbox.rss / sandbox.count;
      ratio = basePerSession > 0 ? `${fixed(perSession / basePerSession)}x` : 'n/a (SANDBOX Δ ≤ 0)';
      difference = `${fixed(mib(perSession - basePerSession), 2)} MiB`;
    }
    return [
      row.engine,
      String(row.count),
      fixed(mib(row.rss)),
      fixed(mib(row.rss / row.count), 2),
      fixed(mib(row.heap)),
      fixed(mib(row.heap / row.count), 2),
      fixed(mib(row.processRss)),
      ratio,
      difference,
    ];
  });
  const widths = header.map((title, i) => Math.max(title.length, ...table.map((cells) => cells[i]!.length)));
  const line = (cells: readonly string[]) => cells.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  console.log('Idle sessions in one process, paired and connected (NOWEB: to the fake WhatsApp Web server in the parent)');
  console.log('Δ = after GC with N sessions idle, minus the same process after one warm-up session; MiB = 2^20 bytes');
  console.log(line(header));
  for (const cells of table) console.log(line(cells));
  // A SANDBOX session adds next to nothing: its RSS delta is a few pages, within the noise, so
  // the ratio to it is large and unsteady; the difference is the steadier figure.
  if (rows.some((row) => row.engine === 'SANDBOX' && row.rss < 1024 * 1024)) {
    console.log('(SANDBOX deltas under 1 MiB are within RSS noise: read the ratio as an order of magnitude, the difference as the figure)');
  }

  const one = rows.find((row) => row.engine === 'NOWEB' && row.count === 1);
  const largest = rows.filter((row) => row.engine === 'NOWEB').sort((a, b) => b.count - a.count)[0];
  const mb = (bytes: number) => fixed(bytes / 1e6);
  console.log(`\nreference: a published figure for one NOWEB session in a comparable product is about ${PUBLISHED_MB} MB`);
  if (one) {
    console.log(
      `ours:      one more NOWEB session adds ${mb(one.rss)} MB of RSS (the first in a process ${mb(one.firstSession)} MB, ` +
        `Baileys loaded); the whole process with one idle session is ${mb(one.processRss)} MB` +
        (largest && largest.count > 1 ? `; at N=${largest.count}, ${mb(largest.rss / largest.count)} MB per session` : ''),
    );
  } else if (largest) {
    console.log(`ours:      at N=${largest.count}, ${mb(largest.rss / largest.count)} MB per NOWEB session`);
  }
  const figures: FigureInput[] = [];
  for (const row of rows) {
    const sandbox = rows.find((other) => other.engine === 'SANDBOX' && other.count === row.count);
    figures.push({
      name: `${row.engine} RSS per idle session in one process, N=${row.count}`,
      value: mib(row.rss / row.count),
      unit: 'MiB',
      ...(row.engine === 'SANDBOX' || !sandbox ? {} : { baseline: mib(sandbox.rss / sandbox.count) }),
      at: row.count,
    });
  }
  // GOWS has no row here: switchboard-gows holds one session per process (one pod per session in
  // cluster mode), so an extra idle session costs a whole process; engine-pods measures that.
  console.log(
    'GOWS: one session per switchboard-gows process, so no per-session share in one process to measure here; ' +
      'its whole process per session is the GOWS-GO row of `node bench/dist/all.js engine-pods`',
  );
  recordResults('engine-memory', figures);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
