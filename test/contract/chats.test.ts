import { waitFor, WsClient } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, type ContractGateway, startGateway, workingSession } from './harness.js';

/**
 * The peer product's Chats, Presence, calls reject and event message operations
 * (`/api/{session}/chats...`, `/presence...`, `/calls/reject`, `/events`), on SANDBOX: the
 * interface spec stops before them (4.5), so their paths, fields and statuses are the peer's.
 */

let gw: ContractGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw.close();
});

const ALICE = '15550001111@c.us';
const BOB = '15550002222@c.us';
const enc = encodeURIComponent;

async function received(session: string, from: string, body: string, id?: string): Promise<string> {
  const res = await gw.api('POST', `/api/${session}/sandbox/simulate`, { kind: 'message', from, body, ...(id ? { id } : {}) });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function sent(session: string, chatId: string, text: string): Promise<string> {
  const res = await gw.api('POST', '/api/sendText', { session, chatId, text });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** The message as the history has it, once it has it. */
async function stored(session: string, chatId: string, id: string, check: (record: { body: string }) => boolean = () => true) {
  return waitFor(async () => {
    const res = await gw.api('GET', `/api/${session}/chats/${enc(chatId)}/messages/${enc(id)}`);
    return res.status === 200 && check(res.body) ? res.body : undefined;
  }, `message ${id} in the history`);
}

describe('chats list and overview: from the message history', () => {
  const S = 'chats-list';
  let last: string;
  beforeAll(async () => {
    await workingSession(gw, S, { engine: 'SANDBOX' });
    const first = await received(S, ALICE, 'hello from Alice');
    await stored(S, ALICE, first);
    last = await sent(S, BOB, 'hello Bob');
    await stored(S, BOB, last);
  });

  it('GET /chats lists every chat with a message, newest conversation first, each with its last message', async () => {
    const res = await gw.api('GET', `/api/${S}/chats`);
    expect(res.status).toBe(200);
    expect(res.body.map((chat: { id: string }) => chat.id)).toEqual([BOB, ALICE]);
    expect(res.body[0]).toMatchObject({
      id: BOB,
      name: null,
      picture: null,
      lastMessage: { id: last, body: 'hello Bob' },
      _chat: { id: BOB, messages: 1 },
    });
    const ascending = await gw.api('GET', `/api/${S}/chats?sortOrder=asc&limit=1`);
    expect(ascending.body.map((chat: { id: string }) => chat.id)).toEqual([ALICE]);
    const byId = await gw.api('GET', `/api/${S}/chats?sortBy=id&sortOrder=asc&offset=1`);
    expect(byId.body.map((chat: { id: string }) => chat.id)).toEqual([BOB]);
  });

  it('GET /chats/overview filters by ids (repeated); POST /chats/overview takes them in the body and answers 201', async () => {
    const one = await gw.api('GET', `/api/${S}/chats/overview?ids=${enc(ALICE)}`);
    expect(one.status).toBe(200);
    expect(one.body.map((chat: { id: string }) => chat.id)).toEqual([ALICE]);
    const both = await gw.api('GET', `/api/${S}/chats/overview?ids=${enc(ALICE)}&ids=${enc(BOB)}&limit=20`);
    expect(both.body.map((chat: { id: string }) => chat.id)).toEqual([BOB, ALICE]);
    const posted = await gw.api('POST', `/api/${S}/chats/overview`, { pagination: { limit: 1 }, filter: { ids: [ALICE, BOB] } });
    expect(posted.status).toBe(201);
    expect(posted.body.map((chat: { id: string }) => chat.id)).toEqual([BOB]);
  });

  it('refuses bad input with 400 naming the field; an unknown session is a 404', async () => {
    const cases: [string, string, unknown, string][] = [
      ['GET', `/api/${S}/chats?limit=-1`, undefined, 'querystring.limit'],
      ['GET', `/api/${S}/chats?sortBy=unread`, undefined, 'querystring.sortBy'],
      ['GET', `/api/${S}/chats/overview?ids=nobody`, undefined, 'querystring.ids[0]'],
      ['POST', `/api/${S}/chats/overview`, { filter: {} }, 'body.pagination'],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await gw.api(method, path, body);
      expect(res.status, path).toBe(400);
      expect(
        res.body.details.map((d: { path: string }) => d.path),
        path,
      ).toEqual([field]);
    }
    expect((await gw.api('GET', '/api/no-such-session/chats')).status).toBe(404);
  });
});

describe('messages of a chat: get one, edit, delete, pin', () => {
  const S = 'chats-msg';
  let ws: WsClient;
  beforeAll(async () => {
    await workingSession(gw, S, { engine: 'SANDBOX' });
    ws = await WsClient.connect(gw.url, `x-api-key=${ADMIN_KEY}&session=${S}&events=message.edited&events=message.revoked`);
  });
  afterAll(() => ws.close());

  it('GET one message answers its record; one the history lacks is a 404; one of another chat a 400', async () => {
    const id = await sent(S, ALICE, 'first');
    expect(await stored(S, ALICE, id)).toMatchObject({ id, body: 'first', fromMe: true });
    const unknown = await gw.api('GET', `/api/${S}/chats/${enc(ALICE)}/messages/${enc(`true_${ALICE}_AAAAAAAAAAAAAAAA`)}`);
    expect(unknown.status).toBe(404);
    const other = await gw.api('GET', `/api/${S}/chats/${enc(ALICE)}/messages/${enc(id.replace(ALICE, BOB))}`);
    expect(other.status).toBe(400);
    expect(other.body.details.map((d: { path: string }) => d.path)).toEqual(['params.messageId']);
  });

  it('PUT edits a message the account sent: 200, message.edited with the new text, and the history has it', async () => {
    const id = await sent(S, ALICE, 'tpyo');
    const res = await gw.api('PUT', `/api/${S}/chats/${enc(ALICE)}/messages/${enc(id)}`, { text: 'typo' });
    expect(res.status).toBe(200);
    const event = await waitFor(() => ws.events('message.edited').find((e) => e.payload.body === 'typo'), 'message.edited');
    expect(event.payload.editedMessageId).toBe(id.split('_').at(-1));
    await stored(S, ALICE, id, (record) => record.body === 'typo');
  });

  it('refuses to edit what someone else sent, and an edit without text, naming the field', async () => {
    const theirs = await received(S, ALICE, 'mine, not yours');
    const res = await gw.api('PUT', `/api/${S}/chats/${enc(ALICE)}/messages/${enc(theirs)}`, { text: 'hacked' });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ path: 'params.messageId', reason: expect.stringContaining('only messages the account sent') }]);
    const empty = await gw.api('PUT', `/api/${S}/chats/${enc(ALICE)}/messages/${enc(theirs)}`, {});
    expect(empty.status).toBe(400);
    expect(empty.body.details.map((d: { path: string }) => d.path)).toEqual(['body.text']);
  });

  it('DELETE one message revokes it for everyone: 200, message.revoked, and the history shows it emptied', async () => {
    const id = await sent(S, ALICE, 'oops');
    await stored(S, ALICE, id);
    const res = await gw.api('DELETE', `/api/${S}/chats/${enc(ALICE)}/messages/${enc(id)}`);
    expect(res.status).toBe(200);
    await waitFor(() => ws.events('message.revoked').find((e) => e.payload.revokedMessageId === id.split('_').at(-1)), 'message.revoked');
    await stored(S, ALICE, id, (record) => record.body === '');
  });

  it('pin takes 24 hours, 7 or 30 days (201); another duration is a 400 naming it; unpin is 201', async () => {
    const id = await sent(S, ALICE, 'pin me');
    const path = `/api/${S}/chats/${enc(ALICE)}/messages/${enc(id)}`;
    expect((await gw.api('POST', `${path}/pin`, { duration: 604800 })).status).toBe(201);
    const wrong = await gw.api('POST', `${path}/pin`, { duration: 60 });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details.map((d: { path: string }) => d.path)).toEqual(['body.duration']);
    expect((await gw.api('POST', `${path}/unpin`)).status).toBe(201);
  });
});

