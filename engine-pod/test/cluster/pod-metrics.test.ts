import type { SendingConfig } from '@switchboard/protocol';
import { sample, waitFor } from '@switchboard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionSending } from '../../src/cluster/session-sending.js';
import type { MessageStore } from '../../src/history/message-store.js';
import { type HealthServer, startHealthServer } from '../../src/pod/health-server.js';
import { PodMetrics } from '../../src/pod/pod-metrics.js';
import { natsForTests, silent } from './helpers.js';

/*
 * An engine pod's `/metrics` (cluster mode: the session's send queue runs in its pod), scraped over
 * real HTTP from the health server, with the session's paced sending on real NATS KV as EnginePod
 * wires them (the engine is played by a recorder of the commands it is given).
 */

const nats = natsForTests();
const CHAT = '15550004444@c.us';
const noHistory = { get: async () => null } as unknown as MessageStore;
const stops: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

/** A pod's paced session and its health server, the way EnginePod joins them. */
async function pacedPod(session: string, sending: SendingConfig) {
  let running: SessionSending | null = null;
  const metrics = new PodMetrics(() => running?.store.depths() ?? new Map(), { defaultMetrics: true });
  const health: HealthServer = await startHealthServer(0, () => true, metrics.registry);
  stops.push(() => health.close());
  running = await SessionSending.start({
    nc: nats.nc,
    session,
    engine: 'SANDBOX',
    sending,
    execute: async () => ({ id: 'sent' }),
    history: noHistory,
    fencingToken: () => 1,
    log: silent,
    observer: metrics.sendQueue,
  });
  stops.push(() => running.stop());
  const submit = (id: string, waitMs: number) =>
    running.run({
      op: 'host.sendQueue.submit',
      args: { route: '/api/sendText', command: { op: 'send.text', args: { chatId: CHAT, text: 'hi', id } }, waitMs },
    });
  const scrape = async () => {
    const response = await fetch(`http://127.0.0.1:${health.port}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    return response.text();
  };
  return { submit, scrape };
}

describe("an engine pod's /metrics", () => {
  it('serves the queue depth, the wait of a send that went and the sends held by the rate', async () => {
    const pod = await pacedPod('pm-rate', { perMinute: 1, maxQueued: 100 });
    expect(await pod.submit('PMRATE000001', 5_000)).toMatchObject({ outcome: 'sent' });
    expect(await pod.submit('PMRATE000002', 0)).toMatchObject({ outcome: 'queued' });
    expect(await pod.submit('PMRATE000003', 0)).toMatchObject({ outcome: 'queued' });

    const session = 'pm-rate';
    let text = '';
    // The pacer's lane finds the hold after the submit has answered: wait for its count.
    await waitFor(
      async () => sample((text = await pod.scrape()), 'switchboard_send_queue_held_total', { session, reason: 'rate' }) === 1,
      'the hold to be counted',
    );
    expect(sample(text, 'switchboard_send_queue_depth', { session })).toBe(2);
    expect(sample(text, 'switchboard_send_queue_wait_seconds_count', { session })).toBe(1);
    expect(sample(text, 'switchboard_send_queue_wait_seconds_bucket', { session, le: '86400' })).toBe(1);
    expect(text).not.toContain('reason="warmup"');
    expect(text).toContain("# HELP switchboard_send_queue_depth Paced sending: the sends waiting in each session's queue");
    expect(text).toContain('# TYPE switchboard_send_queue_wait_seconds histogram');
    // The process's own, per pod.
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it("counts a send held by the warm-up's daily cap as held by the warm-up", async () => {
    const pod = await pacedPod('pm-warmup', { warmup: { start: 1, step: 0, max: 1 }, maxQueued: 100 });
    expect(await pod.submit('PMWARM000001', 5_000)).toMatchObject({ outcome: 'sent' });
    expect(await pod.submit('PMWARM000002', 0)).toMatchObject({ outcome: 'queued' });

    const session = 'pm-warmup';
    let text = '';
    await waitFor(
      async () => sample((text = await pod.scrape()), 'switchboard_send_queue_held_total', { session, reason: 'warmup' }) === 1,
      'the hold to be counted',
    );
    expect(text).not.toContain('reason="rate"');
    expect(sample(text, 'switchboard_send_queue_depth', { session })).toBe(1);
    expect(sample(text, 'switchboard_send_queue_wait_seconds_count', { session })).toBe(1);
  });

  it('keeps the probes as they were beside it', async () => {
    const metrics = new PodMetrics(() => new Map(), { defaultMetrics: false });
    const health = await startHealthServer(0, () => false, metrics.registry);
    stops.push(() => health.close());
    const get = (path: string) => fetch(`http://127.0.0.1:${health.port}${path}`).then(async (response) => [response.status, await response.text()]);
    expect(await get('/healthz')).toEqual([200, 'ok\n']);
    expect(await get('/readyz')).toEqual([503, 'not ready\n']);
    const [status, text] = await get('/metrics');
    expect(status).toBe(200);
    // No queue runs yet: the depth has no series, the other two none until a send.
    expect(text).toContain('# TYPE switchboard_send_queue_depth gauge');
    expect(text).not.toContain('switchboard_send_queue_depth{');
  });
});
