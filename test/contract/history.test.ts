import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContractGateway, restarted, startGateway, waitForStatus, workingSession } from './harness.js';

// Message history: every message in and out of a session, read back per chat (docs/api.md "History").

let gw: ContractGateway;
const S = 'hist';
const chats = (chatId: string, query = '') => `/api/${S}/chats/${chatId}/messages${query ? `?${query}` : ''}`;

beforeAll(async () => {
  gw = await startGateway();
  await workingSession(gw, S);
});
afterAll(async () => {
  await gw.close();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** GET that must answer 200; returns the records. */
async function read(path: string): Promise<any[]> {
  const res = await gw.api('GET', path);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Waits until the chat's history passes `check` (cluster mode records a moment after the event). */
function historyWhere(path: string, check: (records: any[]) => boolean, what: string): Promise<any[]> {
  return waitFor(
    async () => {
      const res = await gw.api('GET', path);
      return res.status === 200 && check(res.body) && res.body;
    },
    what,
    15_000,
  );
}

const incoming = (from: string, body: string, id?: string) =>
  gw.api('POST', `/api/${S}/sandbox/simulate`, { kind: 'message', from, body, ...(id ? { id } : {}) });
const outgoing = (chatId: string, text: string) => gw.api('POST', '/api/sendText', { session: S, chatId, text });

describe('History: GET /api/{session}/chats/{chatId}/messages', () => {
  const chat = '15551110001@c.us';
  /** The chat's 12 messages, oldest first, once every sent one reached DEVICE. */
  let all: any[];

  beforeAll(async () => {
    for (let i = 0; i < 12; i++) {
      const res = i % 2 === 0 ? await incoming(chat, `in ${i}`, `HIN${i}`) : await outgoing(chat, `out ${i}`);
      expect(res.status).toBe(201);
      // Distinct timestamps, so every order below is determined.
      await pause(5);
    }
    await incoming('15551119999@c.us', 'another chat');
    all = await historyWhere(
      chats(chat, 'limit=100&sortOrder=asc'),
      (records) => records.length === 12 && records.every((record) => record.ack === 2),
      '12 messages, the sent ones at DEVICE',
    );
  });

  it('records incoming and outgoing messages as message records (2.5)', () => {
    expect(all.map((record) => record.body)).toEqual(Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? `in ${i}` : `out ${i}`)));
    expect(all[0]).toMatchObject({
      id: `false_${chat}_HIN0`,
      from: chat,
      to: '15550000000@c.us',
      fromMe: false,
      source: 'app',
      hasMedia: false,
      media: null,
      ack: 2,
      ackName: 'DEVICE',
    });
    expect(all[1]).toMatchObject({ from: '15550000000@c.us', to: chat, fromMe: true, source: 'api', ackName: 'DEVICE' });
    expect(all[1].id).toMatch(new RegExp(`^true_${chat}_[0-9A-Z]+$`));
  });

  it('answers the newest 10 by default (limit 10, sortOrder desc), only of that chat', async () => {
    const records = await read(chats(chat));
    expect(records.map((record) => record.id)).toEqual(
      all
        .slice(-10)
        .reverse()
        .map((record) => record.id),
    );
  });

  it('sortOrder=asc answers the oldest first; sortBy=messageTimestamp sorts by the same time', async () => {
    expect((await read(chats(chat, 'sortOrder=asc'))).map((r) => r.id)).toEqual(all.slice(0, 10).map((r) => r.id));
    expect((await read(chats(chat, 'sortOrder=desc&sortBy=messageTimestamp'))).map((r) => r.id)).toEqual(
      all
        .slice(-10)
        .reverse()
        .map((r) => r.id),
    );
    expect((await read(chats(chat, 'sortOrder=asc&sortBy=timestamp&limit=3'))).map((r) => r.id)).toEqual(all.slice(0, 3).map((r) => r.id));
  });

  it('limit and offset cut pages', async () => {
    const newest = [...all].reverse().map((r) => r.id);
    expect((await read(chats(chat, 'limit=3'))).map((r) => r.id)).toEqual(newest.slice(0, 3));
    expect((await read(chats(chat, 'limit=3&offset=2'))).map((r) => r.id)).toEqual(newest.slice(2, 5));
    expect((await read(chats(chat, 'offset=10'))).map((r) => r.id)).toEqual(newest.slice(10));
    expect(await read(chats(chat, 'offset=12'))).toEqual([]);
    expect(await read(chats(chat, 'limit=100'))).toHaveLength(12);
  });

  it("limit=0, the peer's n8n node's default, sets no limit of its own: the largest page, not the default 10", async () => {
    const newest = [...all].reverse().map((r) => r.id);
    expect((await read(chats(chat, 'limit=0'))).map((r) => r.id)).toEqual(newest);
    expect((await read(`/api/messages?session=${S}&chatId=${chat}&limit=0`)).map((r) => r.id)).toEqual(newest);
  });

  it('message records carry whole Unix seconds, which typed clients parse as integers', () => {
    for (const record of all) expect(Number.isInteger(record.timestamp), String(record.timestamp)).toBe(true);
  });

  it('filter.timestamp.gte and filter.timestamp.lte are inclusive, alone and together', async () => {
    // Timestamps are whole seconds, so the 12 messages share one or two: the expected pages come
    // from the records' own timestamps, and one second past each bound shows it is inclusive.
    const [from, to] = [all[3].timestamp, all[7].timestamp];
    const ids = (records: any[]) => records.map((r) => r.id);
    const within = (gte: number, lte: number) => ids(all.filter((r) => r.timestamp >= gte && r.timestamp <= lte));
    const page = async (filter: string) => ids(await read(chats(chat, `sortOrder=asc&limit=100&${filter}`)));
    expect(await page(`filter.timestamp.gte=${from}`)).toEqual(within(from, Infinity));
    expect(await page(`filter.timestamp.lte=${to}`)).toEqual(within(-Infinity, to));
    expect(await page(`filter.timestamp.gte=${from}&filter.timestamp.lte=${to}`)).toEqual(within(from, to));
    expect(within(from, to)).toEqual(expect.arrayContaining(ids(all.slice(3, 8))));
    expect(await page(`filter.timestamp.gte=${from + 1}`)).toEqual(within(from + 1, Infinity));
    expect(await page(`filter.timestamp.lte=${to - 1}`)).toEqual(within(-Infinity, to - 1));
    expect(within(from + 1, Infinity)).not.toContain(all[3].id);
  });

  it('filter.fromMe picks sent (true) or received (false) messages', async () => {
    const sent = await read(chats(chat, 'limit=100&sortOrder=asc&filter.fromMe=true'));
    expect(sent.map((r) => r.body)).toEqual(['out 1', 'out 3', 'out 5', 'out 7', 'out 9', 'out 11']);
    const received = await read(chats(chat, 'limit=100&sortOrder=asc&filter.fromMe=false'));
    expect(received.map((r) => r.body)).toEqual(['in 0', 'in 2', 'in 4', 'in 6', 'in 8', 'in 10']);
  });

  it('filter.ack picks messages by acknowledgement name', async () => {
    expect(await read(chats(chat, 'limit=100&filter.ack=DEVICE'))).toHaveLength(12);
    expect(await read(chats(chat, 'limit=100&filter.ack=READ'))).toEqual([]);
  });

  it('merge=false reads the chat alone; with no other address known, merge=true reads the same', async () => {
    const merged = await read(chats(chat, 'limit=100'));
    expect(await read(chats(chat, 'limit=100&merge=false'))).toEqual(merged);
    expect(await read(chats('8551110001@lid', 'limit=100&merge=true'))).toEqual([]);
  });

  it('GET /api/messages (deprecated) answers the same from query parameters', async () => {
    const viaQuery = await read(`/api/messages?session=${S}&chatId=${chat}&limit=4&offset=1&sortOrder=asc&filter.fromMe=true`);
    expect(viaQuery).toEqual(await read(chats(chat, 'limit=4&offset=1&sortOrder=asc&filter.fromMe=true')));
    expect(viaQuery.map((r) => r.body)).toEqual(['out 3', 'out 5', 'out 7', 'out 9']);
  });
});

describe('History follows acknowledgements, edits and revokes', () => {
  const chat = '15551110002@c.us';

  it('message.ack moves a sent message on; filter.ack finds it by its new name', async () => {
    const sent = (await outgoing(chat, 'read me')).body;
    await historyWhere(chats(chat), (records) => records[0]?.ackName === 'DEVICE', 'the message at DEVICE');
    const acked = await gw.api('POST', `/api/${S}/sandbox/simulate`, { kind: 'ack', messageId: sent.id, ack: 'READ' });
    expect(acked.status).toBe(201);
    const [read_] = await historyWhere(chats(chat, 'filter.ack=READ'), (records) => records.length === 1, 'the READ message');
    expect(read_).toMatchObject({ id: sent.id, ack: 3, ackName: 'READ', body: 'read me' });
    expect(await read(chats(chat, 'filter.ack=DEVICE'))).toEqual([]);
  });

  it('an edit changes the text, a revoke empties the message and keeps it in place', async () => {
    const other = '15551110004@c.us';
    const edited = (await incoming(other, 'typo', 'HEDIT1')).body;
    await pause(5);
    const revoked = (await incoming(other, 'oops', 'HREVOKE1')).body;
    await historyWhere(chats(other), (records) => records.length === 2, 'both messages');
    expect((await gw.api('POST', `/api/${S}/sandbox/simulate`, { kind: 'edit', messageId: edited.id, body: 'fixed' })).status).toBe(201);
    expect((await gw.api('POST', `/api/${S}/sandbox/simulate`, { kind: 'revoke', messageId: revoked.id })).status).toBe(201);
    const records = await historyWhere(
      chats(other, 'sortOrder=asc'),
      (list) => list[0]?.body === 'fixed' && list[1]?.body === '',
      'the edit and the revoke',
    );
    expect(records.map((r) => [r.id, r.body, r.hasMedia])).toEqual([
      [edited.id, 'fixed', false],
      [revoked.id, '', false],
    ]);
  });
});

describe('History: validation and errors', () => {
  it('400 names each bad query parameter', async () => {
    const res = await gw.api(
      'GET',
      chats('15551110001@c.us', 'limit=-1&offset=-1&sortOrder=up&filter.ack=SEEN&filter.fromMe=maybe&filter.timestamp.lte=soon'),
    );
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { path: string }) => d.path).sort()).toEqual([
      'querystring.filter.ack',
      'querystring.filter.fromMe',
      'querystring.filter.timestamp.lte',
      'querystring.limit',
      'querystring.offset',
      'querystring.sortOrder',
    ]);
  });

  it('400 for a chat id that is not one, and for GET /api/messages without chatId', async () => {
    const bad = await gw.api('GET', chats('bob'));
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].path).toBe('params.chatId');
    const missing = await gw.api('GET', `/api/messages?session=${S}`);
    expect(missing.status).toBe(400);
    expect(missing.body.details[0].path).toBe('querystring.chatId');
  });

  it('404 for an unknown session; GET /api/messages defaults session to "default"', async () => {
    const unknown = await gw.api('GET', '/api/ghost/chats/15551110001@c.us/messages');
    expect(unknown.status).toBe(404);
    expect(unknown.body.details).toEqual({ session: 'ghost' });
    const byDefault = await gw.api('GET', '/api/messages?chatId=15551110001@c.us');
    expect(byDefault.status).toBe(404);
    expect(byDefault.body.details).toEqual({ session: 'default' });
  });

  it('a session that never received anything answers an empty list, even when STOPPED', async () => {
    await gw.api('POST', '/api/sessions', { name: 'hist-idle', start: false });
    expect(await read('/api/hist-idle/chats/15551110001@c.us/messages')).toEqual([]);
  });
});

