import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventTap } from './event-tap.js';
import { type ContractGateway, startGateway, waitForStatus, workingSession } from './harness.js';

/** Issue 16: Contacts, Labels and LIDs on SANDBOX, in whichever mode the suite runs. */

let gw: ContractGateway;
let tap: EventTap;
const S = 'book';
const ALICE = '15552220001@c.us';
const BOB_LID = '271000000000001@lid';
const BOB_PN = '15552220002@c.us';

beforeAll(async () => {
  gw = await startGateway();
  tap = await EventTap.open(gw, S);
  await gw.api('POST', '/api/sessions', { name: 'book-qr', engine: 'SANDBOX' });
  await waitForStatus(gw, 'book-qr', 'SCAN_QR_CODE');
});
afterAll(async () => {
  await tap.close();
  await gw.close();
});

describe('Contacts', () => {
  it('GET /api/contacts and /api/{session}/contacts/{id}: the contact, by id or by the number alone', async () => {
    const byQuery = await gw.api('GET', `/api/contacts?contactId=${ALICE}&session=${S}`);
    expect(byQuery.status).toBe(200);
    expect(byQuery.body).toMatchObject({
      id: ALICE,
      number: '15552220001',
      isMe: false,
      isUser: true,
      isGroup: false,
      isBlocked: false,
      isMyContact: false,
    });
    expect((await gw.api('GET', `/api/${S}/contacts/+15552220001`)).body).toEqual(byQuery.body);
  });

  it('answers 404 for a number the service does not have, 400 naming a bad id, 422 before WORKING', async () => {
    const none = await gw.api('GET', `/api/contacts?contactId=0001234567@c.us&session=${S}`);
    expect(none.status).toBe(404);
    expect(none.body.details).toMatchObject({ contactId: '0001234567@c.us' });
    const bad = await gw.api('GET', `/api/contacts?contactId=alice&session=${S}`);
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([{ path: 'querystring.contactId', reason: expect.stringContaining('@c.us') }]);
    const scanning = await gw.api('GET', `/api/contacts?contactId=${ALICE}&session=book-qr`);
    expect(scanning.status).toBe(422);
    expect(scanning.body.details).toMatchObject({ status: 'SCAN_QR_CODE', expected: ['WORKING'] });
  });

  it('about and profile-picture answer the peer’s fields', async () => {
    const about = await gw.api('GET', `/api/contacts/about?contactId=${ALICE}&session=${S}`);
    expect(about.status).toBe(200);
    expect(about.body).toEqual({ about: expect.any(String) });
    const picture = await gw.api('GET', `/api/contacts/profile-picture?contactId=${ALICE}&session=${S}&refresh=true`);
    expect(picture.status).toBe(200);
    expect(picture.body).toEqual({ profilePictureURL: null });
  });

  it('PUT /api/{session}/contacts/{chatId} names the contact; block and unblock answer 201 and show in the contact', async () => {
    const named = await gw.api('PUT', `/api/${S}/contacts/${ALICE}`, { firstName: 'Alice', lastName: 'Liddell' });
    expect(named.status).toBe(200);
    expect(named.body).toEqual({ success: true });
    const blocked = await gw.api('POST', '/api/contacts/block', { contactId: ALICE, session: S });
    expect(blocked.status).toBe(201);
    expect((await gw.api('GET', `/api/${S}/contacts/${ALICE}`)).body).toMatchObject({
      name: 'Alice Liddell',
      shortName: 'Alice',
      isMyContact: true,
      isBlocked: true,
    });
    expect((await gw.api('POST', '/api/contacts/unblock', { contactId: ALICE, session: S })).status).toBe(201);
    expect((await gw.api('GET', `/api/${S}/contacts/${ALICE}`)).body.isBlocked).toBe(false);
    const noName = await gw.api('PUT', `/api/${S}/contacts/${ALICE}`, { lastName: 'Liddell' });
    expect(noName.status).toBe(400);
    expect(noName.body.details.map((d: { path: string }) => d.path)).toEqual(['body.firstName']);
  });

  it('GET /api/contacts/all: the people of its chats and its address book, sorted and paged; limit=0 is no limit of its own', async () => {
    await tap.simulate({ kind: 'message', from: '15552220009@c.us', body: 'hi' });
    const all = await gw.api('GET', `/api/contacts/all?session=${S}&limit=0`);
    expect(all.status).toBe(200);
    const ids = all.body.map((c: { id: string }) => c.id);
    expect(ids).toEqual(expect.arrayContaining([ALICE, '15552220009@c.us']));
    expect(ids).toEqual([...ids].sort());
    const desc = await gw.api('GET', `/api/contacts/all?session=${S}&sortBy=id&sortOrder=desc&limit=1`);
    expect(desc.body.map((c: { id: string }) => c.id)).toEqual([[...ids].sort().reverse()[0]]);
    const byName = await gw.api('GET', `/api/contacts/all?session=${S}&sortBy=name&offset=0&limit=1000`);
    expect(byName.body.length).toBe(ids.length);
    expect((await gw.api('GET', `/api/contacts/all?session=${S}&sortBy=age`)).status).toBe(400);
  });
});

