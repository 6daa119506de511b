import { describe, expect, it } from 'vitest';
import { NatsMessageStore, purgeSessionMessages } from '../../src/index.js';
import { natsForTests } from '../cluster/helpers.js';
import { messageStoreSuite } from './message-store-suite.js';

const nats = natsForTests();

describe('NatsMessageStore (KV sb_messages, real nats-server)', () => {
  messageStoreSuite(() => NatsMessageStore.open(nats.nc));

  it('purgeSessionMessages before any history exists finds nothing', async () => {
    expect(await purgeSessionMessages(nats.nc, 'never-written')).toBe(0);
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