describe('chat actions: archive, read, unread, picture, clear, delete', () => {
  const S = 'chats-act';
  beforeAll(async () => {
    await workingSession(gw, S, { engine: 'SANDBOX' });
  });

  it('archive and unarchive answer 201 and cause chat.archive with archived true, then false', async () => {
    const ws = await WsClient.connect(gw.url, `x-api-key=${ADMIN_KEY}&session=${S}&events=chat.archive`);
    expect((await gw.api('POST', `/api/${S}/chats/${enc(ALICE)}/archive`)).status).toBe(201);
    expect((await gw.api('POST', `/api/${S}/chats/${enc(ALICE)}/unarchive`)).status).toBe(201);
    const events = await waitFor(() => (ws.events('chat.archive').length >= 2 ? ws.events('chat.archive') : undefined), 'chat.archive twice');
    expect(events.map((e) => [e.payload.id, e.payload.archived])).toEqual([
      [ALICE, true],
      [ALICE, false],
    ]);
    ws.close();
  });

  it('messages/read marks the unread incoming messages read (201 with their ids), the newest `messages` of them; then none are left', async () => {
    const older = await received(S, BOB, 'one');
    const newer = await received(S, BOB, 'two');
    const newest = await gw.api('POST', `/api/${S}/chats/${enc(BOB)}/messages/read?messages=1`);
    expect(newest.status).toBe(201);
    expect(newest.body.ids).toHaveLength(1);
    const rest = await gw.api('POST', `/api/${S}/chats/${enc(BOB)}/messages/read`);
    expect([...newest.body.ids, ...rest.body.ids].sort()).toEqual([older, newer].sort());
    expect((await gw.api('POST', `/api/${S}/chats/${enc(BOB)}/messages/read`)).body).toEqual({ ids: [] });
    const bad = await gw.api('POST', `/api/${S}/chats/${enc(BOB)}/messages/read?days=0`);
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { path: string }) => d.path)).toEqual(['querystring.days']);
  });

  it('unread answers 201; DELETE messages (clear) and DELETE the chat answer 200', async () => {
    expect((await gw.api('POST', `/api/${S}/chats/${enc(BOB)}/unread`)).status).toBe(201);
    expect((await gw.api('DELETE', `/api/${S}/chats/${enc(BOB)}/messages`)).status).toBe(200);
    expect((await gw.api('DELETE', `/api/${S}/chats/${enc(BOB)}`)).status).toBe(200);
    // What the simulated phone no longer has cannot be read again.
    expect((await gw.api('POST', `/api/${S}/chats/${enc(BOB)}/messages/read`)).body).toEqual({ ids: [] });
  });

  it('picture answers {url} of an image the gateway serves, the same until refresh', async () => {
    const res = await gw.api('GET', `/api/${S}/chats/${enc(ALICE)}/picture`);
    expect(res.status).toBe(200);
    const download = await fetch(gw.url + new URL(res.body.url).pathname, { headers: { 'x-api-key': ADMIN_KEY } });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('image/png');
    expect(
      Buffer.from(await download.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    expect((await gw.api('GET', `/api/${S}/chats/${enc(ALICE)}/picture`)).body.url).toBe(res.body.url);
    expect((await gw.api('GET', `/api/${S}/chats/${enc(ALICE)}/picture?refresh=true`)).body.url).not.toBe(res.body.url);
  });

  it('a chat id that is none is a 400 naming it', async () => {
    const res = await gw.api('POST', `/api/${S}/chats/nobody/archive`);
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toEqual(['params.chatId']);
  });
});

