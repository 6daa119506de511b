// The soak (issue 29, part 5; `make soak`, not in make test or make e2e-node: the file skips
// unless CHAOS_SOAK_MINUTES is set): the chaos tier's release and load for CHAOS_SOAK_MINUTES
// (30 in make soak), a fault from chaos/faults.ts every CHAOS_SOAK_FAULT_MINUTES (5) in turn, and
// every component's RSS and open file descriptors sampled every CHAOS_SOAK_SAMPLE_SECONDS (60).
// Growth of either above 10 % from minute 5 (a fifth of the run when shorter) to the end fails,
// as does an acknowledged message lost. The figures go to docs/soak.svg (CHAOS_SOAK_SVG names
// another file) and are printed.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { selectedFaults } from './chaos/faults.js';
import { LoadDriver } from './chaos/load.js';
import { soakSvg } from './chaos/plot.js';
import { type FaultResult, runFault, table } from './chaos/runner.js';
import { growth, type Sample, sample } from './chaos/samples.js';
import { type ChaosRelease, startChaosRelease } from './chaos/setup.js';
import { WsCounter } from './chaos/ws-counter.js';
import { repoRoot } from './release.js';
import { connectNodeCluster } from './support/node-cluster.js';

const MINUTES = Number(process.env.CHAOS_SOAK_MINUTES ?? 0);
const FAULT_EVERY_MS = Number(process.env.CHAOS_SOAK_FAULT_MINUTES ?? 5) * 60_000;
const SAMPLE_MS = Number(process.env.CHAOS_SOAK_SAMPLE_SECONDS ?? 60) * 1000;
const RATE = Number(process.env.CHAOS_RATE ?? 50);
/** From when growth counts: minute 5, or a fifth of a shorter run (the start-up's own growth before it). */
const BASELINE_MINUTE = Math.min(5, MINUTES / 5);
const LIMIT = 0.1;

describe.runIf(MINUTES > 0)(`soak: ${MINUTES} min of steady load with a fault every ${FAULT_EVERY_MS / 60_000} min`, () => {
  const info = inject('nodeCluster');
  const cluster = connectNodeCluster(info);
  let chaos: ChaosRelease;
  let load: LoadDriver;
  let ws: WsCounter;
  const samples: Sample[] = [];
  const faults: FaultResult[] = [];

  beforeAll(async () => {
    chaos = await startChaosRelease(cluster, info, 'sb-soak');
    ws = new WsCounter(chaos.release);
    await ws.start();
    load = new LoadDriver(chaos.release.api, chaos.sessions, RATE);
    load.start();
  }, 1_800_000);

  afterAll(async () => {
    await load?.stop();
    ws?.stop();
    await chaos?.close();
  }, 900_000);

  it('keeps every component within 10 % of its minute-5 RSS and open fds, and loses nothing acknowledged', async () => {
    const started = Date.now();
    const end = started + MINUTES * 60_000;
    const minute = () => (Date.now() - started) / 60_000;
    const kinds = selectedFaults();
    let nextSample = started;
    let nextFault = started + FAULT_EVERY_MS;
    let turn = 0;
    while (Date.now() < end) {
      if (Date.now() >= nextSample) {
        samples.push(await sample(cluster, chaos.release.namespace, minute()));
        nextSample += SAMPLE_MS;
      }
      if (Date.now() >= nextFault && Date.now() + 60_000 < end) {
        const fault = kinds[turn % kinds.length]!;
        const engineSession = ['gows-1', 'noweb-1', 'sandbox-1'][turn % 3]!;
        turn++;
        faults.push(
          await runFault(fault, { release: chaos.release, load, hooks: chaos.hooks.seen, ws: ws.seen, sessions: chaos.sessions, engineSession }),
        );
        nextFault = Date.now() + FAULT_EVERY_MS;
      }
      await new Promise((r) => setTimeout(r, 1_000));
    }
    samples.push(await sample(cluster, chaos.release.namespace, minute()));
    await load.stop();

    const svg = process.env.CHAOS_SOAK_SVG ?? join(repoRoot, 'docs/soak.svg');
    writeFileSync(svg, await soakSvg(samples, `make soak: ${MINUTES} min at ${RATE} sends/s asked, ${faults.length} faults`));
    const rss = growth(samples, BASELINE_MINUTE, 'rss');
    const fds = growth(samples, BASELINE_MINUTE, 'fds');
    const pct = (g: Record<string, number>) => Object.fromEntries(Object.entries(g).map(([c, v]) => [c, `${(v * 100).toFixed(1)} %`]));
    console.log(
      `e2e-node soak: ${samples.length} samples, ${load.acked.size} acknowledged (${load.rate().toFixed(0)}/s), plot ${svg}\n` +
        `growth from minute ${BASELINE_MINUTE.toFixed(1)}: RSS ${JSON.stringify(pct(rss))}, fds ${JSON.stringify(pct(fds))}\n` +
        `samples: ${JSON.stringify(samples)}\n${faults.length > 0 ? table(faults) : 'no fault (the run was shorter than one fault interval)'}`,
    );

    const all = [...load.acked.keys()];
    await waitFor(() => all.every((id) => chaos.hooks.seen.messageAt.has(id)), 'every acknowledged message on the webhook', 180_000, 500).catch(
      () => undefined,
    );
    expect(all.filter((id) => !chaos.hooks.seen.messageAt.has(id)).length, 'acknowledged messages lost').toBe(0);
    for (const result of faults)
      expect({ fault: result.fault, lost: result.lost, newQrs: result.newQrs }).toEqual({ fault: result.fault, lost: 0, newQrs: 0 });
    expect(
      Object.entries(rss).filter(([, g]) => g > LIMIT),
      'RSS growth above 10 %',
    ).toEqual([]);
    expect(
      Object.entries(fds).filter(([, g]) => g > LIMIT),
      'open fds growth above 10 %',
    ).toEqual([]);
  }, 7_200_000);
});
