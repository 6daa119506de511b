import { SUBJECTS, type WebhookConfig } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import type { NatsConnection } from 'nats';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { LiveEventFeed } from '../../src/cluster/event-source.js';
import { StreamEventLog } from '../../src/cluster/stream-event-log.js';
import { InProcessEventBus, type PublishedEvent } from '../../src/events/event-bus.js';
import type { GatewayMetrics } from '../../src/metrics/gateway-metrics.js';
import { makeEvent } from '../webhooks/support.js';
import { captureLog, forgedEventGuard, natsPerTest, publishEvent } from './nats-support.js';

const { connection, engine: engineConnection, replica, receiver } = natsPerTest();
const feeds: LiveEventFeed[] = [];
afterEach(async () => {
  await Promise.all(feeds.splice(0).map((feed) => feed.stop()));
});

/** What alpha's engine pod may publish (its own subjects) while its body speaks for beta. */
async function publishForged(engine: NatsConnection, seq: number): Promise<PublishedEvent> {
  const forged = makeEvent('beta', seq, 'message');
  await engine.jetstream().publish(SUBJECTS.event('alpha', 'message'), forged.json, { msgID: forged.envelope.id });
  return forged;
}

async function dropped(metrics: GatewayMetrics, reader: string): Promise<number> {
  const metric = await metrics.registry.getSingleMetric('switchboard_forged_events_dropped_total')!.get();
  return metric.values.filter((v) => v.labels.reader === reader && v.labels.session === 'alpha').reduce((sum, v) => sum + v.value, 0);
}

describe("an engine pod's event that names another session than its subject", () => {
  it('reaches no /ws client through the live feed, and is counted and logged without its payload', async () => {
    const { log, lines } = captureLog();
    const { guard, metrics } = forgedEventGuard(log);
    const seen: PublishedEvent[] = [];
    const bus = new InProcessEventBus((error) => {
      throw error;
    });
    bus.subscribe((event) => seen.push(event));
    feeds.push(await LiveEventFeed.start({ nc: await connection(), bus, log: pino({ level: 'silent' }), guard }));
    const engine = await engineConnection();

    const forged = await publishForged(engine, 1);
    const genuine = makeEvent('beta', 2);
    await publishEvent(engine, genuine);

    await waitFor(() => seen.length === 1, "beta's own event on the bus");
    expect(seen.map((e) => e.envelope.id)).toEqual([genuine.envelope.id]);
    expect(await dropped(metrics, 'live-feed')).toBe(1);
    const warning = lines.find((line) => line.includes('dropped'));
    expect(JSON.parse(warning!)).toMatchObject({ subject: 'sb.evt.alpha.message', claimedSession: 'beta', reader: 'live-feed' });
    expect(warning).not.toContain(forged.envelope.id);
    expect(warning).not.toContain('ünïcode');
  });

  it("reaches no webhook, neither alpha's nor beta's, and the queue goes on", async () => {
    const rx = await receiver();
    const hook: WebhookConfig = { url: rx.url, events: ['*'] };
    const { guard, metrics } = forgedEventGuard();
    await replica({ webhooks: [hook], guard });
    const engine = await engineConnection();

    const forged = await publishForged(engine, 1);
    const after = [makeEvent('alpha', 2), makeEvent('beta', 3)];
    for (const event of after) await publishEvent(engine, event);

    await waitFor(() => rx.accepted.length >= 2, 'the genuine events of both sessions', 10_000);
    await waitFor(async () => (await dropped(metrics, 'webhook-queue')) === 1, 'the forged event counted');
    expect(rx.accepted.map((e) => e.id).sort()).toEqual(after.map((e) => e.envelope.id).sort());
    expect(rx.accepted.map((e) => e.id)).not.toContain(forged.envelope.id);
  });

  it("is not in the event log of the subject's session", async () => {
    const engine = await engineConnection();
    const { guard, metrics } = forgedEventGuard();
    await publishForged(engine, 1);
    const genuine = makeEvent('alpha', 2);
    await publishEvent(engine, genuine);

    const events = await new StreamEventLog(await connection(), guard).since('alpha', undefined, 10);
    expect(events.map((json) => (JSON.parse(json) as { id: string }).id)).toEqual([genuine.envelope.id]);
    expect(await dropped(metrics, 'event-log')).toBe(1);
  });
});
