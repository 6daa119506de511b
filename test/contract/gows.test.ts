import { isDeepStrictEqual } from 'node:util';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type FakePhone, FakeWaServer } from '../../engine-pod/test/fake-wa/index.js';
import { buildGows } from '../../engine-pod/test/gows/driver.js';
import { type ContractGateway, mode, restarted, startGateway, waitForStatus } from './harness.js';

/**
 * A GOWS session through the REST surface, against the fake WhatsApp server, which a phone of the
 * test pairs by QR code. Local mode, as `make run` serves it: the gateway runs the Go engine
 * (switchboard-gows) as the session's child process. Cluster mode: the engine pod is the Go
 * engine's own (`switchboard-gows nats`), whose environment the suite's setup fixed before this
 * file runs, so the fake starts on the port and with the certificate root the setup gave them
 * (test/e2e/support/contract-cluster-setup.ts).
 */
const CONTACT = '15551113333';
// A chat the phone had before pairing: its first history sync carries it to the new companion.
const EARLIER = '15551113336';
const HISTORY = [
  {
    jid: `${EARLIER}@s.whatsapp.net`,
    messages: [
      { id: '3EB0A1B2C3D4E5F60001', fromMe: false, text: 'before pairing', timestamp: 1_700_000_000 },
      // Read by the contact (WebMessageInfo.Status READ).
      { id: '3EB0A1B2C3D4E5F60002', fromMe: true, text: 'my answer then', timestamp: 1_700_000_060, status: 4 },
    ],
  },
];
// A 2x1 PNG: the engine makes the square JPEG the service keeps of it.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAADUlEQVR4nGP4zwAE/wEHAAH/4iOeWQAAAABJRU5ErkJggg==';
let fake: FakeWaServer;
let gw: ContractGateway;
let phone: FakePhone;

