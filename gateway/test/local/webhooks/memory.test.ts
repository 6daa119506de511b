import { describe, expect, it } from 'vitest';
import type { WebhookConfig } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import {
  closedAfterEach,
  countingInFlight,
  type FixtureOptions,
  makeEvent,
  type OutboxFixture,
  refusingFirstAttempts,
} from '../../webhooks/support.js';

const { fixture, receiver } = closedAfterEach();

/**
 * Local mode's wiring: the bus, the fan-out writing through the fixture's write batch, the
 * dispatcher started. Counts the outbox reads a queue makes (`headOf`, the real method).
 */
function wired(f: OutboxFixture, webhooks: (session: string) => WebhookConfig[]) {
  const { bus } = f.fanout(webhooks);
  const reads = { count: 0 };
  const headOf = f.outbox.headOf.bind(f.outbox);
  f.outbox.headOf = (...args) => {
    reads.count++;
    return headOf(...args);
  };
  f.dispatcher.start();
  return { bus, reads };
}

const seqsOf = (events: { session: string; payload: unknown }[], session: string) =>
  events.filter((e) => e.session === session).map((e) => (e.payload as { seq: number }).seq);
const upTo = (n: number) => Array.from({ length: n }, (_, i) => i);
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('6.1 deliveries sent from memory, the outbox as the durable copy', () => {
  it('sends committed rows from memory: one outbox read for a new queue, none after, in order', async () => {
    const f = fixture({ writeBatch: true });
    const rx = await receiver();
    const { bus, reads } = wired(f, () => [{ url: rx.url, events: ['*'] }]);

    for (let seq = 0; seq < 30; seq++) {
      bus.publish(makeEvent('alpha', seq));
      // Several turns, so several commits: later rows join a queue memory already holds.
      if (seq % 10 === 9) await nextTurn();
    }
    await waitFor(() => f.dispatcher.counters.succeeded === 30, '30 deliveries');
    expect(seqsOf(rx.accepted, 'alpha')).toEqual(upTo(30));
    expect(rx.received).toHaveLength(30);
    expect(reads.count).toBe(1);
    expect(f.outbox.pendingCount()).toBe(0);
  });

  it('hands the dispatcher nothing of a batch that rolled back, so a reused row id is sent once', async () => {
    const f = fixture({ writeBatch: true });
    const rx = await receiver();
    const { bus } = wired(f, () => [{ url: rx.url, events: ['*'] }]);
    // First a delivery, so memory holds the queue and would take new rows as they come.
    const first = makeEvent('alpha', 0);
    bus.publish(first);
    await waitFor(() => f.dispatcher.counters.succeeded === 1, 'the first event');

    const lost = makeEvent('alpha', 1);
    bus.publish(lost);
    // Another write of the same turn fails: the whole batch, the outbox row included, rolls back.
    f.writes!.add(() => {
      throw new Error('disk full');
    });
    await nextTurn();
    expect(f.failedBatches).toEqual([2]);
    expect(f.outbox.pendingCount()).toBe(0);

    const kept = makeEvent('alpha', 2);
    bus.publish(kept);
    await waitFor(() => f.dispatcher.counters.succeeded === 2, 'the third event');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(rx.received.map((r) => JSON.parse(r.body.toString('utf8')).id)).toEqual([first.envelope.id, kept.envelope.id]);
    expect(f.dispatcher.counters).toEqual({ succeeded: 2, retried: 0, dead: 0 });
    expect(f.outbox.pendingCount()).toBe(0);
  });

  it('reads from the outbox, in order, the rows of a queue beyond what memory may hold', async () => {
    const memory: FixtureOptions['memory'] = { readChunk: 4, queueRows: 8, totalRows: 100 };
    const f = fixture({ writeBatch: true, memory });
    const rx = await receiver();
    const { bus, reads } = wired(f, () => [{ url: rx.url, events: ['*'] }]);

    // A new queue with 30 rows: read 4 at a time.
    for (let seq = 0; seq < 30; seq++) bus.publish(makeEvent('alpha', seq));
    await waitFor(() => f.dispatcher.counters.succeeded === 30, 'the first 30');
    expect(reads.count).toBeGreaterThanOrEqual(8);
    // Now held in memory and empty: 20 more in one turn, 8 kept in memory, the rest read again.
    const before = reads.count;
    for (let seq = 30; seq < 50; seq++) bus.publish(makeEvent('alpha', seq));
    await waitFor(() => f.dispatcher.counters.succeeded === 50, 'all 50');
    expect(reads.count).toBeGreaterThan(before);
    expect(seqsOf(rx.accepted, 'alpha')).toEqual(upTo(50));
    expect(rx.received).toHaveLength(50);
  });

  it('with more queues than slots, each queue takes its turn in line, in order, never above the limit', async () => {
    const f = fixture({ writeBatch: true, concurrency: 2 });
    const { respond, peak } = countingInFlight(5);
    const rx = await receiver(respond);
    const { bus } = wired(f, () => [{ url: rx.url, events: ['*'] }]);
    const sessions = ['a', 'b', 'c', 'd', 'e'];

    for (let seq = 0; seq < 6; seq++) for (const session of sessions) bus.publish(makeEvent(session, seq));
    await waitFor(() => f.dispatcher.counters.succeeded === 30, '30 deliveries');
    expect(peak()).toBe(2);
    for (const session of sessions) expect(seqsOf(rx.accepted, session)).toEqual(upTo(6));
    // Taking turns: every queue got its first event before any queue got its fourth.
    const firstOfEach = sessions.map((session) => rx.accepted.findIndex((e) => e.session === session));
    const fourthOfAny = rx.accepted.findIndex((e) => (e.payload as { seq: number }).seq === 3);
    expect(Math.max(...firstOfEach)).toBeLessThan(fourthOfAny);
  });

  it('keeps order across a failed head held in memory, rows behind it waiting in the outbox', async () => {
    const f = fixture({ writeBatch: true });
    const { respond } = refusingFirstAttempts((seq) => seq % 4 === 1);
    const rx = await receiver(respond);
    const { bus } = wired(f, () => [{ url: rx.url, events: ['*'], retries: { policy: 'constant', delaySeconds: 0.02 } }]);

    for (let seq = 0; seq < 12; seq++) {
      bus.publish(makeEvent('alpha', seq));
      await nextTurn();
    }
    await waitFor(() => f.dispatcher.counters.succeeded === 12, '12 deliveries');
    expect(seqsOf(rx.accepted, 'alpha')).toEqual(upTo(12));
    expect(f.dispatcher.counters).toEqual({ succeeded: 12, retried: 3, dead: 0 });
    expect(f.outbox.pendingCount()).toBe(0);
  });

  it("deletes delivered rows in the write batch's next commit, and counts them only then", async () => {
    // A clear timer that never fires in this test: only the batch can delete.
    const f = fixture({ writeBatch: true, clearEveryMs: 600_000 });
    const rx = await receiver();
    const { bus } = wired(f, () => [{ url: rx.url, events: ['*'] }]);

    for (let seq = 0; seq < 3; seq++) bus.publish(makeEvent('alpha', seq));
    await waitFor(() => rx.accepted.length === 3, 'three accepted');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(f.dispatcher.counters.succeeded).toBe(0);
    expect(f.outbox.pendingCount()).toBe(3);

    bus.publish(makeEvent('alpha', 3));
    await nextTurn();
    // That commit deleted the three delivered rows and wrote the fourth.
    expect(f.dispatcher.counters.succeeded).toBe(3);
    await waitFor(() => rx.accepted.length === 4, 'the fourth');
    expect(seqsOf(rx.accepted, 'alpha')).toEqual(upTo(4));
  });
  it('deletes again, on its own, delivered rows whose batch rolled back', async () => {
    const f = fixture({ writeBatch: true, clearEveryMs: 200 });
    const rx = await receiver();
    const { bus } = wired(f, () => [{ url: rx.url, events: ['*'] }]);

    // Fails the commit after the dispatcher has joined its deletes (its listener comes first).
    let failCommit = false;
    f.writes!.onCommitting(() => {
      if (failCommit) throw new Error('disk full');
    });

    for (let seq = 0; seq < 2; seq++) bus.publish(makeEvent('alpha', seq));
    await waitFor(() => rx.accepted.length === 2, 'two accepted');
    failCommit = true;
    bus.publish(makeEvent('alpha', 2));
    await nextTurn();
    failCommit = false;
    // The batch that took the deletes along rolled back: both rows are pending and not counted.
    expect(f.failedBatches).toEqual([1]);
    expect(f.dispatcher.counters.succeeded).toBe(0);
    expect(f.outbox.pendingCount()).toBe(2);
    await waitFor(() => f.dispatcher.counters.succeeded === 2, 'the deletes of their own');
    expect(f.outbox.pendingCount()).toBe(0);
    expect(rx.received).toHaveLength(2);
  });
});
