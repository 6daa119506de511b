import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { WebhookConfig } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { closedPort } from '@switchboard/testkit';
import { closedAfterEach, countingInFlight, makeEvent, refusingFirstAttempts } from '../../webhooks/support.js';

const { fixture, receiver } = closedAfterEach();

/** Exponential retries on a millisecond scale, so a test sees several attempts quickly; exact, without jitter. */
const quickRetries = (delaySeconds: number): WebhookConfig['retries'] => ({ policy: 'exponential', delaySeconds, jitter: false });
const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(',') : value);

describe('6.1 webhook requests', () => {
  it('posts the stored bytes with the spec headers, and an HMAC the receiver verifies over the raw body', async () => {
    const f = fixture();
    const rx = await receiver();
    const key = 'receiver-shared-secret';
    const signed: WebhookConfig = {
      url: `${rx.url}?signed`,
      events: ['*'],
      hmac: { key },
      customHeaders: [{ name: 'X-Tenant', value: 'acme:eu:1' }],
    };
    const plain: WebhookConfig = { url: `${rx.url}?plain`, events: ['message'] };
    const event = makeEvent('alpha', 1);
    const before = Date.now();
    f.enqueue(event, [signed, plain]);
    f.dispatcher.start();

    await waitFor(() => f.dispatcher.counters.succeeded === 2, 'both deliveries');
    const after = Date.now();
    for (const { body, headers } of rx.received) {
      expect(body.equals(Buffer.from(event.json, 'utf8'))).toBe(true);
      expect(headers['content-type']).toBe('application/json');
      expect(headers['x-webhook-request-id']).toMatch(/^req_[0-9a-hjkmnp-tv-z]{26}$/);
      const sentAt = Number(headers['x-webhook-timestamp']);
      expect(sentAt).toBeGreaterThanOrEqual(before);
      expect(sentAt).toBeLessThanOrEqual(after);
    }
    expect(new Set(rx.received.map((r) => r.headers['x-webhook-request-id'])).size).toBe(2);

    const withHmac = rx.received.filter((r) => r.headers['x-webhook-hmac'] !== undefined);
    expect(withHmac).toHaveLength(1);
    const [request] = withHmac;
    expect(request!.headers['x-webhook-hmac-algorithm']).toBe('sha512');
    expect(request!.headers['x-webhook-hmac']).toBe(createHmac('sha512', key).update(request!.body).digest('hex'));
    expect(header(request!.headers['x-tenant'])).toBe('acme:eu:1');

    const unsigned = rx.received.find((r) => r !== request)!;
    expect(unsigned.headers['x-webhook-hmac-algorithm']).toBeUndefined();
    expect(unsigned.headers['x-tenant']).toBeUndefined();

    expect(f.dispatcher.counters).toEqual({ succeeded: 2, retried: 0, dead: 0 });
    expect(f.outbox.pendingCount()).toBe(0);
  });

  it('delivers an event published on the bus at once, without waiting for a poll', async () => {
    const f = fixture();
    const rx = await receiver();
    const { bus, fanout } = f.fanout(() => [{ url: rx.url, events: ['message'] }]);
    f.dispatcher.start();
    // Let the idle dispatcher settle on its 5 s poll timer first.
    await new Promise((resolve) => setTimeout(resolve, 20));

    const event = makeEvent('alpha', 1);
    const publishedAt = Date.now();
    bus.publish(event);
    expect(f.outbox.pendingCount()).toBe(1);
    await waitFor(() => f.dispatcher.counters.succeeded === 1, 'the delivery', 1_000);
    expect(rx.accepted.map((e) => e.id)).toEqual([event.envelope.id]);
    expect(rx.received[0]!.at - publishedAt).toBeLessThan(1_000);
    fanout.stop();
  });
});

