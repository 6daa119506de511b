import { envelopeSchema, type EventName } from '@switchboard/protocol';
import { waitFor, WsClient } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type FakePhone, FakeWaServer } from '../../engine-pod/test/fake-wa/index.js';
import { ADMIN_KEY, type ContractGateway, mode, restarted, startGateway, waitForStatus } from './harness.js';

/**
 * What the phone and this device share as app state on a NOWEB session over the REST surface
 * (issue 16's labels, a chat deleted on the phone), against the fake WhatsApp server,
 * which a phone of the test pairs by QR code (contact-book.test.ts covers them on SANDBOX). Local
 * mode: the gateway's engine reads the fake's address from the environment set here. Cluster mode:
 * NOWEB engine pods dial the port the suite's setup fixed (test/e2e/support/contract-cluster-setup.ts),
 * where this file starts its fake; files run one at a time, so the others find nothing there.
 */
const S = 'noweb-app-state';
const CHAT = '15552230001@c.us';
// A chat the phone had before pairing: its first history sync carries it to the new companion.
const EARLIER = '15552230006';
const HISTORY = [
  {
    jid: `${EARLIER}@s.whatsapp.net`,
    messages: [
      { id: '3EB0B1B2C3D4E5F60001', fromMe: false, text: 'before pairing', timestamp: 1_700_000_000 },
      { id: '3EB0B1B2C3D4E5F60002', fromMe: true, text: 'my answer then', timestamp: 1_700_000_060 },
    ],
  },
];
let fake: FakeWaServer;
let gw: ContractGateway;
let ws: WsClient;
let phone: FakePhone;

/** The first `name` event on /ws whose payload matches, valid against that event's schema. */
async function delivered(name: EventName, match: (payload: any) => boolean = () => true): Promise<any> {
  const frame = await waitFor(() => ws.events(name).find((f: any) => f.session === S && match(f.payload)), `${name} on /ws`, 15_000);
  const parsed = envelopeSchema(name).safeParse(frame);
  expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  return frame;
}

