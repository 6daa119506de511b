import { type ReceiverAnswer, type ReceivedHook, waitFor, WebhookReceiver } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContractGateway, startGateway, workingSession } from './harness.js';

/**
 * What receivers say (docs/events.md, "Receiver signals"): a 410 Gone disables the webhook, a
 * 429 or 503 with Retry-After delays it, and a webhook's own timeout. The same in both modes.
 * Waits are lower bounds only (a loaded machine makes them longer, never shorter).
 */
const TIMEOUT_MS = 20_000;
const FROM = '15557654321@c.us';
/** A retry schedule far shorter than any Retry-After used here. */
const FAST = { policy: 'constant', delaySeconds: 0.05, attempts: 5 } as const;

let gw: ContractGateway;
const receivers: WebhookReceiver[] = [];
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw.close();
  await Promise.all(receivers.map((r) => r.stop()));
});

async function receiver(respond: (hook: ReceivedHook) => number | ReceiverAnswer): Promise<WebhookReceiver> {
  const rx = await new WebhookReceiver().start();
  rx.respond = respond;
  receivers.push(rx);
  return rx;
}

async function incoming(session: string, body: string): Promise<string> {
  const res = await gw.api('POST', `/api/${session}/sandbox/simulate`, { kind: 'message', from: FROM, body });
  expect(res.status).toBe(201);
  return res.body.id;
}

/** The requests for the message with this text, in arrival order. */
const attemptsOf = (rx: WebhookReceiver, body: string) =>
  rx.requests.filter((hook) => hook.body.event === 'message' && hook.body.payload.body === body);

