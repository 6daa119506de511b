import { waitFor } from '@switchboard/testkit';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { LiveEventFeed } from '../../src/cluster/event-source.js';
import { InProcessEventBus, type PublishedEvent } from '../../src/events/event-bus.js';
import { EventValidator } from '../../src/events/event-validator.js';
import { makeEvent } from '../webhooks/support.js';
import { natsPerTest, publishEvent } from './nats-support.js';

const { connection, engine: engineConnection } = natsPerTest();
const feeds: LiveEventFeed[] = [];
afterEach(async () => {
  await Promise.all(feeds.splice(0).map((feed) => feed.stop()));
});

/** An event whose payload matches its schema (makeEvent's `{seq}` matches none). */
function validEvent(session: string, seq: number): PublishedEvent {
  const event = makeEvent(session, seq, 'state.change');
  const envelope = { ...event.envelope, payload: { state: `STATE_${seq}` } };
  return { envelope, json: JSON.stringify(envelope) };
}

describe('cluster mode: events from engine pods are checked before /ws gets them', () => {
  it('drops an event that does not match its schema, quietly, and passes the valid ones on', async () => {
    const engine = await engineConnection();
    const warnings: string[] = [];
    const validator = new EventValidator({ log: { warn: (_obj, msg) => void warnings.push(msg ?? '') } });
    const seen: PublishedEvent[] = [];
    const bus = new InProcessEventBus((error) => {
      throw error;
    });
    bus.subscribe((event) => seen.push(event));
    feeds.push(
      await LiveEventFeed.start({ nc: await connection(), bus, log: pino({ level: 'silent' }), accepts: (event) => validator.isValid(event) }),
    );

    const drifted = makeEvent('alpha', 1, 'message');
    const valid = [validEvent('alpha', 2), validEvent('alpha', 3)];
    await publishEvent(engine, valid[0]!);
    await publishEvent(engine, drifted);
    await publishEvent(engine, valid[1]!);

    await waitFor(() => seen.length === 2, 'the two valid events');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen.map((event) => event.envelope.id)).toEqual(valid.map((event) => event.envelope.id));
    // The webhook side reports it; every replica's feed dropping it too must not report it again.
    expect([warnings, validator.invalid]).toEqual([[], 0]);
  });
});
