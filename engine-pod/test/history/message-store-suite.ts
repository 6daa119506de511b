import type { HistoryQuery, MessageRecord } from '@switchboard/protocol';
import { beforeEach, describe, expect, it } from 'vitest';
import { HistoryRecorder, type MessageStore, readHistory } from '../../src/index.js';

/**
 * What every MessageStore must do, and what the HistoryRecorder makes of events through it. The
 * same suite runs against the SQLite store (gateway) and the NATS KV store (engine-pod), each on
 * its real storage. `open` gives a store on storage that outlives it (a fresh session name per
 * test keeps tests apart).
 */
/** Counted across the suite's runs: two runs on one storage (a file, a server) must not share a session. */
let sessions = 0;

export function messageStoreSuite(open: () => Promise<MessageStore>): void {
  const silent = { info() {}, warn() {}, error() {} };
  let store: MessageStore;
  let session: string;

  beforeEach(async () => {
    store = await open();
    session = `s${++sessions}-${process.pid}`;
  });

  const chat = '15550001111@c.us';
  const page = (over: Partial<HistoryQuery> = {}): HistoryQuery => ({
    chatId: chat,
    merge: true,
    limit: 100,
    offset: 0,
    sortOrder: 'asc',
    ...over,
  });
  const bodies = async (over: Partial<HistoryQuery> = {}) => (await readHistory(store, session, page(over))).map((r) => r.body);

  describe('MessageStore', () => {
    it('gives back what was put, and null for a message it does not have', async () => {
      const one = record({ id: 'A1', body: 'hello' });
      await store.put(session, chat, 'A1', one);
      expect(await store.get(session, chat, 'A1')).toEqual(one);
      expect(await store.get(session, chat, 'nope')).toBeNull();
      expect(await store.get(session, '15550002222@c.us', 'A1')).toBeNull();
      expect(await store.get(`${session}x`, chat, 'A1')).toBeNull();
    });

    it('lists each chat of the session once, with its newest message (ties: the last to arrive) and how many it has', async () => {
      const other = '15550002222@c.us';
      await store.put(session, chat, 'A', record({ id: 'A', body: 'A', timestamp: 10 }));
      await store.put(session, chat, 'B', record({ id: 'B', body: 'B', timestamp: 30 }));
      await store.put(session, chat, 'C', record({ id: 'C', body: 'C', timestamp: 30 }));
      await store.put(session, other, 'D', record({ id: 'D', body: 'D', timestamp: 20 }));
      await store.setAlias(session, chat, '123@lid');
      await store.put(`${session}x`, chat, 'E', record({ id: 'E', body: 'E', timestamp: 40 }));
      const chats = (await store.chats(session)).map(({ chatId, last, messages }) => [chatId, last.body, messages]);
      expect(chats.sort()).toEqual([
        [chat, 'C', 3],
        [other, 'D', 1],
      ]);
      expect(await store.chats(`${session}y`)).toEqual([]);
    });

    it('sorts by timestamp both ways; equal timestamps keep their arrival order, also after an update', async () => {
      for (const [id, timestamp] of [
        ['B', 20],
        ['C1', 30],
        ['C2', 30],
        ['C3', 30],
        ['A', 10],
      ] as const) {
        await store.put(session, chat, id, record({ id, body: id, timestamp }));
      }
      await store.put(session, chat, 'C1', record({ id: 'C1', body: 'C1', timestamp: 30, ack: 3 }));
      expect(await bodies()).toEqual(['A', 'B', 'C1', 'C2', 'C3']);
      expect(await bodies({ sortOrder: 'desc' })).toEqual(['C3', 'C2', 'C1', 'B', 'A']);
    });

    it('pages with limit and offset, and filters by time (inclusive), direction and ack', async () => {
      for (let i = 1; i <= 6; i++) {
        await store.put(
          session,
          chat,
          `M${i}`,
          record({ id: `M${i}`, body: `m${i}`, timestamp: i * 10, fromMe: i % 2 === 0, ack: i % 3 === 0 ? 3 : 2 }),
        );
      }
      await store.put(session, '15550002222@c.us', 'X', record({ id: 'X', body: 'other chat', timestamp: 35 }));
      expect(await bodies({ limit: 2, offset: 1 })).toEqual(['m2', 'm3']);
      expect(await bodies({ limit: 2, offset: 1, sortOrder: 'desc' })).toEqual(['m5', 'm4']);
      expect(await bodies({ offset: 6 })).toEqual([]);
      expect(await bodies({ timestampGte: 20, timestampLte: 40 })).toEqual(['m2', 'm3', 'm4']);
      expect(await bodies({ timestampLte: 10 })).toEqual(['m1']);
      expect(await bodies({ fromMe: true })).toEqual(['m2', 'm4', 'm6']);
      expect(await bodies({ fromMe: false, ack: 3 })).toEqual(['m3']);
    });

    it('reads the chat’s other address too with merge, and only the chat without', async () => {
      const lid = '8550001111@lid';
      await store.put(session, lid, 'L1', record({ id: 'L1', chat: lid, body: 'as lid', timestamp: 5 }));
      await store.put(session, chat, 'P1', record({ id: 'P1', body: 'as phone', timestamp: 6 }));
      await store.setAlias(session, chat, lid);
      await store.setAlias(session, lid, chat);
      expect(await store.aliasOf(session, chat)).toBe(lid);
      expect(await bodies()).toEqual(['as lid', 'as phone']);
      expect(await bodies({ chatId: lid })).toEqual(['as lid', 'as phone']);
      expect(await bodies({ merge: false })).toEqual(['as phone']);
      expect(await store.aliasOf(session, '15550009999@c.us')).toBeNull();
    });

    it('purgeSession forgets one session’s messages and aliases, and no other’s', async () => {
      const other = `${session}-other`;
      await store.put(session, chat, 'A', record({ id: 'A' }));
      await store.setAlias(session, chat, '8550001111@lid');
      await store.put(other, chat, 'A', record({ id: 'A', body: 'kept' }));
      await store.purgeSession(session);
      expect(await store.get(session, chat, 'A')).toBeNull();
      expect(await store.aliasOf(session, chat)).toBeNull();
      expect(await readHistory(store, session, page())).toEqual([]);
      expect((await store.get(other, chat, 'A'))?.body).toBe('kept');
    });

    it('forgetChat forgets one chat’s messages: the other chat, its messages and the alias remain', async () => {
      const other = '15550002222@c.us';
      const lid = '8550001111@lid';
      await store.put(session, chat, 'A', record({ id: 'A', body: 'gone', timestamp: 10 }));
      await store.put(session, chat, 'B', record({ id: 'B', body: 'gone too', timestamp: 20 }));
      await store.put(session, other, 'C', record({ id: 'C', chat: other, body: 'kept', timestamp: 30 }));
      await store.put(`${session}-other`, chat, 'A', record({ id: 'A', body: 'another session’s' }));
      await store.setAlias(session, chat, lid);
      await store.setAlias(session, lid, chat);
      await store.forgetChat(session, chat);
      expect(await store.get(session, chat, 'A')).toBeNull();
      expect(await bodies({ merge: false })).toEqual([]);
      expect((await store.chats(session)).map(({ chatId, last, messages }) => [chatId, last.body, messages])).toEqual([[other, 'kept', 1]]);
      expect(await bodies({ chatId: other, merge: false })).toEqual(['kept']);
      expect(await store.aliasOf(session, chat)).toBe(lid);
      expect(await store.lids(session, { limit: 10, offset: 0 })).toEqual([{ lid, pn: chat }]);
      expect((await store.get(`${session}-other`, chat, 'A'))?.body).toBe('another session’s');
    });

    it('serves its aliases from the @lid side as the LID map: by linked id, paged, counted, per session', async () => {
      await store.setAlias(session, '9550000002@lid', '15550000002@c.us');
      await store.setAlias(session, '15550000002@c.us', '9550000002@lid');
      await store.setAlias(session, '9550000001@lid', '15550000001@c.us');
      await store.setAlias(session, '15550000001@c.us', '9550000001@lid');
      await store.setAlias(`${session}-other`, '9550000003@lid', '15550000003@c.us');
      expect(await store.lids(session, { limit: 10, offset: 0 })).toEqual([
        { lid: '9550000001@lid', pn: '15550000001@c.us' },
        { lid: '9550000002@lid', pn: '15550000002@c.us' },
      ]);
      expect(await store.lids(session, { limit: 1, offset: 1 })).toEqual([{ lid: '9550000002@lid', pn: '15550000002@c.us' }]);
      expect(await store.lidCount(session)).toBe(2);
      await store.purgeSession(session);
      expect(await store.lidCount(session)).toBe(0);
      expect(await store.lids(session, { limit: 10, offset: 0 })).toEqual([]);
    });

    it('what was written is there for a store opened afterwards (a restart)', async () => {
      await store.put(session, chat, 'A', record({ id: 'A', body: 'durable' }));
      const reopened = await open();
      expect((await reopened.get(session, chat, 'A'))?.body).toBe('durable');
    });
  });

  describe('HistoryRecorder', () => {
    const recorded = async (...events: [string, Record<string, unknown>][]) => {
      const recorder = new HistoryRecorder(store, silent);
      for (const [event, payload] of events) recorder.record({ session, event, payload });
      await recorder.flush();
    };

    it('records message.any (in and out); message and other events are not recorded twice or at all', async () => {
      const incoming = record({ id: 'IN', body: 'in', timestamp: 1 });
      const outgoing = record({ id: 'OUT', body: 'out', fromMe: true, ack: 0, timestamp: 2 });
      await recorded(['message', incoming], ['message.any', incoming], ['message.any', outgoing], ['session.status', { status: 'WORKING' }]);
      const records = await readHistory(store, session, page());
      expect(records.map((r) => [r.id, r.body, r.fromMe])).toEqual([
        [incoming.id, 'in', false],
        [outgoing.id, 'out', true],
      ]);
    });

    it('message.ack moves the ack forward only; ERROR only before DEVICE; a member receipt leaves it', async () => {
      const sent = record({ id: 'S1', fromMe: true, ack: 0 });
      const late = record({ id: 'S2', fromMe: true, ack: 0 });
      const group = record({ id: 'G1', chat: '120363000000000042@g.us', fromMe: true, ack: 1 });
      await recorded(
        ['message.any', sent],
        ['message.any', late],
        ['message.any', group],
        ['message.ack', ack(sent.id, 3)],
        ['message.ack', ack(sent.id, 2)],
        ['message.ack', ack(sent.id, -1)],
        ['message.ack', ack(late.id, -1)],
        ['message.ack', { ...ack(`${group.id}_15557770001@c.us`, 4), participant: '15557770001@c.us' }],
        ['message.ack', ack('true_15550001111@c.us_UNKNOWN', 3)],
      );
      expect(await store.get(session, chat, 'S1')).toMatchObject({ ack: 3, ackName: 'READ' });
      expect(await store.get(session, chat, 'S2')).toMatchObject({ ack: -1, ackName: 'ERROR' });
      expect(await store.get(session, '120363000000000042@g.us', 'G1')).toMatchObject({ ack: 1, ackName: 'SERVER' });
      expect(await store.get(session, chat, 'UNKNOWN')).toBeNull();
    });

    it('a message seen again keeps the acknowledgement it reached', async () => {
      const sent = record({ id: 'R1', fromMe: true, ack: 0 });
      await recorded(['message.any', sent], ['message.ack', ack(sent.id, 3)], ['message.any', { ...sent, body: 'again' }]);
      expect(await store.get(session, chat, 'R1')).toMatchObject({ body: 'again', ack: 3, ackName: 'READ' });
    });

    it('a message seen again with ERROR takes it only before DEVICE; a later ack moves an ERROR on', async () => {
      const early = record({ id: 'X1', fromMe: true, ack: 1 });
      const delivered = record({ id: 'X2', fromMe: true, ack: 2 });
      await recorded(
        ['message.any', early],
        ['message.any', delivered],
        ['message.any', { ...early, ack: -1, ackName: 'ERROR' }],
        ['message.any', { ...delivered, ack: -1, ackName: 'ERROR' }],
      );
      expect(await store.get(session, chat, 'X1')).toMatchObject({ ack: -1, ackName: 'ERROR' });
      expect(await store.get(session, chat, 'X2')).toMatchObject({ ack: 2, ackName: 'DEVICE' });
      await recorded(['message.ack', ack(early.id, 3)], ['message.ack', ack(delivered.id, 1)]);
      expect(await store.get(session, chat, 'X1')).toMatchObject({ ack: 3, ackName: 'READ' });
      expect(await store.get(session, chat, 'X2')).toMatchObject({ ack: 2, ackName: 'DEVICE' });
      expect((await readHistory(store, session, page({ ack: 3 }))).map((r) => r.id)).toEqual([early.id]);
    });

    it('message.edited changes the text, message.revoked empties the message and drops its media', async () => {
      const typo = record({ id: 'E1', body: 'typo' });
      const photo = record({ id: 'V1', body: 'caption', hasMedia: true, media: { url: 'http://x/api/files/s/f', mimetype: 'image/png' } });
      await recorded(
        ['message.any', typo],
        ['message.any', photo],
        ['message.edited', { id: `false_${chat}_EDITACTION`, editedMessageId: 'E1', body: 'fixed', _data: {} }],
        ['message.revoked', { after: { id: `false_${chat}_REVOKEACTION`, _data: {} }, revokedMessageId: 'V1', before: null }],
        ['message.edited', { id: `false_${chat}_OTHER`, editedMessageId: 'NOPE', body: 'lost', _data: {} }],
      );
      expect(await store.get(session, chat, 'E1')).toMatchObject({ body: 'fixed' });
      expect(await store.get(session, chat, 'V1')).toMatchObject({ body: '', hasMedia: false, media: null });
      expect(await store.get(session, chat, 'NOPE')).toBeNull();
    });

    it('learns a chat’s other address from NOWEB’s raw key, so merge reads both, and edits find the message there', async () => {
      const lid = '8550001111@lid';
      const early = record({ id: 'LID1', chat: lid, body: 'before the number was known', timestamp: 1 });
      const later = record({
        id: 'PN1',
        body: 'after',
        timestamp: 2,
        _data: { key: { remoteJid: '8550001111@lid', remoteJidAlt: '15550001111@s.whatsapp.net', id: 'PN1' } },
      });
      await recorded(
        ['message.any', early],
        ['message.any', later],
        ['message.edited', { id: `false_${chat}_EDIT2`, editedMessageId: 'LID1', body: 'edited through the alias', _data: {} }],
      );
      expect(await store.aliasOf(session, chat)).toBe(lid);
      expect(await store.aliasOf(session, lid)).toBe(chat);
      expect(await bodies()).toEqual(['edited through the alias', 'after']);
      expect(await bodies({ merge: false })).toEqual(['after']);
    });

    it('learns a group sender’s phone number from participantAlt, for the LID map', async () => {
      const group = '120363000000000001@g.us';
      const sender = record({
        id: 'G1',
        chat: group,
        _data: { key: { remoteJid: group, participant: '8550002222@lid', participantAlt: '15550002222@s.whatsapp.net', id: 'G1' } },
      });
      await recorded(['message.any', sender]);
      expect(await store.aliasOf(session, '8550002222@lid')).toBe('15550002222@c.us');
      expect(await store.aliasOf(session, '15550002222@c.us')).toBe('8550002222@lid');
      expect(await store.lids(session, { limit: 10, offset: 0 })).toEqual([{ lid: '8550002222@lid', pn: '15550002222@c.us' }]);
    });

    it('learns the pairs NOWEB relays from the library (engine.event lid-mapping.update), and nothing from other engine events', async () => {
      await recorded(
        ['engine.event', { event: 'lid-mapping.update', data: { lid: '8550003333@lid', pn: '15550003333@s.whatsapp.net' } }],
        ['engine.event', { event: 'lid-mapping.update', data: { lid: '15550004444@s.whatsapp.net', pn: '8550004444@lid' } }],
        ['engine.event', { event: 'contacts.update', data: { lid: '8550005555@lid', pn: '15550005555@s.whatsapp.net' } }],
      );
      expect(await store.lids(session, { limit: 10, offset: 0 })).toEqual([{ lid: '8550003333@lid', pn: '15550003333@c.us' }]);
      expect(await store.aliasOf(session, '15550003333@c.us')).toBe('8550003333@lid');
    });
  });
}

/** A spec 2.5 record in `chat` (default the suite's direct chat). */
function record(over: Partial<MessageRecord> & { id: string; chat?: string }): MessageRecord {
  const { chat = '15550001111@c.us', id, ...rest } = over;
  const fromMe = rest.fromMe ?? false;
  const ack = rest.ack ?? 2;
  const names = { '-1': 'ERROR', 0: 'PENDING', 1: 'SERVER', 2: 'DEVICE', 3: 'READ', 4: 'PLAYED' } as const;
  return {
    id: `${fromMe}_${chat}_${id}`,
    timestamp: 1_700_000_000,
    from: fromMe ? '15550000000@c.us' : chat,
    fromMe,
    source: fromMe ? 'api' : 'app',
    to: fromMe ? chat : '15550000000@c.us',
    participant: null,
    body: '',
    hasMedia: false,
    media: null,
    vCards: [],
    replyTo: null,
    _data: {},
    ...rest,
    ack,
    ackName: names[ack],
  };
}

function ack(id: string, value: number): Record<string, unknown> {
  return { id, from: '15550001111@c.us', to: '15550000000@c.us', participant: null, fromMe: id.startsWith('true_'), ack: value };
}