describe('deleting or clearing a chat forgets its history: it leaves the chats list, and its messages list is empty', () => {
  const S = 'chats-delete';
  const CAROL_LID = '271000000000009@lid';
  const CAROL_PN = '15550003333@c.us';
  const listed = async () => (await gw.api('GET', `/api/${S}/chats?sortBy=id&sortOrder=asc`)).body.map((chat: { id: string }) => chat.id);
  const messagesOf = async (chatId: string, query = '') => (await gw.api('GET', `/api/${S}/chats/${enc(chatId)}/messages?limit=100${query}`)).body;
  beforeAll(async () => {
    await workingSession(gw, S, { engine: 'SANDBOX' });
  });

  it('DELETE the chat: 200, then GET /chats and the overview no longer list it and its messages are gone; other chats stay', async () => {
    await stored(S, ALICE, await sent(S, ALICE, 'to Alice'));
    const bobs = await received(S, BOB, 'from Bob');
    await stored(S, BOB, bobs);
    expect(await listed()).toEqual([ALICE, BOB]);
    expect((await gw.api('DELETE', `/api/${S}/chats/${enc(ALICE)}`)).status).toBe(200);
    expect(await listed()).toEqual([BOB]);
    expect((await gw.api('GET', `/api/${S}/chats/overview`)).body.map((chat: { id: string }) => chat.id)).toEqual([BOB]);
    expect(await messagesOf(ALICE)).toEqual([]);
    expect((await messagesOf(BOB)).map((r: { id: string }) => r.id)).toEqual([bobs]);
  });

  it('a contact’s chat under its linked id and its number is one: deleting it forgets both, and the LID map keeps the pair', async () => {
    const fromLid = await gw.api('POST', `/api/${S}/sandbox/simulate`, { kind: 'message', from: CAROL_LID, pn: CAROL_PN, body: 'from a lid' });
    expect(fromLid.status).toBe(201);
    await stored(S, CAROL_LID, fromLid.body.id);
    await stored(S, CAROL_PN, await sent(S, CAROL_PN, 'to the number'));
    expect(await messagesOf(CAROL_PN)).toHaveLength(2);
    // One chat, under the address of its newest message (both messages may share their second).
    const [bob, carol, ...more] = await listed();
    expect([bob, more]).toEqual([BOB, []]);
    expect([CAROL_PN, CAROL_LID]).toContain(carol);
    expect((await gw.api('DELETE', `/api/${S}/chats/${enc(CAROL_PN)}`)).status).toBe(200);
    expect(await listed()).toEqual([BOB]);
    expect(await messagesOf(CAROL_PN)).toEqual([]);
    expect(await messagesOf(CAROL_LID, '&merge=false')).toEqual([]);
    expect((await gw.api('GET', `/api/${S}/lids/pn/${CAROL_PN}`)).body).toEqual({ lid: CAROL_LID, pn: CAROL_PN });
  });

  it('DELETE its messages (clear): 200, its messages list is empty, and it is listed again with its next message', async () => {
    const DAN = '15550004444@c.us';
    await stored(S, DAN, await received(S, DAN, 'from Dan'));
    await stored(S, DAN, await sent(S, DAN, 'to Dan'));
    expect(await messagesOf(DAN)).toHaveLength(2);
    expect((await gw.api('DELETE', `/api/${S}/chats/${enc(DAN)}/messages`)).status).toBe(200);
    expect(await messagesOf(DAN)).toEqual([]);
    expect(await listed()).not.toContain(DAN);
    const next = await received(S, DAN, 'after the clear');
    await stored(S, DAN, next);
    expect((await messagesOf(DAN)).map((r: { id: string }) => r.id)).toEqual([next]);
    expect(await listed()).toContain(DAN);
  });
});

