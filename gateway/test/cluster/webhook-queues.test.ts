import { type EventEnvelope, STREAMS, type WebhookConfig } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { StreamDeadDeliveries } from '../../src/cluster/dead-letters.js';
import { StreamEventLog } from '../../src/cluster/stream-event-log.js';
import { queueConsumerName, webhookTargets } from '../../src/cluster/webhook-targets.js';
import { ApiError } from '../../src/http/errors.js';
import { makeEvent, refusingFirstAttempts, unreachableWebhook } from '../webhooks/support.js';
import { forgedEventGuard, natsPerTest, publishEvent } from './nats-support.js';

const { connection, engine: engineConnection, replica, receiver } = natsPerTest();

const seqs = (accepted: EventEnvelope[], session: string) => {
  const seen = new Set<string>();
  return accepted.filter((e) => e.session === session && !seen.has(e.id) && seen.add(e.id)).map((e) => e.payload.seq);
};
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('order per session and webhook, in cluster mode', () => {
  it('delivers each session’s events in order across two replicas, a refused event holding back the ones after it', async () => {
    const answers = refusingFirstAttempts((seq) => seq % 5 === 2);
    const rx = await receiver(answers.respond);
    const hook: WebhookConfig = { url: rx.url, events: ['*'], retries: { policy: 'constant', delaySeconds: 0.02, attempts: 5 } };
    await replica({ webhooks: [hook] });
    await replica({ webhooks: [hook] });
    const engine = await engineConnection();
    for (let seq = 0; seq < 20; seq++) {
      await publishEvent(engine, makeEvent('alpha', seq));
      await publishEvent(engine, makeEvent('beta', seq));
    }

    await waitFor(() => rx.accepted.length >= 40, 'all 40 deliveries', 15_000);
    expect(seqs(rx.accepted, 'alpha')).toEqual(range(20));
    expect(seqs(rx.accepted, 'beta')).toEqual(range(20));
    expect(answers.refused.size).toBe(8);
  });

  it('keeps the order when the replica holding an event is killed mid-delivery', async () => {
    let release!: () => void;
    const held = new Promise<number>((resolve) => (release = () => resolve(200)));
    const rx = await receiver((_, index) => (index === 3 ? held : 200));
    const hook: WebhookConfig = { url: rx.url, events: ['*'] };
    const doomed = await replica({ webhooks: [hook], ackWaitMs: 1_000 });
    const engine = await engineConnection();
    for (let seq = 0; seq < 10; seq++) await publishEvent(engine, makeEvent('alpha', seq));
    await waitFor(() => rx.received.length === 4, 'the fourth event in flight');

    await replica({ webhooks: [hook], ackWaitMs: 1_000 });
    await doomed.kill();
    release();
    await waitFor(() => seqs(rx.accepted, 'alpha').length === 10, 'the other replica to go on', 10_000);
    expect(seqs(rx.accepted, 'alpha')).toEqual(range(10));
  });
});

describe('isolation: a dead receiver holds only its own queue', () => {
  it('lets the session’s other webhook and other sessions go on while one receiver is down', async () => {
    const { hook: down } = await unreachableWebhook(['*'], { retries: { policy: 'constant', delaySeconds: 5, attempts: 10 } });
    const rx = await receiver();
    const { worker } = await replica({ webhooks: [down, { url: rx.url, events: ['*'] }] });
    const engine = await engineConnection();
    for (let seq = 0; seq < 50; seq++) await publishEvent(engine, makeEvent(seq % 2 ? 'alpha' : 'beta', seq));

    await waitFor(() => rx.accepted.length === 50, 'all 50 to the live receiver', 5_000);
    // The dead receiver got its first event of each session once, and waits to retry it.
    expect(worker.counters.retried).toBe(2);
    expect(worker.queueNames.sort()).toEqual(
      ['alpha', 'beta'].flatMap((s) => webhookTargets([down, { url: rx.url, events: ['*'] }], null).map((t) => queueConsumerName(s, t.id))).sort(),
    );
  });
});

describe('queues follow the sessions’ webhooks', () => {
  it('starts a queue for a webhook added later, and deletes the one of a webhook removed', async () => {
    const rx = await receiver();
    const first: WebhookConfig = { url: `${rx.url}?first`, events: ['*'] };
    const added: WebhookConfig = { url: `${rx.url}?added`, events: ['*'] };
    let webhooks: WebhookConfig[] = [first];
    const listeners = new Set<() => void>();
    const changed = () => listeners.forEach((listener) => listener());
    const { worker } = await replica({
      sessions: () => ['alpha'],
      webhooksOf: () => webhooks,
      onSessionsChange: (listener) => (listeners.add(listener), () => listeners.delete(listener)),
      deleteAfterMs: 0,
    });
    const nameOf = (hook: WebhookConfig) => queueConsumerName('alpha', webhookTargets([hook], null)[0]!.id);
    expect(worker.queueNames).toEqual([nameOf(first)]);

    webhooks = [first, added];
    changed();
    await waitFor(() => worker.queueNames.length === 2, 'a queue for the added webhook');
    const engine = await engineConnection();
    await publishEvent(engine, makeEvent('alpha', 1));
    await waitFor(() => rx.accepted.length === 2, 'the event to both webhooks');

    webhooks = [added];
    changed();
    await waitFor(() => worker.queueNames.length === 1, 'the removed webhook’s queue stopped');
    expect(worker.queueNames).toEqual([nameOf(added)]);
    const jsm = await (await connection()).jetstreamManager();
    await waitFor(async () => {
      await worker.sync(true);
      return (await jsm.consumers.info(STREAMS.events, nameOf(first)).catch(() => null)) === null;
    }, 'its consumer deleted');
    expect(await jsm.consumers.info(STREAMS.events, nameOf(added))).toBeTruthy();
  });
});

