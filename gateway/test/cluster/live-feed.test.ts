import { waitFor } from '@switchboard/testkit';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { LIVE_FEED_WINDOW, LiveEventFeed } from '../../src/cluster/event-source.js';
import { InProcessEventBus, type PublishedEvent } from '../../src/events/event-bus.js';
import { makeEvent } from '../webhooks/support.js';
import { forgedEventGuard, natsPerTest, publishEvent } from './nats-support.js';

const { connection, engine: engineConnection } = natsPerTest();
const feeds: LiveEventFeed[] = [];
afterEach(async () => {
  await Promise.all(feeds.splice(0).map((feed) => feed.stop()));
});

/** One replica's /ws side: its own connection, its feed, and what its bus hands to the WsHub. */
async function replicaFeed(): Promise<PublishedEvent[]> {
  const seen: PublishedEvent[] = [];
  const bus = new InProcessEventBus((error) => {
    throw error;
  });
  bus.subscribe((event) => seen.push(event));
  feeds.push(await LiveEventFeed.start({ nc: await connection(), bus, log: pino({ level: 'silent' }), guard: forgedEventGuard().guard }));
  return seen;
}

describe('6.1 websocket events in cluster mode', () => {
  it('gives every replica every event published after its feed started, in order, as the engine wrote it', async () => {
    const engine = await engineConnection();
    const before = makeEvent('alpha', 0);
    await publishEvent(engine, before);
    const [first, second] = [await replicaFeed(), await replicaFeed()];

    const events = Array.from({ length: 10 }, (_, seq) => makeEvent(seq % 2 ? 'alpha' : 'beta', seq + 1, 'message.any'));
    for (const event of events) await publishEvent(engine, event);

    for (const seen of [first, second]) {
      await waitFor(() => seen.length === events.length, 'all 10 events on the bus');
      expect(seen.map((e) => e.envelope.id)).toEqual(events.map((e) => e.envelope.id));
      expect(seen.map((e) => e.json)).toEqual(events.map((e) => e.json));
      expect(seen.map((e) => e.envelope.event)).toEqual(events.map(() => 'message.any'));
    }
  });

  it("pulls a thousand sessions' events in a few large requests, not one round trip per few events", async () => {
    const engine = await engineConnection();
    const seen = await replicaFeed();
    // Every pull request the feed's consumer makes, seen on the server's API subject.
    const watcher = await connection();
    let pulls = 0;
    const sub = watcher.subscribe('$JS.API.CONSUMER.MSG.NEXT.SB_EVENTS.>', { callback: () => void pulls++ });
    await watcher.flush();
    const events = Array.from({ length: LIVE_FEED_WINDOW }, (_, seq) => makeEvent(`s${seq % 100}`, seq + 1, 'message'));
    await Promise.all(events.map((event) => publishEvent(engine, event)));
    await waitFor(() => seen.length === events.length, 'every event on the bus');
    sub.unsubscribe();
    // The client's default window (100, asked for again 25 at a time) needs 40 requests here.
    expect(pulls).toBeLessThanOrEqual(8);
    expect(new Set(seen.map((e) => e.envelope.id)).size).toBe(events.length);
  });

  it('skips a message on the events stream that is not an envelope, and goes on', async () => {
    const engine = await engineConnection();
    const seen = await replicaFeed();
    await engine.jetstream().publish('sb.evt.alpha.message', 'not json');
    const event = makeEvent('alpha', 1);
    await publishEvent(engine, event);
    await waitFor(() => seen.length === 1, 'the valid event');
    expect(seen[0]!.envelope.id).toBe(event.envelope.id);
  });
});