describe('Labels', () => {
  let lead: any;

  it('POST /api/{session}/labels makes a label (201) and emits label.upsert; colorHex becomes the nearest palette colour', async () => {
    const made = await gw.api('POST', `/api/${S}/labels`, { name: 'Lead', colorHex: '#ff9485' });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({ id: expect.any(String), name: 'Lead', color: 0, colorHex: '#ff9484' });
    lead = made.body;
    expect((await tap.delivered('label.upsert', (p) => p.id === lead.id)).payload).toEqual(lead);
    const byIndex = await gw.api('POST', `/api/${S}/labels`, { name: 'Paid', color: 5 });
    expect(byIndex.body).toMatchObject({ name: 'Paid', color: 5, colorHex: '#56ccb4' });
    const list = await gw.api('GET', `/api/${S}/labels`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([lead, byIndex.body]);
  });

  it('refuses a label without a name, a colour outside the palette, and answers 404 for an unknown label', async () => {
    const noName = await gw.api('POST', `/api/${S}/labels`, { color: 1 });
    expect(noName.status).toBe(400);
    expect(noName.body.details.map((d: { path: string }) => d.path)).toEqual(['body.name']);
    expect((await gw.api('POST', `/api/${S}/labels`, { name: 'x', color: 20 })).status).toBe(400);
    expect((await gw.api('POST', `/api/${S}/labels`, { name: 'x', colorHex: 'red' })).status).toBe(400);
    const unknown = await gw.api('PUT', `/api/${S}/labels/999`, { name: 'Ghost' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.details).toMatchObject({ labelId: '999' });
  });

  it('PUT /api/{session}/labels/{labelId} changes it (label.upsert)', async () => {
    const changed = await gw.api('PUT', `/api/${S}/labels/${lead.id}`, { name: 'Hot lead', color: 13 });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ id: lead.id, name: 'Hot lead', color: 13, colorHex: '#f64847' });
    await tap.delivered('label.upsert', (p) => p.id === lead.id && p.name === 'Hot lead');
    lead = changed.body;
  });

  it('PUT /api/{session}/labels/chats/{chatId} sets the chat’s labels, with label.chat.added and label.chat.deleted', async () => {
    const paid = (await gw.api('GET', `/api/${S}/labels`)).body.find((l: any) => l.name === 'Paid');
    const set = await gw.api('PUT', `/api/${S}/labels/chats/${ALICE}`, { labels: [{ id: lead.id }, { id: paid.id }] });
    expect(set.status).toBe(200);
    const added = await tap.delivered('label.chat.added', (p) => p.chatId === ALICE && p.labelId === lead.id);
    expect(added.payload).toEqual({ labelId: lead.id, chatId: ALICE, label: lead });
    expect((await gw.api('GET', `/api/${S}/labels/chats/${ALICE}`)).body).toEqual([lead, paid]);
    expect((await gw.api('GET', `/api/${S}/labels/${lead.id}/chats`)).body).toEqual([{ id: ALICE }]);

    expect((await gw.api('PUT', `/api/${S}/labels/chats/${ALICE}`, { labels: [{ id: lead.id }] })).status).toBe(200);
    await tap.delivered('label.chat.deleted', (p) => p.chatId === ALICE && p.labelId === paid.id);
    expect((await gw.api('GET', `/api/${S}/labels/chats/${ALICE}`)).body).toEqual([lead]);

    const unknown = await gw.api('PUT', `/api/${S}/labels/chats/${ALICE}`, { labels: [{ id: '999' }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toEqual([{ path: 'body.labels[0].id', reason: expect.stringContaining('no label 999') }]);
  });

  it('DELETE /api/{session}/labels/{labelId} takes it off its chats, then deletes it (label.deleted, name emptied)', async () => {
    const deleted = await gw.api('DELETE', `/api/${S}/labels/${lead.id}`);
    expect(deleted.status).toBe(200);
    await tap.delivered('label.chat.deleted', (p) => p.chatId === ALICE && p.labelId === lead.id);
    expect((await tap.delivered('label.deleted', (p) => p.id === lead.id)).payload).toEqual({ ...lead, name: '' });
    expect((await gw.api('GET', `/api/${S}/labels/${lead.id}/chats`)).body).toEqual([]);
    expect((await gw.api('GET', `/api/${S}/labels/chats/${ALICE}`)).body).toEqual([]);
    expect((await gw.api('DELETE', `/api/${S}/labels/${lead.id}`)).status).toBe(404);
  });
});

describe('LIDs', () => {
  const lids = (path = '') => gw.api('GET', `/api/${S}/lids${path}`);

  it('a message from a linked id carries its phone-number id in _data.key, and the LID map learns it', async () => {
    const { id } = await tap.simulate({ kind: 'message', from: BOB_LID, pn: BOB_PN, body: 'from a lid' });
    const message = (await tap.delivered('message', (p) => p.id === id)).payload;
    expect(message.from).toBe(BOB_LID);
    expect(message._data.key).toEqual({ remoteJid: BOB_LID, remoteJidAlt: BOB_PN });
    const found = await waitFor(async () => {
      const res = await lids(`/${BOB_LID}`);
      return res.body.pn && res;
    }, 'the LID map to learn Bob');
    expect(found.status).toBe(200);
    expect(found.body).toEqual({ lid: BOB_LID, pn: BOB_PN });
    expect((await lids('/271000000000001')).body).toEqual({ lid: BOB_LID, pn: BOB_PN });
    expect((await lids(`/pn/${BOB_PN}`)).body).toEqual({ lid: BOB_LID, pn: BOB_PN });
    expect((await lids('/pn/+15552220002')).body).toEqual({ lid: BOB_LID, pn: BOB_PN });
  });

  it('a group message from a linked id carries it as participantAlt, and the map learns that too', async () => {
    const group = { id: '120363000000000001@g.us' };
    const carol = { lid: '271000000000002@lid', pn: '15552220003@c.us' };
    const { id } = await tap.simulate({ kind: 'message', from: group.id, participant: carol.lid, pn: carol.pn, body: 'hi all' });
    const message = (await tap.delivered('message', (p) => p.id === id)).payload;
    expect(message._data.key).toEqual({ remoteJid: group.id, participant: carol.lid, participantAlt: carol.pn });
    await waitFor(async () => (await lids(`/${carol.lid}`)).body.pn === carol.pn, 'the LID map to learn Carol');
  });

  it('GET /lids pages the map by linked id; /lids/count counts it', async () => {
    const count = await lids('/count');
    expect(count.status).toBe(200);
    expect(count.body).toEqual({ count: 2 });
    const all = await lids('?limit=0');
    expect(all.body).toEqual([
      { lid: BOB_LID, pn: BOB_PN },
      { lid: '271000000000002@lid', pn: '15552220003@c.us' },
    ]);
    expect((await lids('?limit=1&offset=1')).body).toEqual([all.body[1]]);
    expect((await lids('?limit=-1')).status).toBe(400);
  });

  it('an unknown id answers the id alone; a malformed one is a 400; an unknown session a 404', async () => {
    expect((await lids('/999@lid')).body).toEqual({ lid: '999@lid' });
    expect((await lids('/pn/123456789')).body).toEqual({ pn: '123456789@c.us' });
    const bad = await lids('/bob@lid');
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { path: string }) => d.path)).toEqual(['params.lid']);
    expect((await gw.api('GET', '/api/ghost/lids/count')).status).toBe(404);
  });

  it('pn only for a sender that is a linked id', async () => {
    const res = await gw.api('POST', `/api/${S}/sandbox/simulate`, { kind: 'message', from: ALICE, pn: BOB_PN, body: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toEqual(['body.pn']);
  });

  it('the map is answered while the session is stopped, and forgotten with a logout', async () => {
    expect((await gw.api('POST', `/api/sessions/${S}/stop`)).status).toBeLessThan(300);
    await waitForStatus(gw, S, 'STOPPED');
    expect((await lids(`/${BOB_LID}`)).body).toEqual({ lid: BOB_LID, pn: BOB_PN });
    await workingSession(gw, 'book-lo', { engine: 'SANDBOX' });
    await gw.api('POST', '/api/book-lo/sandbox/simulate', { kind: 'message', from: BOB_LID, pn: BOB_PN, body: 'x' });
    await waitFor(async () => (await gw.api('GET', '/api/book-lo/lids/count')).body.count === 1, 'book-lo to learn Bob');
    expect((await gw.api('POST', '/api/sessions/book-lo/logout')).status).toBeLessThan(300);
    await waitFor(async () => (await gw.api('GET', '/api/book-lo/lids/count')).body.count === 0, 'the logout to forget the map');
  });
});