describe('dead deliveries in cluster mode: SB_DEAD, listed and replayed through SB_REPLAY', () => {
  it('lists the letters of a session, replays them once the receiver is back, and removes them', async () => {
    const { port, hook } = await unreachableWebhook(['*'], { hmac: { key: 'not-in-letters' } });
    const { worker } = await replica({ webhooks: [hook] });
    const nc = await connection();
    const dead = new StreamDeadDeliveries({ nc, webhooksOf: () => [hook], globalHook: null });
    const events = range(3).map((seq) => makeEvent('alpha', seq));
    for (const event of events) await publishEvent(await engineConnection(), event);
    await waitFor(() => worker.counters.dead === 3, 'three deliveries to die', 5_000);

    const letters = await waitFor(async () => {
      const list = await dead.list('alpha', { limit: 100, offset: 0 });
      return list.length === 3 && list;
    }, 'three letters');
    expect(letters.map((d) => d.eventId)).toEqual(events.map((e) => e.envelope.id));
    for (const letter of letters) {
      expect(letter).toMatchObject({ session: 'alpha', event: 'message', url: hook.url, attempts: 2, lastError: 'refused' });
    }
    expect(await dead.list('alpha', { limit: 1, offset: 2 })).toEqual([letters[2]]);
    expect(await dead.list('beta', { limit: 100, offset: 0 })).toEqual([]);
    await expect(dead.replay('alpha', [letters[0]!.id, 987_654])).rejects.toThrow(ApiError);

    const rx = await receiver(() => 200, port);
    expect(await dead.replay('alpha', undefined)).toEqual({ replayed: letters.map((d) => d.id), skipped: [] });
    await waitFor(() => rx.accepted.length === 3, 'the replays', 5_000);
    expect(new Set(rx.accepted.map((e) => e.id))).toEqual(new Set(events.map((e) => e.envelope.id)));
    await waitFor(async () => (await dead.list('alpha', { limit: 100, offset: 0 })).length === 0, 'the letters removed');
  });

  it('keeps as dead, with a new letter, a replay that fails again; skips one whose webhook is gone', async () => {
    const { hook } = await unreachableWebhook(['*']);
    const { worker } = await replica({ webhooks: [hook] });
    const nc = await connection();
    await publishEvent(await engineConnection(), makeEvent('alpha', 1));
    await waitFor(() => worker.counters.dead === 1, 'the delivery to die', 5_000);
    const dead = new StreamDeadDeliveries({ nc, webhooksOf: () => [hook], globalHook: null });
    const [letter] = await waitFor(async () => {
      const list = await dead.list('alpha', { limit: 10, offset: 0 });
      return list.length === 1 && list;
    }, 'the letter');

    expect((await dead.replay('alpha', [letter!.id])).replayed).toEqual([letter!.id]);
    const [again] = await waitFor(
      async () => {
        const list = await dead.list('alpha', { limit: 10, offset: 0 });
        return list.length === 1 && list[0]!.id !== letter!.id && list;
      },
      'a new letter in place of the old one',
      5_000,
    );
    expect(again).toMatchObject({ eventId: letter!.eventId, attempts: 2 });
    expect(worker.counters.dead).toBe(2);

    const gone = new StreamDeadDeliveries({ nc, webhooksOf: () => [], globalHook: null });
    expect(await gone.replay('alpha', undefined)).toEqual({
      replayed: [],
      skipped: [{ id: again!.id, reason: 'the session has no webhook with this url any more' }],
    });
  });
});

describe('event log in cluster mode: SB_EVENTS by session', () => {
  it('returns the events after an id, oldest first, up to the limit, the bytes as published', async () => {
    const engine = await engineConnection();
    const events = range(6).map((seq) => makeEvent(seq % 3 === 2 ? 'beta' : 'alpha', seq));
    for (const event of events) await publishEvent(engine, event);
    const log = new StreamEventLog(await connection(), forgedEventGuard().guard);
    const alpha = events.filter((e) => e.envelope.session === 'alpha').map((e) => e.json);

    expect(await log.since('alpha', undefined, 100)).toEqual(alpha);
    expect(await log.since('alpha', events[1]!.envelope.id, 100)).toEqual(alpha.slice(2));
    expect(await log.since('alpha', events[1]!.envelope.id, 1)).toEqual(alpha.slice(2, 3));
    expect(await log.since('alpha', events[5]!.envelope.id, 100)).toEqual([]);
    expect(await log.since('gamma', undefined, 100)).toEqual([]);
  });
});