describe(`labels and deleted chats on a NOWEB session over the REST surface (${mode} mode)`, () => {
  beforeAll(async () => {
    const port = mode === 'cluster' ? inject('nowebFake').port : undefined;
    fake = await FakeWaServer.start({ port });
    if (mode === 'local') process.env.SWITCHBOARD_NOWEB_WS_URL = fake.url;
    gw = await startGateway();
    ws = await WsClient.connect(gw.url, `x-api-key=${ADMIN_KEY}&session=${S}&events=*`);
    expect((await gw.api('POST', '/api/sessions', { name: S, engine: 'NOWEB' })).status).toBe(201);
    await waitForStatus(gw, S, 'SCAN_QR_CODE', 30_000);
    const qr = await gw.api('GET', `/api/${S}/auth/qr?format=raw`);
    fake.phone({ phone: '15550005555', pushName: 'Lena' }).history = HISTORY;
    phone = await fake.scanQr(qr.body.value as string, { phone: '15550005555', pushName: 'Lena' });
    await waitForStatus(gw, S, 'WORKING', 30_000);
  }, 180_000);
  afterAll(async () => {
    ws?.close();
    await gw?.close();
    await fake?.close();
    delete process.env.SWITCHBOARD_NOWEB_WS_URL;
  });

  let lead: any;

  it("lists the chats and messages the phone had before pairing (Baileys' messaging-history.set)", async () => {
    const chatId = `${EARLIER}@c.us`;
    const listed = async () => (await gw.api('GET', `/api/${S}/chats?sortBy=id&sortOrder=asc`)).body.map((chat: { id: string }) => chat.id);
    await waitFor(async () => (await listed()).includes(chatId), 'the chat from the history sync', 15_000);
    const messages = (await gw.api('GET', `/api/${S}/chats/${chatId}/messages?limit=10`)).body as { id: string; body: string; fromMe: boolean }[];
    expect(messages.map(({ id, body, fromMe }) => ({ id, body, fromMe })).sort((a, b) => a.id.localeCompare(b.id))).toEqual([
      { id: `false_${chatId}_3EB0B1B2C3D4E5F60001`, body: 'before pairing', fromMe: false },
      { id: `true_${chatId}_3EB0B1B2C3D4E5F60002`, body: 'my answer then', fromMe: true },
    ]);
  });

  it('POST /api/{session}/labels: 201 with the label, label.upsert, and the list has it', async () => {
    // Labels are app state: the phone shares its key right after pairing, and until then a change is refused.
    const made = await waitFor(async () => {
      const res = await gw.api('POST', `/api/${S}/labels`, { name: 'Lead', colorHex: '#ff9485' });
      return res.status === 201 ? res : undefined;
    }, 'the label made once the app state key arrived');
    lead = made.body;
    expect(lead).toEqual({ id: '1', name: 'Lead', color: 0, colorHex: '#ff9484' });
    expect((await delivered('label.upsert', (p) => p.id === '1')).payload).toEqual(lead);
    expect((await gw.api('GET', `/api/${S}/labels`)).body).toEqual([lead]);
  });

  it('PUT /api/{session}/labels/chats/{chatId}: the chat carries it (label.chat.added), both lists say so', async () => {
    const set = await gw.api('PUT', `/api/${S}/labels/chats/${CHAT}`, { labels: [{ id: lead.id }] });
    expect(set.status).toBe(200);
    expect((await delivered('label.chat.added', (p) => p.chatId === CHAT)).payload).toEqual({ labelId: '1', chatId: CHAT, label: lead });
    expect((await gw.api('GET', `/api/${S}/labels/chats/${CHAT}`)).body).toEqual([lead]);
    expect((await gw.api('GET', `/api/${S}/labels/1/chats`)).body).toEqual([{ id: CHAT }]);
    const unknown = await gw.api('PUT', `/api/${S}/labels/chats/${CHAT}`, { labels: [{ id: '99' }] });
    expect(unknown.status).toBe(400);
  });

  it('a label made on the phone is listed too; PUT /api/{session}/labels/{labelId} changes it', async () => {
    await phone.label({ id: '7', name: 'Paid', color: 5 });
    await delivered('label.upsert', (p) => p.id === '7');
    const changed = await gw.api('PUT', `/api/${S}/labels/7`, { name: 'Paid in full', color: 6 });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ id: '7', name: 'Paid in full', color: 6, colorHex: '#fe9dfe' });
    expect((await gw.api('GET', `/api/${S}/labels`)).body).toEqual([lead, changed.body]);
  });

  it('DELETE /api/{session}/labels/{labelId}: label.chat.deleted for its chats, then label.deleted; gone from the lists', async () => {
    expect((await gw.api('DELETE', `/api/${S}/labels/1`)).status).toBe(200);
    expect((await delivered('label.chat.deleted', (p) => p.labelId === '1')).payload).toEqual({ labelId: '1', chatId: CHAT, label: lead });
    expect((await delivered('label.deleted', (p) => p.id === '1')).payload).toEqual({ ...lead, name: '' });
    expect((await gw.api('GET', `/api/${S}/labels/chats/${CHAT}`)).body).toEqual([]);
    expect((await gw.api('GET', `/api/${S}/labels`)).body.map((label: any) => label.id)).toEqual(['7']);
    expect((await gw.api('DELETE', `/api/${S}/labels/1`)).status).toBe(404);
  });

  it('a chat deleted on the phone leaves GET /chats, and its messages list is empty; the other chats stay', async () => {
    const GONE = '15552230002';
    const listed = async () => (await gw.api('GET', `/api/${S}/chats?sortBy=id&sortOrder=asc`)).body.map((chat: { id: string }) => chat.id);
    const messagesOf = async (chatId: string) => (await gw.api('GET', `/api/${S}/chats/${chatId}/messages?limit=10`)).body;
    phone.text(GONE, 'soon gone');
    phone.text('15552230003', 'staying');
    await waitFor(
      async () => (await listed()).includes(`${GONE}@c.us`) && (await listed()).includes('15552230003@c.us'),
      'both chats listed',
      15_000,
    );
    expect(await messagesOf(`${GONE}@c.us`)).toHaveLength(1);
    await phone.deleteChat(GONE);
    await waitFor(async () => !(await listed()).includes(`${GONE}@c.us`), 'the deleted chat to leave the list', 15_000);
    expect(await messagesOf(`${GONE}@c.us`)).toEqual([]);
    expect(await listed()).toContain('15552230003@c.us');
  });

  it('keeps the labels across a restart (kept with the auth state)', async () => {
    await restarted(gw, S, 60_000);
    await waitForStatus(gw, S, 'WORKING', 30_000);
    expect((await gw.api('GET', `/api/${S}/labels`)).body).toEqual([{ id: '7', name: 'Paid in full', color: 6, colorHex: '#fe9dfe' }]);
  });
});
