import { openMessagesBucket } from '@switchboard/kube';
import { describe, expect, it } from 'vitest';
import { authKeyToken, NatsMessageStore, purgeSessionMessages } from '../../src/index.js';
import { natsForTests } from '../cluster/helpers.js';
import { messageStoreSuite } from './message-store-suite.js';

const nats = natsForTests();

describe('NatsMessageStore (KV sb_messages, real nats-server)', () => {
  messageStoreSuite(() => NatsMessageStore.open(nats.nc));

  describe('as an engine pod opens it: a chat forgotten key by key, not by a purge of the stream', () => {
    messageStoreSuite(() => NatsMessageStore.open(nats.nc, { forgetsByKey: true }));
  });

  it('purgeSessionMessages before any history exists finds nothing', async () => {
    expect(await purgeSessionMessages(nats.nc, 'never-written')).toBe(0);
  });

  it('reads a chat of 1,500 messages in one pass, and a chat with none (purged, or never written) as empty', async () => {
    const store = await NatsMessageStore.open(nats.nc);
    const base = { from: 'x', fromMe: false, source: 'app', to: 'y', participant: null, hasMedia: false, media: null } as const;
    const count = 1_500;
    await Promise.all(
      Array.from({ length: count }, (_, i) =>
        store.put('long', '42@c.us', `m${i}`, {
          ...base,
          id: `m${i}`,
          timestamp: 1_000 + i,
          body: `#${i}`,
          ack: 1,
          ackName: 'SERVER',
          vCards: [],
          _data: {},
        }),
      ),
    );
    const newest = await store.query('long', ['42@c.us'], { limit: 3, offset: 0, sortOrder: 'desc' });
    expect(newest.map((record) => record.body)).toEqual([`#${count - 1}`, `#${count - 2}`, `#${count - 3}`]);
    const all = await store.query('long', ['42@c.us'], { limit: 10_000, offset: 0, sortOrder: 'asc' });
    expect(all).toHaveLength(count);
    expect(new Set(all.map((record) => record.id)).size).toBe(count);

    expect(await store.query('long', ['nobody@c.us'], { limit: 10, offset: 0, sortOrder: 'asc' })).toEqual([]);
    await store.purgeSession('long');
    expect(await store.query('long', ['42@c.us'], { limit: 10, offset: 0, sortOrder: 'asc' })).toEqual([]);
  });

  it('an acknowledgement racing a gateway forgetting its chat never brings the message back', async () => {
    const pod = await NatsMessageStore.open(nats.nc, { forgetsByKey: true });
    const gateway = await NatsMessageStore.open(nats.nc);
    const base = {
      from: 'me',
      fromMe: true,
      source: 'api',
      to: '7@c.us',
      participant: null,
      hasMedia: false,
      media: null,
      _data: {},
    } as const;
    const ids = Array.from({ length: 40 }, (_, i) => `race${i}`);
    for (const id of ids) await pod.put('race', '7@c.us', id, { ...base, vCards: [], id, timestamp: 1, body: id, ack: 1, ackName: 'SERVER' });
    // The acks read each record, the forget purges the chat meanwhile, then the acks write.
    await Promise.all([...ids.map((id) => pod.advanceAck('race', '7@c.us', id, 3)), gateway.forgetChat('race', '7@c.us')]);
    expect(await pod.query('race', ['7@c.us'], { limit: 100, offset: 0, sortOrder: 'asc' })).toEqual([]);
    // Without a race the ack moves on, and never back.
    await pod.put('race', '7@c.us', 'kept', { ...base, vCards: [], id: 'kept', timestamp: 2, body: 'kept', ack: 1, ackName: 'SERVER' });
    await pod.advanceAck('race', '7@c.us', 'kept', 3);
    await pod.advanceAck('race', '7@c.us', 'kept', 2);
    expect(await pod.get('race', '7@c.us', 'kept')).toMatchObject({ ack: 3, ackName: 'READ' });
  });

  it("skips a deleted key, even when the chat's newest entry is the delete (the read still ends)", async () => {
    const store = await NatsMessageStore.open(nats.nc);
    const base = { from: 'x', fromMe: false, source: 'app', to: 'y', participant: null, hasMedia: false, media: null } as const;
    for (const id of ['d0', 'd1', 'd2']) {
      await store.put('dels', '7@c.us', id, { ...base, id, timestamp: 1, body: id, ack: 1, ackName: 'SERVER', vCards: [], _data: {} });
    }
    const kv = await openMessagesBucket(nats.nc);
    await kv.delete(`dels.${authKeyToken('7@c.us')}.${authKeyToken('d2')}`);
    const page = await store.query('dels', ['7@c.us'], { limit: 10, offset: 0, sortOrder: 'asc' });
    expect(page.map((record) => record.id)).toEqual(['d0', 'd1']);
  });

  it('keys chats and message ids with any characters apart', async () => {
    const store = await NatsMessageStore.open(nats.nc);
    const base = { timestamp: 1, from: 'x', fromMe: false, source: 'app', to: 'y', participant: null, hasMedia: false, media: null } as const;
    const ids = ['a.b', 'a_b', '*', '>', 'ü', 'A-B=C'];
    for (const id of ids) {
      await store.put('keys', '123@g.us', id, { ...base, id, body: id, ack: 2, ackName: 'DEVICE', vCards: [], _data: {} });
    }
    for (const id of ids) expect((await store.get('keys', '123@g.us', id))?.body).toBe(id);
    const page = await store.query('keys', ['123@g.us'], { limit: 100, offset: 0, sortOrder: 'asc' });
    expect(page.map((record) => record.body)).toEqual(ids);
  });
});
