import { describe, expect, it } from 'vitest';
import type { WebhookConfig } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { closedPort } from '@switchboard/testkit';
import { closedAfterEach, makeEvent } from '../../webhooks/support.js';

const { fixture, receiver } = closedAfterEach();

describe('6.1 deliveries survive a restart', () => {
  it('sends after a restart exactly the deliveries still pending, in order', async () => {
    const f = fixture();
    const up = await receiver();
    const downPort = await closedPort();
    const retries = { policy: 'constant', delaySeconds: 0.2, attempts: 10 } as const;
    const reachable: WebhookConfig = { url: up.url, events: ['*'], retries };
    const unreachable: WebhookConfig = { url: `http://127.0.0.1:${downPort.port}/hook`, events: ['*'], retries };
    const events = [0, 1, 2].map((seq) => makeEvent('alpha', seq));
    for (const event of events) f.enqueue(event, [reachable, unreachable]);
    f.dispatcher.start();

    await waitFor(() => up.accepted.length === 3, 'the reachable receiver to get all 3');
    await waitFor(() => f.dispatcher.counters.retried >= 1, 'a refused attempt');
    await f.reopen();
    expect(f.outbox.pendingCount()).toBe(3);

    const restarted = await receiver(undefined, downPort);
    f.dispatcher.start();
    await waitFor(() => f.outbox.pendingCount() === 0, 'the pending deliveries');
    expect(restarted.accepted.map((e) => e.id)).toEqual(events.map((e) => e.envelope.id));
    expect(restarted.received).toHaveLength(3);
    expect(up.received).toHaveLength(3);
    expect(f.outbox.deadFor('alpha')).toEqual([]);
  });

  it('after a crash, sends again from the cursor what was delivered but not yet cleared, in order, and nothing before it', async () => {
    // The cursor moves in the next group commit, or after `clearEveryMs`: a long wait here, so
    // the crash comes before it for the last events.
    const f = fixture({ writeBatch: true, clearEveryMs: 60_000 });
    const rx = await receiver();
    const webhooks = (): WebhookConfig[] => [{ url: rx.url, events: ['*'] }];
    const { bus } = f.fanout(webhooks);
    f.dispatcher.start();
    const events = [0, 1, 2, 3, 4].map((seq) => makeEvent('alpha', seq));
    for (const event of events.slice(0, 2)) bus.publish(event);
    // The group commits that come anyway (here, empty ones) move the cursor past the first two.
    await waitFor(() => {
      f.writes!.add(() => {});
      f.writes!.flush();
      return f.dispatcher.counters.succeeded === 2;
    }, 'the first two delivered and cleared');
    for (const event of events.slice(2)) bus.publish(event);
    await waitFor(() => rx.accepted.length === 5, 'all five');
    expect(f.dispatcher.counters.succeeded).toBe(2);

    // kill -9: the connection goes with no flush of the cursor moves still waiting.
    f.db.close();
    await f.reopen();
    f.fanout(webhooks);
    f.dispatcher.start();
    await waitFor(() => rx.accepted.length === 8, 'the three sent again');
    expect(rx.accepted.map((e) => e.id)).toEqual([...events, ...events.slice(2)].map((e) => e.envelope.id));
  });
});