describe('History outlives the engine; logout forgets it', () => {
  const chat = '15551110003@c.us';

  it('a restart of the session (a new engine pod in cluster mode) keeps the history', async () => {
    await incoming(chat, 'before restart', 'HKEEP1');
    await historyWhere(chats(chat), (records) => records.length === 1, 'the message');
    // The new engine's WORKING, not the old one's: a message sent before the old pod is gone may
    // be published and never recorded (docs/architecture.md).
    await restarted(gw, S, 60_000);
    await incoming(chat, 'after restart', 'HKEEP2');
    const records = await historyWhere(chats(chat, 'sortOrder=asc'), (list) => list.length === 2, 'both messages');
    expect(records.map((r) => r.body)).toEqual(['before restart', 'after restart']);
  });

  it('a send just before a stop, or a restart, reaches DEVICE all the same: its acknowledgements are not dropped (issue 26)', async () => {
    const to = '15551110077@c.us';
    expect((await outgoing(to, 'just before the stop')).status).toBe(201);
    expect((await gw.api('POST', `/api/sessions/${S}/stop`)).status).toBe(201);
    expect((await gw.api('POST', `/api/sessions/${S}/start`)).status).toBe(201);
    await waitForStatus(gw, S, 'WORKING', 60_000);
    expect((await outgoing(to, 'just before the restart')).status).toBe(201);
    await restarted(gw, S, 60_000);
    const records = await historyWhere(
      chats(to, 'sortOrder=asc'),
      (list) => list.length === 2 && list.every((record) => record.ackName === 'DEVICE'),
      'both sends at DEVICE',
    );
    expect(records.map((r) => r.body)).toEqual(['just before the stop', 'just before the restart']);
  });

  it('a stopped session’s history is read with no engine running (no engine pod in cluster mode)', async () => {
    expect((await gw.api('POST', `/api/sessions/${S}/stop`)).body.status).toBe('STOPPED');
    expect((await read(chats(chat, 'sortOrder=asc'))).map((r) => r.body)).toEqual(['before restart', 'after restart']);
    expect((await gw.api('POST', `/api/sessions/${S}/start`)).status).toBe(201);
    await waitForStatus(gw, S, 'WORKING', 60_000);
  });

  it('logout forgets the session’s history', async () => {
    await workingSession(gw, 'hist-out');
    await gw.api('POST', '/api/hist-out/sandbox/simulate', { kind: 'message', from: chat, body: 'forget me' });
    const path = `/api/hist-out/chats/${chat}/messages`;
    await historyWhere(path, (records) => records.length === 1, 'the message');
    expect((await gw.api('POST', '/api/sessions/hist-out/logout')).status).toBe(201);
    expect(await read(path)).toEqual([]);
  });
});