describe('6.1 retries', () => {
  it('retries a 500 answer per the schedule until a 2xx, counting each attempt', async () => {
    const f = fixture();
    const rx = await receiver((_, index) => (index < 2 ? 500 : 200));
    const event = makeEvent('alpha', 1);
    f.enqueue(event, [{ url: rx.url, events: ['*'], retries: quickRetries(0.05) }]);
    f.dispatcher.start();

    await waitFor(() => f.dispatcher.counters.succeeded === 1, 'the third attempt to succeed');
    expect(rx.received).toHaveLength(3);
    expect(rx.accepted[0]!.id).toBe(event.envelope.id);
    expect(new Set(rx.received.map((r) => r.headers['x-webhook-request-id'])).size).toBe(3);
    // Exponential from 50 ms: at least 50 then 100 ms apart (1 ms slack for clock rounding).
    expect(rx.received[1]!.at - rx.received[0]!.at).toBeGreaterThanOrEqual(49);
    expect(rx.received[2]!.at - rx.received[1]!.at).toBeGreaterThanOrEqual(99);
    expect(f.dispatcher.counters).toEqual({ succeeded: 1, retried: 2, dead: 0 });
    expect(f.outbox.pendingCount()).toBe(0);
    expect(f.outbox.deadFor('alpha')).toEqual([]);
  });

  it('counts a receiver slower than the timeout as a failed attempt', async () => {
    const f = fixture({ timeoutMs: 150 });
    const rx = await receiver(async (_, index) => {
      if (index === 0) await new Promise((resolve) => setTimeout(resolve, 1_000));
      return 200;
    });
    f.enqueue(makeEvent('alpha', 1), [{ url: rx.url, events: ['*'], retries: quickRetries(0.02) }]);
    f.dispatcher.start();

    await waitFor(() => f.dispatcher.counters.succeeded === 1, 'the retry to succeed');
    expect(rx.received).toHaveLength(2);
    expect(f.dispatcher.counters).toEqual({ succeeded: 1, retried: 1, dead: 0 });
    expect(f.logCapture.lines.join('')).toContain('timeout after 150 ms');
  });

  it('after the last attempt keeps the delivery as dead and warns without secrets', async () => {
    const f = fixture();
    const url = `http://127.0.0.1:${(await closedPort()).port}/hook`;
    const event = makeEvent('alpha', 7);
    f.enqueue(event, [
      {
        url,
        events: ['*'],
        hmac: { key: 'hmac-key-never-logged' },
        customHeaders: [{ name: 'Authorization', value: 'Bearer header-value-never-logged' }],
        retries: { policy: 'constant', delaySeconds: 0.05, attempts: 3 },
      },
    ]);
    f.dispatcher.start();

    await waitFor(() => f.outbox.deadFor('alpha').length === 1, 'the delivery to die');
    const [dead] = f.outbox.deadFor('alpha');
    expect(dead).toMatchObject({ eventId: event.envelope.id, session: 'alpha', url, attempts: 3, lastError: 'refused' });
    expect(f.outbox.deadFor('beta')).toEqual([]);
    expect(f.outbox.pendingCount()).toBe(0);
    expect(f.dispatcher.counters).toEqual({ succeeded: 0, retried: 2, dead: 1 });

    const warnings = f.logCapture.lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((l) => l.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ session: 'alpha', eventId: event.envelope.id, url, reason: 'refused', detail: 'ECONNREFUSED' });
    const everything = f.logCapture.lines.join('');
    expect(everything).not.toContain('hmac-key-never-logged');
    expect(everything).not.toContain('header-value-never-logged');
  });
});

