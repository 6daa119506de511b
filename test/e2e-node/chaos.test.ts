// The chaos tier (issue 29, part 2): messages keep flowing through a release at a steady rate
// (CHAOS_RATE a second, 50 by default, over ten SANDBOX, NOWEB and GOWS sessions), counted by id
// on a webhook receiver on the host and on /ws, while one fault at a time hits the release or the
// node (chaos/faults.ts). For each: no acknowledged message lost, no message under a second event
// id, no session asking for a new QR, and how long delivery stopped and until every session was
// WORKING again. The table is printed at the end (docs/operations.md, "Chaos", has the figures).
//
// make e2e-node runs each fault once; make chaos runs them all CHAOS_REPEAT times (3). One fault
// alone: CHAOS_FAULTS=gateway-kill. The release's values: CHAOS_VALUES=<json file>.
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type ChaosRelease, startChaosRelease } from './chaos/setup.js';
import { selectedFaults } from './chaos/faults.js';
import { LoadDriver } from './chaos/load.js';
import { type FaultResult, runFault, table } from './chaos/runner.js';
import { WsCounter } from './chaos/ws-counter.js';
import { seconds } from './release.js';
import { connectNodeCluster } from './support/node-cluster.js';

const info = inject('nodeCluster');
const cluster = connectNodeCluster(info);
const REPEAT = Number(process.env.CHAOS_REPEAT ?? 1);
const RATE = Number(process.env.CHAOS_RATE ?? 50);
const faults = selectedFaults();
const results: FaultResult[] = [];
let chaos: ChaosRelease;
let load: LoadDriver;
let ws: WsCounter;

beforeAll(async () => {
  const started = Date.now();
  chaos = await startChaosRelease(cluster, info, 'sb-chaos');
  console.log(`e2e-node chaos: release installed and ${chaos.sessions.length} sessions WORKING in ${seconds(Date.now() - started)}`);
  ws = new WsCounter(chaos.release);
  await ws.start();
  load = new LoadDriver(chaos.release.api, chaos.sessions, RATE);
  load.start();
}, 1_800_000);

afterAll(async () => {
  await load?.stop();
  ws?.stop();
  if (results.length > 0) console.log(`e2e-node chaos (${RATE}/s asked, ${load.rate().toFixed(0)}/s acknowledged over the run):\n${table(results)}`);
  await chaos?.close();
}, 900_000);

describe('chaos: one fault at a time under a steady load', () => {
  it('delivers the load before any fault: every acknowledged message on the webhook', async () => {
    const before = Date.now();
    await new Promise((r) => setTimeout(r, 20_000));
    const sent = [...load.acked].filter(([, ack]) => ack.at >= before).map(([id]) => id);
    expect(sent.length, `sends acknowledged in 20 s (last error: ${load.lastError})`).toBeGreaterThan(0);
    await waitFor(() => sent.every((id) => chaos.hooks.seen.messageAt.has(id)), 'the warm-up messages on the webhook', 120_000, 500);
    console.log(
      `e2e-node chaos: warm-up ${sent.length} acknowledged in 20 s (${(sent.length / 20).toFixed(0)}/s; asked ${RATE}/s), ${load.failed} refused`,
    );
  });

  for (let round = 0; round < REPEAT; round++) {
    for (const fault of faults) {
      it(`${fault.what}${REPEAT > 1 ? ` (round ${round + 1})` : ''}: nothing acknowledged lost, no new QR`, async () => {
        // Engine faults take turns among the engines: GOWS first (its own image), then NOWEB, SANDBOX.
        const engineSession = ['gows-1', 'noweb-1', 'sandbox-1'][round % 3]!;
        const result = await runFault(fault, {
          release: chaos.release,
          load,
          hooks: chaos.hooks.seen,
          ws: ws.seen,
          sessions: chaos.sessions,
          engineSession,
        });
        results.push(result);
        console.log(`e2e-node chaos: ${JSON.stringify(result)}`);
        expect(result.acked, 'messages acknowledged during the fault').toBeGreaterThan(0);
        expect(result.lost, 'acknowledged messages lost').toBe(0);
        expect(result.reissued, 'messages delivered under a second event id').toBe(0);
        expect(result.newQrs, 'sessions asking for a new QR').toBe(0);
        if (fault.keepsEngine) expect(result.engineRestarts, `restarts of engine-${engineSession}'s container`).toBe(0);
      }, 900_000);
    }
  }

  it('lost nothing acknowledged over the whole run', async () => {
    await load.stop();
    const all = [...load.acked.keys()];
    await waitFor(() => all.every((id) => chaos.hooks.seen.messageAt.has(id)), 'every acknowledged message on the webhook', 180_000, 500).catch(
      () => undefined,
    );
    const missing = all.filter((id) => !chaos.hooks.seen.messageAt.has(id));
    expect(missing.slice(0, 10), `${missing.length} of ${all.length} acknowledged messages never reached the webhook`).toEqual([]);
    expect(chaos.hooks.seen.reissued()).toEqual([]);
  }, 300_000);
});