describe(`a GOWS session over the REST surface (${mode} mode)`, () => {
  beforeAll(async () => {
    const cluster = mode === 'cluster' ? inject('gowsFake') : undefined;
    const [server, binary] = await Promise.all([FakeWaServer.start({ signal: true, port: cluster?.port, certRoot: cluster?.certRoot }), buildGows()]);
    fake = server;
    fake.phone({ phone: '15550004444', pushName: 'Grace' }).history = HISTORY;
    process.env.SWITCHBOARD_GOWS_BIN = binary;
    process.env.SWITCHBOARD_GOWS_WS_URL = fake.url;
    process.env.SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY = fake.certRootPublicKey;
    gw = await startGateway();
  }, 180_000);
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
    delete process.env.SWITCHBOARD_GOWS_BIN;
    delete process.env.SWITCHBOARD_GOWS_WS_URL;
    delete process.env.SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY;
  });

  it('pairs by QR code: SCAN_QR_CODE with a raw QR value, then WORKING with me', async () => {
    expect((await gw.api('POST', '/api/sessions', { name: 'gows', engine: 'GOWS' })).status).toBe(201);
    await waitForStatus(gw, 'gows', 'SCAN_QR_CODE');
    const qr = await gw.api('GET', '/api/gows/auth/qr?format=raw');
    expect(qr.status).toBe(200);
    phone = await fake.scanQr(qr.body.value as string, { phone: '15550004444', pushName: 'Grace' });
    await waitForStatus(gw, 'gows', 'WORKING');
    const me = await gw.api('GET', '/api/sessions/gows/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: '15550004444@c.us' });
    expect((await gw.api('GET', '/api/sessions/gows')).body).toMatchObject({ name: 'gows', engine: 'GOWS', status: 'WORKING' });
  });

  it("lists the chats and messages the phone had before pairing (whatsmeow's history sync)", async () => {
    const chatId = `${EARLIER}@c.us`;
    const listed = async () => (await gw.api('GET', '/api/gows/chats?sortBy=id&sortOrder=asc')).body.map((chat: { id: string }) => chat.id);
    await waitFor(async () => (await listed()).includes(chatId), 'the chat from the history sync', 15_000);
    const messages = (await gw.api('GET', `/api/gows/chats/${chatId}/messages?limit=10`)).body as {
      id: string;
      body: string;
      fromMe: boolean;
      ackName: string;
    }[];
    expect(messages.map(({ id, body, fromMe, ackName }) => ({ id, body, fromMe, ackName })).sort((a, b) => a.id.localeCompare(b.id))).toEqual([
      { id: `false_${chatId}_3EB0A1B2C3D4E5F60001`, body: 'before pairing', fromMe: false, ackName: 'DEVICE' },
      { id: `true_${chatId}_3EB0A1B2C3D4E5F60002`, body: 'my answer then', fromMe: true, ackName: 'READ' },
    ]);
  });

  it("sends text: 201 with the message record, which the contact's phone reads", async () => {
    fake.contact(CONTACT, '245120000004444');
    const res = await gw.api('POST', '/api/sendText', { session: 'gows', chatId: `${CONTACT}@c.us`, text: 'hello from GOWS' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ fromMe: true, to: `${CONTACT}@c.us`, body: 'hello from GOWS', source: 'api' });
    expect(await phone.read(String(res.body.id).split('_')[2]!)).toMatchObject({ conversation: 'hello from GOWS' });
  });

  it("sends a custom link preview, and the deprecated sendLinkPreview: the contact's phone reads the URL, title, description and JPEG thumbnail", async () => {
    const chatId = `${CONTACT}@c.us`;
    const res = await gw.api('POST', '/api/send/link-custom-preview', {
      session: 'gows',
      chatId,
      text: 'Read https://example.com/post',
      linkPreviewHighQuality: false,
      preview: { url: 'https://example.com/post', title: 'A post', description: 'About things', image: { mimetype: 'image/png', data: PNG } },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ fromMe: true, to: chatId, body: 'Read https://example.com/post', source: 'api' });
    const text = (await phone.read(String(res.body.id).split('_')[2]!)).extendedTextMessage!;
    expect(text).toMatchObject({
      text: 'Read https://example.com/post',
      matchedText: 'https://example.com/post',
      title: 'A post',
      description: 'About things',
    });
    expect(Buffer.from(text.jpegThumbnail!).subarray(0, 3).toString('hex')).toBe('ffd8ff');

    const old = await gw.api('POST', '/api/sendLinkPreview', { session: 'gows', chatId, url: 'https://example.com/old', title: 'Old' });
    expect(old.status).toBe(201);
    expect((await phone.read(String(old.body.id).split('_')[2]!)).extendedTextMessage).toMatchObject({
      text: 'https://example.com/old',
      matchedText: 'https://example.com/old',
      title: 'Old',
    });
  });

  it('reads the presence heard of a chat, and subscribes to one not heard yet: GET /presence/{chatId} and GET /presence', async () => {
    const chatId = `${CONTACT}@c.us`;
    phone.presence(CONTACT, 'composing');
    const typing = { id: chatId, presences: [{ participant: chatId, lastKnownPresence: 'typing', lastSeen: null }] };
    await waitFor(async () => isDeepStrictEqual((await gw.api('GET', `/api/gows/presence/${chatId}`)).body, typing), 'the heard presence', 15_000);
    const other = `${EARLIER}@c.us`;
    expect((await gw.api('GET', `/api/gows/presence/${other}`)).body).toEqual({ id: other, presences: [] });
    const all = await gw.api('GET', '/api/gows/presence');
    expect(all.status).toBe(200);
    expect(all.body).toEqual(expect.arrayContaining([typing, { id: other, presences: [] }]));
  });

  it("sends an event message: 201 with the message record; the contact's phone decrypts it, with its message secret", async () => {
    const chatId = `${CONTACT}@c.us`;
    const event = { name: 'Team lunch', startTime: 2_063_137_000, location: { name: 'Canteen' } };
    const res = await gw.api('POST', '/api/gows/events', { chatId, event });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ fromMe: true, to: chatId, source: 'api' });
    const read = await phone.read(String(res.body.id).split('_')[2]!);
    expect(read.eventMessage).toMatchObject({ name: 'Team lunch', location: { name: 'Canteen' }, extraGuestsAllowed: false });
    expect(read.messageContextInfo?.messageSecret).toHaveLength(32);
  });

  it('what the Go engine does not do answers 422 NOT_SUPPORTED from the catalog, in WORKING too', async () => {
    // whatsmeow has no passkey pairing.
    const res = await gw.api('GET', '/api/gows/auth/passkey/challenge');
    expect(res.status).toBe(422);
    expect(res.body.message).toBe("engine GOWS does not support passkey pairing (session 'gows')");
  });

  it('sets the profile name and picture; the profile answers them, and the picture goes again', async () => {
    expect((await gw.api('PUT', '/api/gows/profile/name', { name: 'Grace H.' })).body).toEqual({ success: true });
    expect((await gw.api('PUT', '/api/gows/profile/picture', { file: { mimetype: 'image/png', data: PNG } })).body).toEqual({ success: true });
    expect(phone.profile.picture?.jpeg.subarray(0, 2).toString('hex')).toBe('ffd8');
    expect((await gw.api('GET', '/api/gows/profile')).body).toEqual({ id: '15550004444@c.us', name: 'Grace H.', picture: phone.profile.pictureUrl });
    expect((await gw.api('DELETE', '/api/gows/profile/picture')).body).toEqual({ success: true });
    expect((await gw.api('GET', '/api/gows/profile')).body).toMatchObject({ picture: null });
  });

  it('reads contacts, their About text and picture, blocks one and names it', async () => {
    fake.about(CONTACT, 'At sea');
    const query = `session=gows&contactId=${CONTACT}`;
    expect((await gw.api('GET', `/api/contacts?${query}`)).body).toMatchObject({ id: `${CONTACT}@c.us`, number: CONTACT, isBlocked: false });
    expect((await gw.api('GET', `/api/contacts/about?${query}`)).body).toEqual({ about: 'At sea' });
    expect((await gw.api('GET', `/api/contacts/profile-picture?${query}`)).body).toEqual({ profilePictureURL: null });
    expect((await gw.api('POST', '/api/contacts/block', { session: 'gows', contactId: CONTACT })).status).toBe(201);
    expect((await gw.api('GET', `/api/gows/contacts/${CONTACT}@c.us`)).body).toMatchObject({ isBlocked: true });
    const all = (await gw.api('GET', '/api/contacts/all?session=gows')).body as unknown as { id: string; isBlocked: boolean }[];
    expect(all.find((contact) => contact.id === `${CONTACT}@c.us`)).toMatchObject({ isBlocked: true });
    expect((await gw.api('POST', '/api/contacts/unblock', { session: 'gows', contactId: CONTACT })).status).toBe(201);
    expect(phone.profile.blocked.size).toBe(0);
    expect((await gw.api('PUT', `/api/gows/contacts/${CONTACT}@c.us`, { firstName: 'Bob', lastName: 'Builder' })).body).toEqual({ success: true });
    expect((await gw.api('GET', `/api/contacts?${query}`)).body).toMatchObject({ name: 'Bob Builder', shortName: 'Bob', isMyContact: true });
  });

  it("sets and reads a group's picture", async () => {
    const group = await gw.api('POST', '/api/gows/groups', { name: 'Pics', participants: [{ id: `${CONTACT}@c.us` }] });
    expect(group.status).toBe(201);
    const id = String(group.body.id);
    expect((await gw.api('PUT', `/api/gows/groups/${id}/picture`, { file: { mimetype: 'image/png', data: PNG } })).body).toEqual({ success: true });
    expect(fake.groupById(id)?.picture).not.toBeNull();
    expect((await gw.api('GET', `/api/gows/groups/${id}/picture?refresh=true`)).body).toEqual({
      url: expect.stringMatching(/^https:\/\/pps\.whatsapp\.net\//),
    });
  });

  it('archives, unarchives, marks unread, clears and deletes a chat: app state patches the phone decodes; reads its picture and marks it read', async () => {
    const chat = `/api/gows/chats/${CONTACT}@c.us`;
    const uploaded = async (kind: string) => {
      await phone.appState.settled();
      return phone.appState.uploaded.filter((u) => u.index[0] === kind && u.index[1] === `${CONTACT}@s.whatsapp.net`);
    };
    for (const [method, path, status] of [
      ['POST', '/archive', 201],
      ['POST', '/unarchive', 201],
      ['POST', '/unread', 201],
      ['DELETE', '/messages', 200],
      ['DELETE', '', 200],
    ] as const) {
      const res = await gw.api(method, `${chat}${path}`);
      expect([path, res.status, res.body]).toEqual([path, status, { success: true }]);
    }
    expect((await uploaded('archive')).map((u) => u.action.archiveChatAction?.archived)).toEqual([true, false]);
    expect((await uploaded('markChatAsRead')).map((u) => u.action.markChatAsReadAction?.read)).toEqual([false]);
    expect(await uploaded('clearChat')).toHaveLength(1);
    expect(await uploaded('deleteChat')).toHaveLength(1);
    expect((await gw.api('GET', `${chat}/picture`)).body).toEqual({ url: null });
    expect((await gw.api('POST', `${chat}/messages/read`, {})).body).toEqual({ ids: [] });
  });

  const lead = { id: '1', name: 'Lead', color: 0, colorHex: '#ff9484' };

  it('labels: label_edit and label_jid patches the phone decodes; a chat carries one; an unknown label is 400 or 404', async () => {
    const chat = `${CONTACT}@c.us`;
    const made = await gw.api('POST', '/api/gows/labels', { name: 'Lead', colorHex: '#ff9485' });
    expect([made.status, made.body]).toEqual([201, lead]);
    expect((await gw.api('PUT', `/api/gows/labels/chats/${chat}`, { labels: [{ id: '1' }] })).status).toBe(200);
    expect((await gw.api('GET', `/api/gows/labels/chats/${chat}`)).body).toEqual([lead]);
    expect((await gw.api('GET', '/api/gows/labels/1/chats')).body).toEqual([{ id: chat }]);
    expect((await gw.api('GET', '/api/gows/labels')).body).toEqual([lead]);
    expect((await gw.api('PUT', `/api/gows/labels/chats/${chat}`, { labels: [{ id: '99' }] })).status).toBe(400);
    expect((await gw.api('PUT', '/api/gows/labels/9', { name: 'x', color: 1 })).status).toBe(404);
    await phone.appState.settled();
    const labelPatches = phone.appState.uploaded.filter((u) => u.index[0] === 'label_edit' || u.index[0] === 'label_jid');
    expect(labelPatches.map((u) => u.index)).toEqual([
      ['label_edit', '1'],
      ['label_jid', '1', `${CONTACT}@s.whatsapp.net`],
    ]);
  });

  it('pins a message for everyone and unpins it: PinInChatMessage the phone decrypts', async () => {
    const messageId = `false_${CONTACT}@c.us_${phone.text(CONTACT, 'pin me')}`;
    const path = `/api/gows/chats/${CONTACT}@c.us/messages/${messageId}`;
    expect((await gw.api('POST', `${path}/pin`, { duration: 86400 })).body).toEqual({ success: true });
    const pinned = await phone.read(phone.sent.at(-1)!.id);
    // type 1: PIN_FOR_ALL, 2: UNPIN_FOR_ALL.
    expect(pinned).toMatchObject({
      pinInChatMessage: { type: 1, key: { id: messageId.split('_')[2] } },
      messageContextInfo: { messageAddOnDurationInSecs: 86400 },
    });
    expect((await gw.api('POST', `${path}/unpin`)).body).toEqual({ success: true });
    expect((await phone.read(phone.sent.at(-1)!.id)).pinInChatMessage).toMatchObject({ type: 2 });
  });

  it("posts a text status the contact's phone reads from status@broadcast, and deletes it with a revoke", async () => {
    const contacts = [`${CONTACT}@c.us`];
    const res = await gw.api('POST', '/api/gows/status/text', { text: 'On GOWS', backgroundColor: '#112233', font: 1, contacts });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ to: 'status@broadcast', fromMe: true, body: 'On GOWS', source: 'api' });
    const id = String(res.body.id).split('_').pop()!;
    const status = await phone.readStatus(id);
    expect(status.message.extendedTextMessage).toMatchObject({ text: 'On GOWS', backgroundArgb: 0xff112233, font: 1 });
    expect(status.recipients).toEqual([CONTACT, phone.phone].sort());
    expect((await gw.api('POST', '/api/gows/status/delete', { id: res.body.id, contacts })).status).toBe(201);
    const revoke = phone.sent.filter((m) => m.to === 'status@broadcast').at(-1)!;
    expect((await phone.readStatus(revoke.id)).message.protocolMessage).toMatchObject({ type: 0, key: { id } });
  });

  it('a chat deleted on the phone leaves GET /chats, and its messages list is empty; the other chats stay', async () => {
    const [GONE, STAYING] = ['15551113334', '15551113335'];
    fake.contact(GONE, '245120000004445');
    fake.contact(STAYING, '245120000004446');
    const listed = async () => (await gw.api('GET', '/api/gows/chats?sortBy=id&sortOrder=asc')).body.map((chat: { id: string }) => chat.id);
    const messagesOf = async (chatId: string) => (await gw.api('GET', `/api/gows/chats/${chatId}/messages?limit=10`)).body;
    phone.text(GONE, 'soon gone');
    phone.text(STAYING, 'staying');
    await waitFor(async () => (await listed()).includes(`${GONE}@c.us`) && (await listed()).includes(`${STAYING}@c.us`), 'both chats listed', 15_000);
    expect(await messagesOf(`${GONE}@c.us`)).toHaveLength(1);
    await phone.deleteChat(GONE);
    await waitFor(async () => !(await listed()).includes(`${GONE}@c.us`), 'the deleted chat to leave the list', 15_000);
    expect(await messagesOf(`${GONE}@c.us`)).toEqual([]);
    expect(await listed()).toContain(`${STAYING}@c.us`);
  });

  it('a restart resumes the pairing from the saved auth state: WORKING again, no QR code', async () => {
    await restarted(gw, 'gows');
    // Cluster mode: the session record follows the new pod's events a moment later.
    await waitForStatus(gw, 'gows', 'WORKING');
    expect((await gw.api('GET', '/api/sessions/gows')).body).toMatchObject({ status: 'WORKING' });
    expect((await gw.api('GET', '/api/gows/auth/qr?format=raw')).status).toBe(422);
    // The label book is kept with the auth state: whatsmeow fetches only newer patches now.
    expect((await gw.api('GET', '/api/gows/labels')).body).toEqual([lead]);
  });
});