describe('6.1 delivery order and isolation', () => {
  it('keeps each (session, webhook) queue in order, also across retries', async () => {
    const f = fixture();
    // Every fifth event is refused once, so order must survive a retry at the queue head.
    const rx = await receiver(refusingFirstAttempts((seq) => seq % 5 === 0).respond);
    const target: WebhookConfig = { url: rx.url, events: ['*'], retries: quickRetries(0.01) };
    for (let seq = 0; seq < 20; seq++) {
      f.enqueue(makeEvent('alpha', seq), [target]);
      f.enqueue(makeEvent('beta', seq), [target]);
    }
    f.dispatcher.start();

    await waitFor(() => f.dispatcher.counters.succeeded === 40, '40 deliveries');
    const seqs = (session: string) => rx.accepted.filter((e) => e.session === session).map((e) => e.payload.seq);
    const expected = Array.from({ length: 20 }, (_, i) => i);
    expect(seqs('alpha')).toEqual(expected);
    expect(seqs('beta')).toEqual(expected);
    expect(rx.received).toHaveLength(48);
    expect(f.dispatcher.counters).toEqual({ succeeded: 40, retried: 8, dead: 0 });
  });

  it('does not let a slow receiver delay another webhook', async () => {
    const f = fixture();
    const slow = await receiver(async () => {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      return 200;
    });
    const quick = await receiver();
    const targets: WebhookConfig[] = [
      { url: slow.url, events: ['*'] },
      { url: quick.url, events: ['*'] },
    ];
    for (let seq = 0; seq < 5; seq++) f.enqueue(makeEvent('alpha', seq), targets);
    f.dispatcher.start();

    await waitFor(() => quick.accepted.length === 5, 'the quick receiver to get all 5');
    expect(slow.accepted).toHaveLength(0);
    // One request in flight per queue: the slow webhook's later events wait behind its first.
    expect(slow.received).toHaveLength(1);
    await waitFor(() => slow.accepted.length === 1, 'the slow receiver to answer', 4_000);
    expect(quick.received.at(-1)!.at).toBeLessThan(slow.received[0]!.at + 2_000);
    expect(slow.accepted[0]!.payload.seq).toBe(0);
  });

  it('runs at most `concurrency` requests at once over all webhooks', async () => {
    const f = fixture({ concurrency: 2 });
    const { respond, peak } = countingInFlight(100);
    const rx = await receiver(respond);
    const targets = ['a', 'b', 'c', 'd'].map((path): WebhookConfig => ({ url: `${rx.url}/${path}`, events: ['*'] }));
    f.enqueue(makeEvent('alpha', 0), targets);
    f.dispatcher.start();

    await waitFor(() => rx.accepted.length === 4, '4 deliveries');
    expect(peak()).toBe(2);
  });

  it('sends a queued event to its webhook as the session has it now: an edit applies, a removal drops the queue', async () => {
    const f = fixture();
    const rx = await receiver();
    const kept: WebhookConfig = { url: `${rx.url}?kept`, events: ['*'], customHeaders: [{ name: 'X-Tenant', value: 'old' }] };
    const removed: WebhookConfig = { url: `${rx.url}?removed`, events: ['*'] };
    const event = makeEvent('alpha', 0);
    f.enqueue(event, [kept, removed]);
    // Edited and removed while the event waits in the queue (the dispatcher is not started yet).
    f.webhooks.set('alpha', [{ ...kept, customHeaders: [{ name: 'X-Tenant', value: 'new' }] }]);
    f.dispatcher.start();

    await waitFor(() => rx.accepted.length === 1, 'the delivery to the kept webhook');
    const [request] = rx.received;
    expect(request!.headers['x-tenant']).toBe('new');
    await waitFor(() => f.outbox.pendingCount() === 0, 'nothing pending');
    expect(rx.received).toHaveLength(1);
    expect(f.db.prepare('SELECT COUNT(*) AS n FROM webhook_cursors').get()).toEqual({ n: 1 });
  });

  it('leaves no retry behind when the session is deleted while its request is in flight', async () => {
    const f = fixture();
    let answer: (status: number) => void = () => {};
    const rx = await receiver(() => new Promise<number>((resolve) => (answer = resolve)));
    f.enqueue(makeEvent('alpha', 0), [{ url: rx.url, events: ['*'], retries: quickRetries(0.01) }]);
    f.dispatcher.start();
    await waitFor(() => rx.received.length === 1, 'the request in flight');

    f.outbox.forgetSession('alpha');
    f.dispatcher.forgetSession('alpha');
    // Made again with the name and the webhook: nothing of the old session is owed to it.
    f.webhooks.set('alpha', [{ url: rx.url, events: ['*'] }]);
    answer(500);
    // Waits for the request in flight, its answer recorded.
    await f.dispatcher.stop();
    expect(f.db.prepare('SELECT COUNT(*) AS n FROM webhook_deliveries').get()).toEqual({ n: 0 });
    expect(f.outbox.pendingCount()).toBe(0);
    expect(rx.received).toHaveLength(1);
  });
});
