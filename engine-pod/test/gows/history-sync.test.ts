import { MessageRecord } from '@switchboard/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakePhone, FakeWaServer } from '../fake-wa/index.js';
import type { FakeMediaServer } from '../fake-wa/media-server.js';
import { closeChecked, type GowsDriver, pairedWithMedia } from './driver.js';

// The phone's history syncs on GOWS: the first one inline at pairing (test/contract/gows.test.ts
// follows it to the chats lists), later ones as the phone sends its bigger ones, encrypted on the
// media server; each goes out as engine.event messaging-history.set with the messages' records.

const ALICE = '15551230041';
let fake: FakeWaServer;
let media: FakeMediaServer;
let gows: GowsDriver;
let phone: FakePhone;

beforeAll(async () => {
  ({ fake, media, gows, phone } = await pairedWithMedia('gows', { [ALICE]: '245120000000041' }));
}, 180_000);

afterAll(async () => {
  await closeChecked(gows, fake);
  await media?.close();
});

describe('GOWS history syncs', () => {
  it('a history sync on the media server: downloaded, and its messages go out as records in engine.event messaging-history.set', async () => {
    const since = gows.notifications.length;
    await phone.syncHistory(
      [
        {
          jid: `${ALICE}@s.whatsapp.net`,
          messages: [
            { id: '3EB0B1B2C3D4E5F60001', fromMe: false, text: 'from last week', timestamp: 1_700_000_000 },
            { id: '3EB0B1B2C3D4E5F60002', fromMe: true, text: 'delivered then', timestamp: 1_700_000_030, status: 3 },
          ],
        },
      ],
      media,
    );
    const synced = await gows.event('engine.event', (p) => p.event === 'messaging-history.set', since);
    const records = MessageRecord.array().parse((synced.data as { messages: unknown }).messages);
    expect(records.map(({ id, body, fromMe, ackName, timestamp }) => ({ id, body, fromMe, ackName, timestamp }))).toEqual([
      { id: `false_${ALICE}@c.us_3EB0B1B2C3D4E5F60001`, body: 'from last week', fromMe: false, ackName: 'DEVICE', timestamp: 1_700_000_000 },
      { id: `true_${ALICE}@c.us_3EB0B1B2C3D4E5F60002`, body: 'delivered then', fromMe: true, ackName: 'DEVICE', timestamp: 1_700_000_030 },
    ]);
    // Not new messages: no message or message.any for them.
    expect(gows.notifications.slice(since).filter((n) => n.method === 'event' && String(n.params.event).startsWith('message'))).toEqual([]);
    expect(media.requests.some((r) => r.status === 200)).toBe(true);
  });
});
