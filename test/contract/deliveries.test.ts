import { parseEnvelope } from '@switchboard/protocol';
import { type ClosedPort, closedPort, waitFor, WebhookReceiver } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, type ContractGateway, startGateway, workingSession } from './harness.js';

/** Events reach the receiver through NATS and a webhook queue in cluster mode: give them time. */
const TIMEOUT_MS = 15_000;
const FROM = '15557654321@c.us';

let gw: ContractGateway;
const receivers: WebhookReceiver[] = [];
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw.close();
  await Promise.all(receivers.map((r) => r.stop()));
});

/** A receiver on a free port, or on a held one it takes over (back after an outage). */
async function receiver(at: number | ClosedPort = 0): Promise<WebhookReceiver> {
  if (typeof at !== 'number') await at.release();
  const started = await new WebhookReceiver().start(typeof at === 'number' ? at : at.port);
  receivers.push(started);
  return started;
}

/** Incoming messages, one after the other; their message ids in the order they were made. */
async function incoming(session: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await gw.api('POST', `/api/${session}/sandbox/simulate`, { kind: 'message', from: FROM, body: `m${i}` });
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  return ids;
}

/** Message ids in the order of their first delivery (duplicates dropped by event id). */
function firstDeliveries(rx: WebhookReceiver, session: string): string[] {
  const seen = new Set<string>();
  return rx.received
    .map((hook) => hook.body)
    .filter((e) => e.session === session && e.event === 'message' && !seen.has(e.id) && seen.add(e.id))
    .map((e) => e.payload.id);
}

describe('delivery guarantees through the API (docs/events.md)', () => {
  it('keeps each session’s order per webhook, a refused event holding back the ones after it', async () => {
    const rx = await receiver();
    const refused = new Set<string>();
    rx.respond = ({ body }) => {
      if (Number(String(body.payload.body).slice(1)) % 3 !== 1 || refused.has(body.id)) return 200;
      refused.add(body.id);
      return 503;
    };
    const webhooks = [{ url: rx.url, events: ['message'], retries: { policy: 'constant', delaySeconds: 0.1, attempts: 10 } }];
    await workingSession(gw, 'ordered', { config: { webhooks } });
    const made = await incoming('ordered', 9);
    await waitFor(() => firstDeliveries(rx, 'ordered').length === 9, 'all nine', TIMEOUT_MS);
    expect(firstDeliveries(rx, 'ordered')).toEqual(made);
    expect(refused.size).toBe(3);
  });

  it('keeps a delivery that used up its attempts as dead, lists it, and replays it when asked', async () => {
    const port = await closedPort();
    const hook = { url: `http://127.0.0.1:${port.port}/hook`, events: ['message'], retries: { policy: 'constant', delaySeconds: 0.05, attempts: 2 } };
    await workingSession(gw, 'dead', { config: { webhooks: [hook] } });
    const made = await incoming('dead', 2);

    const dead = await waitFor(
      async () => {
        const list = (await gw.api('GET', '/api/dead/webhooks/dead')).body;
        return Array.isArray(list) && list.length === 2 && list;
      },
      'two dead deliveries',
      TIMEOUT_MS,
    );
    for (const delivery of dead) {
      expect(delivery).toMatchObject({ session: 'dead', event: 'message', url: hook.url, attempts: 2, lastError: 'refused' });
      expect(delivery.deadAt).toBeGreaterThanOrEqual(delivery.createdAt);
    }
    expect((await gw.api('POST', '/api/dead/webhooks/dead/replay', { ids: [987_654_321] })).status).toBe(404);

    const rx = await receiver(port);
    const replay = await gw.api('POST', '/api/dead/webhooks/dead/replay', {});
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual({ replayed: dead.map((d: { id: number }) => d.id), skipped: [] });
    await waitFor(() => firstDeliveries(rx, 'dead').length === 2, 'the replays', TIMEOUT_MS);
    expect(new Set(firstDeliveries(rx, 'dead'))).toEqual(new Set(made));
    await waitFor(async () => (await gw.api('GET', '/api/dead/webhooks/dead')).body.length === 0, 'the dead list emptied', TIMEOUT_MS);
  });

  it('gives a receiver back from an outage the events after the last id it has, page by page', async () => {
    await workingSession(gw, 'catchup');
    const made = await incoming('catchup', 4);
    const all = await waitFor(
      async () => {
        const page = (await gw.api('GET', '/api/catchup/event-log?limit=1000')).body as any[];
        return page.filter((e) => e.event === 'message').length === 4 && page;
      },
      'the four messages in the log',
      TIMEOUT_MS,
    );
    for (const envelope of all) expect(() => parseEnvelope(envelope)).not.toThrow();
    expect(all.filter((e) => e.event === 'message').map((e) => e.payload.id)).toEqual(made);

    const firstMessage = all.findIndex((e) => e.event === 'message');
    const after = (await gw.api('GET', `/api/catchup/event-log?since=${all[firstMessage].id}&limit=2`)).body;
    expect(after).toEqual(all.slice(firstMessage + 1, firstMessage + 3));
    expect((await gw.api('GET', `/api/catchup/event-log?since=${all.at(-1).id}`)).body).toEqual([]);
    expect((await gw.api('GET', '/api/catchup/event-log?since=evt_nope')).status).toBe(400);
  });

  it('serves Prometheus metrics to the admin key only', async () => {
    expect((await fetch(`${gw.url}/metrics`)).status).toBe(401);
    const scraped = await fetch(`${gw.url}/metrics`, { headers: { 'x-api-key': ADMIN_KEY } });
    expect(scraped.status).toBe(200);
    const text = await scraped.text();
    expect(text).toMatch(/^switchboard_events_total\{session="catchup",event="message"\} 4$/m);
    expect(text).toContain('switchboard_webhook_deliveries_dead_total{session="dead"}');
  });

  it("drops a deleted session's series from the metrics, whichever way it was deleted", async () => {
    const scrape = async () => (await fetch(`${gw.url}/metrics`, { headers: { 'x-api-key': ADMIN_KEY } })).text();
    await workingSession(gw, 'metrics-gone');
    await gw.api('POST', '/api/metrics-gone/sandbox/simulate', { kind: 'message', from: FROM, body: 'counted' });
    await waitFor(async () => /switchboard_messages_in_total\{session="metrics-gone"\} 1$/m.test(await scrape()), 'the message counted', TIMEOUT_MS);
    expect(await scrape()).toMatch(/^switchboard_session_status_changes_total\{session="metrics-gone",status="WORKING"\} 1$/m);

    expect((await gw.api('DELETE', '/api/sessions/metrics-gone')).status).toBe(200);
    // Cluster mode: once the resource is gone from this replica's cache (its finalizer done).
    await waitFor(async () => !(await scrape()).includes('session="metrics-gone"'), 'no series of the deleted session', TIMEOUT_MS);
    // The others stay.
    expect(await scrape()).toMatch(/^switchboard_events_total\{session="catchup",event="message"\} 4$/m);
  });
});
