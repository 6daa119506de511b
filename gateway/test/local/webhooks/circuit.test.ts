import type { WebhookConfig } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { countingReceiver, probesFrom } from '../../webhooks/counting-receiver.js';
import { closedAfterEach, makeEvent } from '../../webhooks/support.js';

const { fixture, receiver } = closedAfterEach();

const retries: WebhookConfig['retries'] = { policy: 'constant', delaySeconds: 0.01, attempts: 100, jitter: false };
const opened = (lines: string[]) => lines.findIndex((line) => line.includes('its circuit is open'));

describe('per-endpoint circuit (docs/events.md, "Receiver signals")', () => {
  it('probes an endpoint that keeps failing one request at a time instead of every queue, and closes on its first success', async () => {
    const f = fixture({ circuit: { failuresToOpen: 3, openAfterMs: 0, firstProbeMs: 50, maxProbeMs: 100 } });
    let status = 500;
    // Answers take a while, so that queues hammering it would overlap.
    const rx = await countingReceiver(() => status, 30);
    const hook: WebhookConfig = { url: rx.url, events: ['*'], retries };
    // Ten sessions: ten queues to the one endpoint, each retrying every 10 ms.
    for (let s = 0; s < 10; s++) f.enqueue(makeEvent(`s${s}`, 0), [hook]);
    f.dispatcher.start();

    await waitFor(() => opened(f.logCapture.lines) >= 0, 'the circuit open');
    const from = await probesFrom(rx, 30);
    await waitFor(() => rx.requests() >= from + 5, 'five probes');
    expect(rx.peakSince(from)).toBe(1);
    expect(f.dispatcher.circuits.isOpen(rx.url)).toBe(true);

    status = 200;
    await waitFor(() => f.dispatcher.counters.succeeded === 10, 'every queue delivered once the probe succeeded');
    expect(f.dispatcher.circuits.isOpen(rx.url)).toBe(false);
    expect(f.logCapture.lines.some((line) => line.includes('its circuit is closed'))).toBe(true);
  });

  it('keeps another endpoint’s deliveries flowing while one hangs, the hanging one holding at most one slot once its circuit is open', async () => {
    const f = fixture({ concurrency: 2, timeoutMs: 300, circuit: { failuresToOpen: 2, openAfterMs: 0, firstProbeMs: 50, maxProbeMs: 100 } });
    const hung = await countingReceiver(() => null);
    const good = await receiver();
    const hanging: WebhookConfig = { url: hung.url, events: ['*'], retries };
    for (let s = 0; s < 6; s++) f.enqueue(makeEvent(`hang${s}`, 0), [hanging]);
    f.dispatcher.start();
    await waitFor(() => opened(f.logCapture.lines) >= 0, 'the hanging endpoint’s circuit open');
    const from = await probesFrom(hung, 300);

    const target: WebhookConfig = { url: good.url, events: ['*'], retries };
    for (let seq = 0; seq < 10; seq++) {
      const rows = f.enqueue(makeEvent('good', seq), [target]);
      f.dispatcher.enqueued(rows);
      await waitFor(() => good.accepted.length === seq + 1, `good delivery ${seq}`);
    }
    expect(good.accepted.map((e) => e.payload.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await waitFor(() => hung.requests() >= from + 3, 'three probes');
    expect(hung.peakSince(from)).toBe(1);
  });
});