describe('receiver signals (docs/events.md)', () => {
  it('410 Gone disables the webhook: its deliveries go dead unsent until it is enabled, then a replay delivers them', async () => {
    let gone = true;
    const rx = await receiver(() => (gone ? 410 : 200));
    const other = await receiver(() => 200);
    const webhooks = [
      { url: rx.url, events: ['message'], retries: FAST },
      { url: other.url, events: ['message'], retries: FAST },
    ];
    await workingSession(gw, 'gone', { config: { webhooks } });
    await incoming('gone', 'first');
    const disabled = await waitFor(
      async () => {
        const list = (await gw.api('GET', '/api/gone/webhooks/disabled')).body;
        return Array.isArray(list) && list.length === 1 && list;
      },
      'the webhook disabled',
      TIMEOUT_MS,
    );
    expect(disabled[0]).toMatchObject({ url: rx.url, reason: 'gone' });
    // One attempt only: a 410 is not retried.
    expect(attemptsOf(rx, 'first')).toHaveLength(1);

    await incoming('gone', 'second');
    await incoming('gone', 'third');
    // The other webhook of the session goes on.
    await waitFor(() => other.received.length >= 3, 'the other webhook’s deliveries', TIMEOUT_MS);
    const dead = await waitFor(
      async () => {
        const list = (await gw.api('GET', '/api/gone/webhooks/dead')).body;
        return Array.isArray(list) && list.length === 3 && list;
      },
      'three dead deliveries',
      TIMEOUT_MS,
    );
    expect(dead.map((d: { lastError: string; url: string }) => [d.url, d.lastError])).toEqual([
      [rx.url, 'gone'],
      [rx.url, 'gone'],
      [rx.url, 'gone'],
    ]);
    // Nothing was sent to it while disabled.
    expect(attemptsOf(rx, 'second')).toHaveLength(0);
    expect(attemptsOf(rx, 'third')).toHaveLength(0);

    const wrong = await gw.api('POST', '/api/gone/webhooks/enable', { urls: 'nope' });
    expect(wrong.status).toBe(400);
    expect(JSON.stringify(wrong.body)).toContain('urls');
    gone = false;
    const enabled = await gw.api('POST', '/api/gone/webhooks/enable', {});
    expect(enabled.status).toBe(200);
    expect(enabled.body).toEqual({ enabled: [rx.url] });
    expect((await gw.api('GET', '/api/gone/webhooks/disabled')).body).toEqual([]);

    expect((await gw.api('POST', '/api/gone/webhooks/dead/replay', {})).status).toBe(202);
    await waitFor(() => rx.received.length === 3, 'the three replayed', TIMEOUT_MS);
    // Cluster mode replays in no set order (docs/events.md).
    expect(rx.received.map((hook) => hook.body.payload.body).sort()).toEqual(['first', 'second', 'third']);
    await incoming('gone', 'fourth');
    await waitFor(() => rx.received.length === 4, 'a new event delivered again', TIMEOUT_MS);
  });

  it('429 with Retry-After in seconds delays the next attempt by what it asks', async () => {
    const rx = await receiver((hook) =>
      attemptsOf(rx, hook.body.payload.body).length === 1 ? { status: 429, headers: { 'retry-after': '2' } } : 200,
    );
    await workingSession(gw, 'throttled', { config: { webhooks: [{ url: rx.url, events: ['message'], retries: FAST }] } });
    await incoming('throttled', 'slow down');
    await waitFor(() => rx.received.length === 1, 'the retry delivered', TIMEOUT_MS);
    const [first, second] = attemptsOf(rx, 'slow down');
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(2000);
  });

  it('503 with Retry-After as an HTTP date delays the next attempt until then', async () => {
    const rx = await receiver((hook) => {
      if (attemptsOf(rx, hook.body.payload.body).length > 1) return 200;
      // Dates have whole seconds: 3 s ahead is at least 2 s away.
      return { status: 503, headers: { 'retry-after': new Date(Date.now() + 3000).toUTCString() } };
    });
    await workingSession(gw, 'unavailable', { config: { webhooks: [{ url: rx.url, events: ['message'], retries: FAST }] } });
    await incoming('unavailable', 'later');
    await waitFor(() => rx.received.length === 1, 'the retry delivered', TIMEOUT_MS);
    const [first, second] = attemptsOf(rx, 'later');
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(2000);
  });

  it('holds a Retry-After to the webhook’s maxDelaySeconds', async () => {
    const rx = await receiver((hook) =>
      attemptsOf(rx, hook.body.payload.body).length === 1 ? { status: 429, headers: { 'retry-after': '3600' } } : 200,
    );
    const retries = { ...FAST, maxDelaySeconds: 1 };
    await workingSession(gw, 'bounded', { config: { webhooks: [{ url: rx.url, events: ['message'], retries }] } });
    await incoming('bounded', 'not an hour');
    await waitFor(() => rx.received.length === 1, 'the retry within the bound, not an hour later', TIMEOUT_MS);
  });

  it('gives up an attempt after the webhook’s timeoutSeconds', async () => {
    // The first answer comes after 8 s: past the webhook's 1 s, well within the default 10 s.
    const rx = await receiver((hook) => (attemptsOf(rx, hook.body.payload.body).length === 1 ? { status: 200, delayMs: 8000 } : 200));
    await workingSession(gw, 'impatient', { config: { webhooks: [{ url: rx.url, events: ['message'], retries: FAST, timeoutSeconds: 1 }] } });
    await incoming('impatient', 'quick');
    await waitFor(() => rx.received.length === 1, 'the retry delivered', TIMEOUT_MS);
    expect(attemptsOf(rx, 'quick').length).toBeGreaterThanOrEqual(2);
    expect(rx.received[0]).toBe(attemptsOf(rx, 'quick')[1]);
  });

  it('waits for an answer as long as the webhook’s timeoutSeconds, past the gateway’s own timeout', async () => {
    // 11 s: past the gateway's timeout in both test harnesses (2 s local, the default 10 s in cluster mode).
    const rx = await receiver(() => ({ status: 200, delayMs: 11_000 }));
    await workingSession(gw, 'patient', { config: { webhooks: [{ url: rx.url, events: ['message'], retries: FAST, timeoutSeconds: 30 }] } });
    await incoming('patient', 'take your time');
    await waitFor(() => rx.received.length === 1, 'the slow answer taken', 30_000);
    expect(attemptsOf(rx, 'take your time')).toHaveLength(1);
  }, 40_000);

  it.each([
    ['timeoutSeconds', { timeoutSeconds: 0 }],
    ['timeoutSeconds', { timeoutSeconds: 61 }],
    ['maxDelaySeconds', { retries: { maxDelaySeconds: 0 } }],
    ['jitter', { retries: { jitter: 'yes' } }],
  ])('refuses a webhook with a bad %s, naming it', async (field, setting) => {
    const res = await gw.api('POST', '/api/sessions', {
      name: `bad-${field.toLowerCase()}`,
      config: { webhooks: [{ url: 'http://127.0.0.1:9/hook', events: ['message'], ...setting }] },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain(field);
    expect((await gw.api('GET', `/api/sessions/bad-${field.toLowerCase()}`)).status).toBe(404);
  });
});
