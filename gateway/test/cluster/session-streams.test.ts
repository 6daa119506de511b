import { CommandObjects, objectStoreExists } from '@switchboard/kube';
import { NatsMediaStore } from '@switchboard/engine-pod';
import { OBJECT_STORES, STREAMS } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { dropSessionStreams } from '../../src/cluster/session-streams.js';
import { StreamEventLog } from '../../src/cluster/stream-event-log.js';
import { makeEvent } from '../webhooks/support.js';
import { forgedEventGuard, natsPerTest, publishEvent } from './nats-support.js';

const nats = natsPerTest();

describe('a deleted session’s streams (issue 12, item 8)', () => {
  it('drops its events and webhook queues, and nothing of a session whose name starts with it', async () => {
    const engine = await nats.engine();
    const rx = await nats.receiver();
    const replica = await nats.replica({ sessions: () => ['a', 'a_b'], webhooks: [{ url: rx.url, events: ['message'] }] });
    for (const session of ['a', 'a_b']) for (let i = 0; i < 3; i++) await publishEvent(engine, makeEvent(session, i, 'message'));
    await waitFor(() => rx.accepted.length === 6, 'both sessions’ events delivered');
    const queues = replica.worker.queueNames;
    expect(queues).toHaveLength(2);
    // The replica's queues of the session stop first, as the gateway's delete does.
    await replica.worker.stop();

    await dropSessionStreams(engine, 'a');
    const log = new StreamEventLog(engine, forgedEventGuard().guard);
    expect(await log.since('a', undefined, 100)).toEqual([]);
    expect(await log.since('a_b', undefined, 100)).toHaveLength(3);
    const jsm = await engine.jetstreamManager();
    const left: string[] = [];
    for await (const info of jsm.consumers.list(STREAMS.events)) if (queues.includes(info.name)) left.push(info.name);
    expect(left).toEqual(queues.filter((name) => name.startsWith('wh_a_b_')));
  });

  it('drops its own media and command buckets, files and pending commands with them, and no other session’s', async () => {
    const engine = await nats.engine();
    // The dead-letter stream a replica makes, which the drop purges too.
    await (await nats.replica({ sessions: () => [] })).worker.stop();
    const media = await NatsMediaStore.open(engine);
    const commands = new CommandObjects(engine);
    const file = { mimetype: 'image/png', filename: 'a.png', data: Buffer.from('png') };
    for (const session of ['m', 'm_b']) {
      await media.put(session, file);
      await commands.put(session, '{"op":"host.status"}');
    }
    const buckets = (session: string) => [OBJECT_STORES.media(session), OBJECT_STORES.commands(session)];
    const exist = async (session: string) => Promise.all(buckets(session).map((bucket) => objectStoreExists(engine, bucket)));
    expect(await exist('m')).toEqual([true, true]);

    await dropSessionStreams(engine, 'm');
    expect(await exist('m')).toEqual([false, false]);
    expect(await exist('m_b')).toEqual([true, true]);
    // Nothing left to drop, and a session that never stored anything has nothing either.
    await dropSessionStreams(engine, 'm');
    await dropSessionStreams(engine, 'never');
  });
});
