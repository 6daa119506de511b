import { afterAll, beforeAll, expect, it } from 'vitest';
import { FakeWaServer } from '../../fake-wa/index.js';
import { measureIdleSessions, mib, usageRow } from './measure.js';

/**
 * Resident memory of idle sessions, measured in a process of their own (`sessions-process.mjs`,
 * running the built engine-pod) while the fake server runs here: RSS and heap after GC, with N
 * sessions paired and idle, against the same process after one warm-up session (`measure.ts`,
 * which `bench/src/engine-memory.ts` shares). Not part of `make unit`; run with
 * `pnpm exec tsc -b engine-pod && pnpm exec vitest run --config engine-pod/test/noweb/memory/vitest.config.ts`.
 */
let fake: FakeWaServer;
beforeAll(async () => {
  fake = await FakeWaServer.start();
});
afterAll(async () => {
  await fake.close();
});

it('measures idle sessions: 1 SANDBOX, 1, 10 and 50 NOWEB', async () => {
  const rows: string[] = [];
  for (const [engine, count] of [
    ['SANDBOX', 1],
    ['NOWEB', 1],
    ['NOWEB', 10],
    ['NOWEB', 50],
  ] as const) {
    const m = await measureIdleSessions(engine, count, fake);
    rows.push(`${engine} x${count}: process before any session RSS ${mib(m.initial.rss)} MiB, heap ${mib(m.initial.heapUsed)} MiB`);
    rows.push(usageRow(`  ${engine} first session`, 1, m.initial, m.warmedUp));
    rows.push(usageRow(`  ${engine} paired, idle`, count, m.baseline, m.paired));
    rows.push(usageRow(`  ${engine} restarted, idle`, count, m.stopped, m.restarted));
    expect(m.paired.rss).toBeGreaterThan(0);
  }
  process.stdout.write(`\n${rows.join('\n')}\n`);
}, 300_000);