describe('presence', () => {
  const S = 'chats-presence';
  beforeAll(async () => {
    await workingSession(gw, S, { engine: 'SANDBOX' });
  });

  it('POST sets the account’s presence (201); typing, recording and paused need chatId (400 naming it)', async () => {
    expect((await gw.api('POST', `/api/${S}/presence`, { presence: 'online' })).status).toBe(201);
    expect((await gw.api('POST', `/api/${S}/presence`, { presence: 'typing', chatId: ALICE })).status).toBe(201);
    const typing = await gw.api('POST', `/api/${S}/presence`, { presence: 'typing' });
    expect(typing.status).toBe(400);
    expect(typing.body.details.map((d: { path: string }) => d.path)).toEqual(['body.chatId']);
    const unknown = await gw.api('POST', `/api/${S}/presence`, { presence: 'away' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details.map((d: { path: string }) => d.path)).toEqual(['body.presence']);
  });

  it('GET /presence/{chatId} subscribes and answers what is known; presence.update then shows there and in GET /presence', async () => {
    expect((await gw.api('GET', `/api/${S}/presence/${enc(ALICE)}`)).body).toEqual({ id: ALICE, presences: [] });
    expect((await gw.api('POST', `/api/${S}/presence/${enc(BOB)}/subscribe`)).status).toBe(201);
    await gw.api('POST', `/api/${S}/sandbox/simulate`, { kind: 'presence', chatId: ALICE, presence: 'typing' });
    expect((await gw.api('GET', `/api/${S}/presence/${enc(ALICE)}`)).body).toEqual({
      id: ALICE,
      presences: [{ participant: ALICE, lastKnownPresence: 'typing', lastSeen: null }],
    });
    const all = await gw.api('GET', `/api/${S}/presence`);
    expect(all.status).toBe(200);
    expect(all.body).toEqual(
      expect.arrayContaining([
        { id: BOB, presences: [] },
        { id: ALICE, presences: [{ participant: ALICE, lastKnownPresence: 'typing', lastSeen: null }] },
      ]),
    );
  });
});

describe('calls reject and event messages', () => {
  const S = 'chats-calls';
  beforeAll(async () => {
    await workingSession(gw, S, { engine: 'SANDBOX' });
  });

  it('POST /calls/reject declines the ringing call (201, call.rejected); a call that is not ringing is a 404 naming it', async () => {
    const ws = await WsClient.connect(gw.url, `x-api-key=${ADMIN_KEY}&session=${S}&events=call.rejected`);
    const ring = await gw.api('POST', `/api/${S}/sandbox/simulate`, { kind: 'call', status: 'offer', from: ALICE });
    const res = await gw.api('POST', `/api/${S}/calls/reject`, { from: ALICE, id: ring.body.id });
    expect(res.status).toBe(201);
    const event = await waitFor(() => ws.events('call.rejected')[0], 'call.rejected');
    expect(event.payload).toMatchObject({ id: ring.body.id, from: ALICE });
    const again = await gw.api('POST', `/api/${S}/calls/reject`, { from: ALICE, id: ring.body.id });
    expect(again.status).toBe(404);
    expect(again.body.details).toEqual({ session: S, callId: ring.body.id });
    ws.close();
  });

  it('POST /events sends an event message: 201 with its record, and message.any with source api', async () => {
    const ws = await WsClient.connect(gw.url, `x-api-key=${ADMIN_KEY}&session=${S}&events=message.any`);
    const event = { name: 'Team lunch', description: 'Pizza', startTime: 2063137000, location: { name: 'The usual place' } };
    const res = await gw.api('POST', `/api/${S}/events`, { chatId: ALICE, event });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ to: ALICE, fromMe: true, source: 'api', body: 'Team lunch' });
    const any = await waitFor(() => ws.events('message.any').find((e) => e.payload.id === res.body.id), 'message.any');
    expect(any.payload.source).toBe('api');
    ws.close();
  });

  it('an event that ends before it starts, or has no name, is a 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ name: 'x', startTime: 2063137000, endTime: 2063136000 }, 'body.event.endTime'],
      [{ startTime: 2063137000 }, 'body.event.name'],
      [{ name: 'x', startTime: 1.5 }, 'body.event.startTime'],
    ];
    for (const [event, field] of cases) {
      const res = await gw.api('POST', `/api/${S}/events`, { chatId: ALICE, event });
      expect(res.status, JSON.stringify(event)).toBe(400);
      expect(res.body.details.map((d: { path: string }) => d.path)).toEqual([field]);
    }
  });
});

