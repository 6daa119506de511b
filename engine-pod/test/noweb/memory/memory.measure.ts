import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FakeWaServer } from '../../fake-wa/index.js';

/**
 * Resident memory of idle sessions, measured in a process of their own (`sessions-process.mjs`,
 * running the built engine-pod) while the fake server runs here: RSS and heap after GC, with N
 * sessions paired and idle, against the same process after one warm-up session. Not part of
 * `make unit`; run with
 * `pnpm exec tsc -b engine-pod && pnpm exec vitest run --config engine-pod/test/noweb/memory/vitest.config.ts`.
 */
interface Usage {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

let fake: FakeWaServer;
beforeAll(async () => {
  fake = await FakeWaServer.start();
});
afterAll(async () => {
  await fake.close();
});

type Measured = { initial: Usage; warmedUp: Usage; baseline: Usage; paired: Usage; stopped: Usage; restarted: Usage };

async function measure(engine: 'SANDBOX' | 'NOWEB', count: number): Promise<Measured> {
  const script = fileURLToPath(new URL('./sessions-process.mjs', import.meta.url));
  const child = spawn(process.execPath, ['--expose-gc', script, engine, String(count), fake.url], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) {
    const message = JSON.parse(line) as { qr?: string; memory?: Measured };
    if (message.qr) await fake.scanQr(message.qr);
    if (message.memory) return message.memory;
  }
  throw new Error(`the ${engine} sessions process ended without measuring`);
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

function row(label: string, count: number, from: Usage, to: Usage): string {
  const rss = to.rss - from.rss;
  const heap = to.heapUsed - from.heapUsed;
  return (
    `${label.padEnd(26)} x${String(count).padEnd(3)} RSS +${mib(rss).padStart(6)} MiB (${mib(rss / count)}/session)  ` +
    `heap +${mib(heap).padStart(5)} MiB (${mib(heap / count)}/session)  external +${mib(to.external - from.external)} MiB`
  );
}

it('measures idle sessions: 1 SANDBOX, 1, 10 and 50 NOWEB', async () => {
  const rows: string[] = [];
  for (const [engine, count] of [['SANDBOX', 1], ['NOWEB', 1], ['NOWEB', 10], ['NOWEB', 50]] as const) {
    const m = await measure(engine, count);
    rows.push(`${engine} x${count}: process before any session RSS ${mib(m.initial.rss)} MiB, heap ${mib(m.initial.heapUsed)} MiB`);
    rows.push(row(`  ${engine} first session`, 1, m.initial, m.warmedUp));
    rows.push(row(`  ${engine} paired, idle`, count, m.baseline, m.paired));
    rows.push(row(`  ${engine} restarted, idle`, count, m.stopped, m.restarted));
    expect(m.paired.rss).toBeGreaterThan(0);
  }
  process.stdout.write(`\n${rows.join('\n')}\n`);
}, 300_000);
