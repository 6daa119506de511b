import type { WebhookConfig } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { countingReceiver, probesFrom } from '../webhooks/counting-receiver.js';
import { makeEvent } from '../webhooks/support.js';
import { captureLog, natsPerTest, publishEvent } from './nats-support.js';

const { engine: engineConnection, replica, receiver } = natsPerTest();

const retries: WebhookConfig['retries'] = { policy: 'constant', delaySeconds: 0.01, attempts: 100, jitter: false };

describe('per-endpoint circuit in cluster mode (docs/events.md, "Receiver signals")', () => {
  it('keeps another endpoint’s deliveries flowing while one hangs, the hanging one holding at most one slot once its circuit is open', async () => {
    const hung = await countingReceiver(() => null);
    const good = await receiver();
    const hanging: WebhookConfig = { url: hung.url, events: ['*'], retries };
    const target: WebhookConfig = { url: good.url, events: ['*'], retries };
    const hangingSessions = Array.from({ length: 6 }, (_, i) => `hang${i}`);
    const { log, lines } = captureLog();
    await replica({
      log,
      concurrency: 2,
      timeoutMs: 300,
      circuit: { failuresToOpen: 2, openAfterMs: 0, firstProbeMs: 50, maxProbeMs: 100 },
      sessions: () => [...hangingSessions, 'good'],
      webhooksOf: (session) => (session === 'good' ? [target] : [hanging]),
    });
    const engine = await engineConnection();
    for (const session of hangingSessions) await publishEvent(engine, makeEvent(session, 0));
    await waitFor(() => lines.some((line) => line.includes('its circuit is open')), 'the hanging endpoint’s circuit open', 15_000);
    const from = await probesFrom(hung, 300);

    for (let seq = 0; seq < 10; seq++) {
      await publishEvent(engine, makeEvent('good', seq));
      await waitFor(() => good.accepted.length === seq + 1, `good delivery ${seq}`, 15_000);
    }
    expect(good.accepted.map((e) => e.payload.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await waitFor(() => hung.requests() >= from + 3, 'three probes', 15_000);
    expect(hung.peakSince(from)).toBe(1);
  });
});