describe('an engine that cannot: 422 from the engine catalog', () => {
  it('WEBJS reads no presence (whatsapp-web.js has none); it declines calls, so that is refused for the status only', async () => {
    const session = 'chats-webjs';
    expect((await gw.api('POST', '/api/sessions', { name: session, engine: 'WEBJS', start: false })).status).toBe(201);
    const cases: [string, string, unknown, string][] = [
      ['GET', `/api/${session}/presence`, undefined, 'reading presence'],
      ['POST', `/api/${session}/presence/${enc(ALICE)}/subscribe`, undefined, 'subscribing to presence'],
    ];
    for (const [method, path, body, what] of cases) {
      const res = await gw.api(method, path, body);
      expect(res.status, path).toBe(422);
      expect(res.body.message, path).toBe(`engine WEBJS does not support ${what} (session '${session}')`);
    }
    const reject = await gw.api('POST', `/api/${session}/calls/reject`, { from: ALICE, id: 'ABCDEF0123456789' });
    expect(reject.status).toBe(422);
    expect(reject.body.message).toMatch(new RegExp(`^session '${session}' is STOPPED; this needs WORKING`));
    // The lists come from the history, whatever the engine.
    expect((await gw.api('GET', `/api/${session}/chats`)).body).toEqual([]);
  });
});
