import { createHmac } from 'node:crypto';
import { OutboundPolicy } from '@switchboard/kube';
import type { WebhookConfig } from '@switchboard/protocol';
import { STREAMS } from '@switchboard/protocol';
import { closedPort, waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { DEAD_LETTERS } from '../../src/cluster/event-source.js';
import { queueConsumerName, webhookTargets } from '../../src/cluster/webhook-targets.js';
import { makeEvent } from '../webhooks/support.js';
import { captureLog, natsPerTest, publishEvent } from './nats-support.js';

const { connection, engine: engineConnection, replica, receiver, natsProxy } = natsPerTest();
const KEY = 'receiver-shared-secret';
const signedBy = (key: string, body: Buffer) => createHmac('sha512', key).update(body).digest('hex');

describe('6.1 webhooks in cluster mode: one JetStream consumer shared by the replicas', () => {
  it('delivers each event once between two replicas, signed over the bytes the engine published', async () => {
    const rx = await receiver();
    const hook: WebhookConfig = { url: rx.url, events: ['message'], hmac: { key: KEY } };
    const [a, b] = [await replica({ webhooks: [hook] }), await replica({ webhooks: [hook] })];
    const engine = await engineConnection();
    const events = Array.from({ length: 20 }, (_, seq) => makeEvent(seq % 2 ? 'alpha' : 'beta', seq));
    for (const event of events) await publishEvent(engine, event);

    await waitFor(() => rx.accepted.length === 20, 'all 20 deliveries');
    // Long enough for a second replica's duplicate to show up, were the consumer not shared.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(rx.received).toHaveLength(20);
    expect(new Set(rx.accepted.map((e) => e.id))).toEqual(new Set(events.map((e) => e.envelope.id)));
    for (const request of rx.received) {
      const id = JSON.parse(request.body.toString('utf8')).id;
      expect(request.body.toString('utf8')).toBe(events.find((e) => e.envelope.id === id)!.json);
      expect(request.headers['x-webhook-hmac']).toBe(signedBy(KEY, request.body));
      expect(request.headers['x-webhook-hmac-algorithm']).toBe('sha512');
      expect(request.headers['x-webhook-request-id']).toMatch(/^req_[0-9a-hjkmnp-tv-z]{26}$/);
    }
    expect(a.worker.counters.succeeded + b.worker.counters.succeeded).toBe(20);
  });

  it('sends each event to the session webhooks that want it and to the global webhook', async () => {
    const rx = await receiver();
    const session: WebhookConfig = { url: `${rx.url}?session`, events: ['session.status'] };
    const global: WebhookConfig = { url: `${rx.url}?global`, events: ['*'] };
    await replica({ webhooks: [session], globalHook: global });
    const engine = await engineConnection();
    await publishEvent(engine, makeEvent('alpha', 1, 'message'));
    await publishEvent(engine, makeEvent('alpha', 2, 'session.status'));

    await waitFor(() => rx.accepted.length === 3, 'three deliveries');
    // `message` to the global webhook only; `session.status` to both.
    const seqs = rx.accepted.map((envelope) => envelope.payload.seq);
    expect(seqs.sort()).toEqual([1, 2, 2]);
  });

  it('keeps an event while it retries past the ack wait, so no other replica sends it again', async () => {
    const rx = await receiver((_, index) => (index < 4 ? 503 : 200));
    const hook: WebhookConfig = { url: rx.url, events: ['*'], retries: { policy: 'constant', delaySeconds: 0.4, attempts: 6 } };
    const a = await replica({ webhooks: [hook], ackWaitMs: 1_000 });
    const b = await replica({ webhooks: [hook], ackWaitMs: 1_000 });
    await publishEvent(await engineConnection(), makeEvent('alpha', 1));

    await waitFor(() => rx.accepted.length === 1, 'the fifth attempt to succeed', 10_000);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(rx.received).toHaveLength(5);
    const counters = [a.worker.counters, b.worker.counters];
    expect(counters.map((c) => c.succeeded).sort()).toEqual([0, 1]);
    expect(counters.map((c) => c.retried).sort()).toEqual([0, 4]);
  });
});

describe('a thousand sessions on one replica (issue 17)', () => {
  it("has every queue's delivery in flight at once, beyond 64: a shared receiver's latency does not cap the replica's deliveries/s", async () => {
    const sessions = Array.from({ length: 200 }, (_, i) => `s${i}`);
    let release!: () => void;
    const released = new Promise<number>((resolve) => (release = () => resolve(200)));
    // Answers nothing until released: every request the replica sends meanwhile is in flight at once.
    const rx = await receiver(() => released);
    try {
      await replica({ webhooks: [{ url: rx.url, events: ['message'] }], sessions: () => sessions });
      const engine = await engineConnection();
      await Promise.all(sessions.map((session, seq) => publishEvent(engine, makeEvent(session, seq))));
      await waitFor(() => rx.received.length === sessions.length, 'one request per session in flight at once', 20_000);
    } finally {
      release();
    }
    await waitFor(() => rx.accepted.length === sessions.length, 'every delivery answered');
  });
});

describe('6.1 queues belong to one session, not to its name (issue 12 item 8)', () => {
  it("a session deleted and made again in one change seen here: the old one's events, retrying or waiting, are not sent for the new one", async () => {
    let up = false;
    const rx = await receiver(() => (up ? 200 : 503));
    const hook: WebhookConfig = { url: rx.url, events: ['*'], retries: { policy: 'constant', delaySeconds: 0.1, attempts: 1_000 } };
    let uid = 'uid-1';
    const listeners = new Set<() => void>();
    const { worker } = await replica({
      webhooks: [hook],
      sessions: () => ['alpha'],
      incarnationOf: () => uid,
      onSessionsChange: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    });
    const engine = await engineConnection();
    const old = [makeEvent('alpha', 1), makeEvent('alpha', 2)];
    for (const event of old) await publishEvent(engine, event);
    await waitFor(() => rx.received.length >= 2, "the old session's first event to be retrying");

    // Deleted and made again, seen as one change: nothing dropped the old session's events.
    uid = 'uid-2';
    for (const listener of listeners) listener();
    await worker.sync();
    up = true;
    const target = webhookTargets([hook], null)[0]!;
    expect(worker.queueNames).toEqual([queueConsumerName('alpha', target.id, 'uid-2')]);
    const fresh = makeEvent('alpha', 3);
    await publishEvent(engine, fresh);
    await waitFor(() => rx.accepted.length >= 1, "the new session's event");
    expect(rx.accepted.map((envelope) => envelope.id)).toEqual([fresh.envelope.id]);
  });
});

describe('6.1 queues named per incarnation after an upgrade', () => {
  it('takes over where the queue named by the session alone stands: nothing sent twice, nothing lost', async () => {
    let up = false;
    const rx = await receiver((request) => (up || JSON.parse(request.body.toString('utf8')).payload.seq === 1 ? 200 : 503));
    const hook: WebhookConfig = { url: rx.url, events: ['*'], retries: { policy: 'constant', delaySeconds: 0.1, attempts: 1_000 } };
    const before = await replica({ webhooks: [hook], sessions: () => ['alpha'] });
    const engine = await engineConnection();
    const [first, second] = [makeEvent('alpha', 1), makeEvent('alpha', 2)];
    for (const event of [first, second]) await publishEvent(engine, event);
    await waitFor(() => rx.received.length >= 2, 'the first event delivered and the second retrying');
    await before.worker.stop();

    up = true;
    await replica({ webhooks: [hook], sessions: () => ['alpha'], incarnationOf: () => 'uid-1' });
    await waitFor(() => rx.accepted.length >= 2, 'the second event');
    expect(rx.accepted.map((envelope) => envelope.id)).toEqual([first.envelope.id, second.envelope.id]);
  });
});

describe('6.1 at least once across replicas', () => {
  it('has another replica deliver, after the ack wait, an event whose replica died mid-delivery', async () => {
    let releaseHeld!: () => void;
    const held = new Promise<number>((resolve) => (releaseHeld = () => resolve(200)));
    const rx = await receiver((_, index) => (index === 0 ? held : 200));
    const hook: WebhookConfig = { url: rx.url, events: ['*'], hmac: { key: KEY } };
    const doomed = await replica({ webhooks: [hook], ackWaitMs: 1_000 });
    const event = makeEvent('alpha', 1);
    await publishEvent(await engineConnection(), event);
    await waitFor(() => rx.received.length === 1, 'the first replica to post it');

    const survivor = await replica({ webhooks: [hook], ackWaitMs: 1_000 });
    const killedAt = Date.now();
    await doomed.kill();
    await waitFor(() => rx.accepted.length === 1, 'the survivor to deliver it', 10_000);
    releaseHeld();
    // The ack wait runs from the dead replica's last progress report, which it sends every third
    // of the ack wait: up to 333 ms before the kill. Not at once, then, but after most of the wait.
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(1_000 - 1_000 / 3 - 50);
    // The receiver has the request before the survivor has its answer: wait for the count.
    await waitFor(() => survivor.worker.counters.succeeded === 1, 'the survivor to count the delivery');
    expect(survivor.worker.counters.succeeded).toBe(1);
    expect(rx.accepted[0]!.id).toBe(event.envelope.id);
    const redelivered = rx.received[1]!;
    expect(redelivered.body.toString('utf8')).toBe(event.json);
    expect(redelivered.headers['x-webhook-hmac']).toBe(signedBy(KEY, redelivered.body));
  });

  it('has another replica deliver what a replica cut off from NATS without a close was handed; its waiting pull expires with the ack wait', async () => {
    const rx = await receiver();
    const hook: WebhookConfig = { url: rx.url, events: ['*'] };
    const proxy = await natsProxy();
    await replica({ webhooks: [hook], ackWaitMs: 1_000, through: proxy });
    const engine = await engineConnection();
    const first = makeEvent('alpha', 0);
    await publishEvent(engine, first);
    const jsm = await (await connection()).jetstreamManager();
    const queue = async () => {
      const consumers = await jsm.consumers.list(STREAMS.events).next();
      return consumers.find((info) => info.config.filter_subject?.startsWith('sb.evt.alpha.'));
    };
    // Delivered and acked, and the replica waits for the next event with a pull on the server.
    await waitFor(async () => {
      const info = await queue();
      return info !== undefined && info.ack_floor.stream_seq >= 1 && info.num_waiting === 1;
    }, 'the first event acked and the replica’s next pull waiting');

    // The connection stays open and carries nothing, as when a network partition hides a pod.
    proxy.stall();
    const survivor = await replica({ webhooks: [hook], ackWaitMs: 1_000 });
    // The silent replica's pull lapses with the ack wait. It lived 30 s before: the server handed the
    // next event to it, to come back only after the ack wait (delivery stalled that long in the
    // chaos tier, docs/operations.md). Let it lapse, then the next event goes to the survivor directly.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const events = Array.from({ length: 5 }, (_, i) => makeEvent('alpha', i + 1));
    for (const event of events) await publishEvent(engine, event);
    await waitFor(() => survivor.worker.counters.succeeded === 5, 'the other replica to deliver every later event', 15_000);
    // One delivery per event: none went to the silent replica first.
    expect((await queue())?.delivered.consumer_seq).toBe(6);
    expect(rx.accepted.map((envelope) => envelope.id)).toEqual([first, ...events].map((event) => event.envelope.id));
  });

  it('hands its events back on a graceful stop, so another replica delivers them at once', async () => {
    let releaseHeld!: () => void;
    const held = new Promise<number>((resolve) => (releaseHeld = () => resolve(200)));
    const rx = await receiver((_, index) => (index === 0 ? held : 200));
    const hook: WebhookConfig = { url: rx.url, events: ['*'] };
    const leaving = await replica({ webhooks: [hook], ackWaitMs: 30_000 });
    await publishEvent(await engineConnection(), makeEvent('alpha', 1));
    await waitFor(() => rx.received.length === 1, 'the first replica to post it');

    const staying = await replica({ webhooks: [hook], ackWaitMs: 30_000 });
    await leaving.worker.stop();
    await waitFor(() => rx.accepted.length === 1, 'the other replica to deliver it', 5_000);
    releaseHeld();
    await waitFor(() => staying.worker.counters.succeeded === 1, 'the other replica to count the delivery');
    expect(staying.worker.counters.succeeded).toBe(1);
  });
});

describe('6.1 given up, not dropped', () => {
  it('publishes a delivery that used up its attempts to sb.dead.<session>, warns, and acks the event', async () => {
    const down = `http://127.0.0.1:${(await closedPort()).port}/hook`;
    const hook: WebhookConfig = {
      url: down,
      events: ['*'],
      hmac: { key: KEY },
      customHeaders: [{ name: 'X-Secret', value: 'header-secret' }],
      retries: { policy: 'constant', delaySeconds: 0.05, attempts: 3 },
    };
    const { log, lines } = captureLog();
    const { worker } = await replica({ webhooks: [hook], log });
    const nc = await connection();
    const event = makeEvent('alpha', 1);
    await publishEvent(nc, event);

    await waitFor(() => worker.counters.dead === 1, 'the delivery to die', 5_000);
    const jsm = await nc.jetstreamManager();
    const stored = await waitFor(
      () => jsm.streams.getMessage(DEAD_LETTERS.stream, { last_by_subj: DEAD_LETTERS.subject('alpha') }).catch(() => null),
      'the dead letter',
    );
    const letter = stored.json<Record<string, unknown>>();
    expect(letter).toMatchObject({ eventId: event.envelope.id, session: 'alpha', event: 'message', url: down, attempts: 3 });
    expect(letter.lastError).toBe('refused');
    expect(letter.envelope).toEqual(event.envelope);
    expect(stored.string()).not.toContain(KEY);
    expect(stored.string()).not.toContain('header-secret');
    expect(worker.counters).toEqual({ succeeded: 0, retried: 2, dead: 1 });

    await waitFor(async () => {
      const [target] = webhookTargets([hook], null);
      const info = await jsm.consumers.info(STREAMS.events, queueConsumerName('alpha', target!.id));
      return info.num_ack_pending === 0 && info.num_pending === 0;
    }, 'the event to be acked');
    const warning = lines.map((line) => JSON.parse(line)).find((line) => line.level === 40);
    expect(warning).toMatchObject({ session: 'alpha', eventId: event.envelope.id, attempt: 3, reason: 'refused', detail: 'ECONNREFUSED' });
    expect(lines.join('')).not.toContain(KEY);
  });
});

describe('outbound address policy in cluster mode', () => {
  it('refuses a webhook whose host name resolves to a denied address as blocked_address, without connecting', async () => {
    const rx = await receiver();
    const hook: WebhookConfig = {
      url: `http://localhost:${rx.port}/hook`,
      events: ['*'],
      retries: { policy: 'constant', delaySeconds: 0.05, attempts: 2 },
    };
    const { log, lines } = captureLog();
    const { worker } = await replica({ webhooks: [hook], log, policy: new OutboundPolicy({ deny: '127.0.0.0/8,::1' }) });
    const nc = await connection();
    await publishEvent(nc, makeEvent('alpha', 1));

    await waitFor(() => worker.counters.dead === 1, 'the delivery to die', 5_000);
    const jsm = await nc.jetstreamManager();
    const stored = await waitFor(
      () => jsm.streams.getMessage(DEAD_LETTERS.stream, { last_by_subj: DEAD_LETTERS.subject('alpha') }).catch(() => null),
      'the dead letter',
    );
    expect(stored.json<Record<string, unknown>>().lastError).toBe('blocked_address');
    expect(rx.received).toHaveLength(0);
    // The address and the rule are for the logs.
    const warning = lines.map((line) => JSON.parse(line)).find((line) => line.level === 40);
    expect(warning).toMatchObject({
      reason: 'blocked_address',
      detail: expect.stringContaining('127.0.0.1 is denied by the outbound address policy'),
    });
  });
});
