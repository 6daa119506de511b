import { ensureEventStream } from '@switchboard/kube';
import { STREAMS, SUBJECTS } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { newEventId } from '../../src/event-ids.js';
import { EventPublisher, type HostedEvent } from '../../src/index.js';
import { natsForTests, silent, streamMessages } from './helpers.js';

// The publisher's connection must outlive a server restart, as the pod's does.
const nats = natsForTests({ maxReconnectAttempts: -1, reconnectTimeWait: 100 });

/** Events as the host makes them; the publisher only reads id, session, event and json. */
function events(session: string, count: number): HostedEvent[] {
  return Array.from({ length: count }, (_, n) => {
    const envelope = { id: newEventId(Date.now()), timestamp: Date.now(), event: 'message.any', session, payload: { n } };
    return { envelope, json: JSON.stringify(envelope) } as unknown as HostedEvent;
  });
}

const sessionMessages = async (session: string) => streamMessages(await nats.nc.jetstreamManager(), STREAMS.events, `sb.evt.${session}.`);

async function storedIds(session: string): Promise<string[]> {
  return (await sessionMessages(session)).map((m) => m.json<{ id: string }>().id);
}

describe('EventPublisher (invariant 2: no event lost between engine and stream)', () => {
  it('creates the events stream, and a second pod ensuring it changes nothing', async () => {
    await Promise.all([ensureEventStream(nats.nc), ensureEventStream(nats.nc), ensureEventStream(nats.nc)]);
    const { config } = await (await nats.nc.jetstreamManager()).streams.info(STREAMS.events);
    expect(config.subjects).toEqual([SUBJECTS.allEvents]);
    expect(config.duplicate_window).toBe(120_000_000_000);
  });

  it('keeps the order of 200 events, on the subject of each session and event', async () => {
    const publisher = await EventPublisher.open(nats.nc, { log: silent });
    const sent = events('ord', 200);
    for (const event of sent) publisher.publish(event);
    expect(await publisher.flush(10_000)).toBe(true);
    expect(publisher.pending).toBe(0);
    expect(await storedIds('ord')).toEqual(sent.map((e) => e.envelope.id));
    const [first] = await sessionMessages('ord');
    expect(first!.subject).toBe('sb.evt.ord.message.any');
  });

  it('an event published again is stored once (JetStream dedup by event id)', async () => {
    const publisher = await EventPublisher.open(nats.nc, { log: silent });
    const sent = events('dup', 10);
    for (const event of [...sent, ...sent, ...sent.slice(0, 3)]) publisher.publish(event);
    await publisher.flush();
    expect(await storedIds('dup')).toEqual(sent.map((e) => e.envelope.id));
  });

  it('survives a NATS server restart mid-stream: retries until acked, loses nothing, stores nothing twice', async () => {
    const warnings: object[] = [];
    const log = { ...silent, warn: (obj: object) => warnings.push(obj) };
    const publisher = await EventPublisher.open(nats.nc, { log, ackTimeoutMs: 500, maxRetryDelayMs: 200 });
    const sent = events('restart', 200);
    for (const event of sent.slice(0, 100)) publisher.publish(event);
    await nats.server.kill();
    for (const event of sent.slice(100)) publisher.publish(event);
    expect(await publisher.flush(300)).toBe(false);
    await nats.server.restart();
    expect(await publisher.flush(15_000)).toBe(true);
    expect(await storedIds('restart')).toEqual(sent.map((e) => e.envelope.id));
    expect(warnings.length).toBeGreaterThan(0);
  });
});
