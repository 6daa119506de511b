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
});
