import { FileAuthStateStore } from '@switchboard/engine-pod';
import { waitFor, WebhookReceiver } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePhone, FakeWaServer } from '../../engine-pod/test/fake-wa/index.js';
import { startGateway, type TestGateway } from './support/gateway.js';

/**
 * Issue 4's done-criterion, through the product's own surface: the real Baileys library (the
 * NOWEB engine) pairs with the fake WhatsApp Web server by QR, reaches WORKING, survives a
 * restart without a new QR, and receives and sends text with acks, all driven through the
 * HTTP API and observed on a real webhook receiver.
 */
const ALICE = '15551230001';
const alice = `${ALICE}@c.us`;
const SECRET = 'noweb-api-secret';

let fake: FakeWaServer;
let gw: TestGateway;
let receiver: WebhookReceiver;
let phone: FakePhone;

const status = async () => (await gw.api('GET', '/api/sessions/nw')).body.status as string;
const hooks = (event: string, match: (payload: any) => boolean = () => true) =>
  receiver.events(event).filter((e) => e.session === 'nw' && match(e.payload));

beforeAll(async () => {
  fake = await FakeWaServer.start();
  receiver = await new WebhookReceiver(SECRET).start();
  // The gateway's engine catalog reads where NOWEB connects when the gateway is built.
  process.env.SWITCHBOARD_NOWEB_WS_URL = fake.url;
  gw = await startGateway();
});

afterAll(async () => {
  await gw?.close();
  delete process.env.SWITCHBOARD_NOWEB_WS_URL;
  await receiver?.stop();
  await fake?.close();
});

describe('NOWEB through the API and webhooks, against the fake WhatsApp Web server', () => {
  it('pairs by QR: SCAN_QR_CODE, the QR from /auth/qr scanned by the phone, then WORKING with me', async () => {
    const created = await gw.api('POST', '/api/sessions', {
      name: 'nw',
      engine: 'NOWEB',
      config: { webhooks: [{ url: receiver.url, events: ['*'], hmac: { key: SECRET } }] },
    });
    expect(created.status).toBe(201);
    expect(created.body.engine).toBe('NOWEB');
    await waitFor(async () => (await status()) === 'SCAN_QR_CODE', 'SCAN_QR_CODE', 15_000);
    const qr = await gw.api('GET', '/api/nw/auth/qr?format=raw');
    expect(qr.status).toBe(200);
    phone = await fake.scanQr(qr.body.value, { pushName: 'Me' });
    await waitFor(async () => (await status()) === 'WORKING', 'WORKING', 15_000);
    expect((await gw.api('GET', '/api/sessions/nw/me')).body).toEqual({ id: phone.contactId, pushName: 'Me' });
    const working = await waitFor(() => hooks('session.status', (p) => p.status === 'WORKING')[0], 'WORKING on the webhook');
    expect(working.me).toEqual({ id: phone.contactId, pushName: 'Me' });
    expect(receiver.received.every((hook) => hook.hmacValid)).toBe(true);
    // Baileys holds events back until its first app state sync is done; wait for it as a user would.
    const store = new FileAuthStateStore(`${gw.dataDir}/sessions/nw/auth`);
    await waitFor(
      async () => ((await store.get<{ accountSyncCounter?: number }>('creds', ['creds'])).creds?.accountSyncCounter ?? 0) > 0,
      'the first app state sync',
      15_000,
    );
  });

  it('delivers an incoming text to the webhook as message and message.any (source app)', async () => {
    phone.text(ALICE, 'hello over the API', { pushName: 'Alice' });
    const message = await waitFor(() => hooks('message', (p) => p.body === 'hello over the API')[0], 'message on the webhook', 15_000);
    expect(message.payload).toMatchObject({ from: alice, fromMe: false, source: 'app', to: phone.contactId });
    await waitFor(() => hooks('message.any', (p) => p.body === 'hello over the API')[0], 'message.any on the webhook');
  });

  it('sends a text through /api/sendText; the webhook sees message.any (api), then SERVER, DEVICE and READ', async () => {
    const sent = await gw.api('POST', '/api/sendText', { session: 'nw', chatId: alice, text: 'reply over the API' });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ fromMe: true, source: 'api', to: alice, body: 'reply over the API', ackName: 'PENDING' });
    const messageId = sent.body.id.split('_')[2];
    await waitFor(() => hooks('message.any', (p) => p.id === sent.body.id && p.source === 'api')[0], 'message.any (api)');
    await waitFor(() => hooks('message.ack', (p) => p.id === sent.body.id && p.ackName === 'SERVER')[0], 'SERVER', 15_000);
    expect((await phone.read(messageId)).conversation).toBe('reply over the API');
    phone.receipt(messageId, ALICE);
    await waitFor(() => hooks('message.ack', (p) => p.id === sent.body.id && p.ackName === 'DEVICE')[0], 'DEVICE', 15_000);
    phone.receipt(messageId, ALICE, 'read');
    await waitFor(() => hooks('message.ack', (p) => p.id === sent.body.id && p.ackName === 'READ')[0], 'READ', 15_000);
  });

  it('comes back WORKING after /restart without a new QR', async () => {
    const qrCountBefore = hooks('session.status', (p) => p.status === 'SCAN_QR_CODE').length;
    const restarted = await gw.api('POST', '/api/sessions/nw/restart');
    expect(restarted.status).toBe(201);
    await waitFor(() => hooks('session.status', (p) => p.status === 'STOPPED').length > 0, 'STOPPED on the webhook');
    await waitFor(async () => (await status()) === 'WORKING', 'WORKING again', 30_000);
    expect(hooks('session.status', (p) => p.status === 'SCAN_QR_CODE')).toHaveLength(qrCountBefore);
  });

  it('sends a location through /api/sendLocation: the record has location; the webhook sees message.any (api) and SERVER', async () => {
    const sent = await gw.api('POST', '/api/sendLocation', { session: 'nw', chatId: alice, latitude: 38.7223, longitude: -9.1393, title: 'Lisbon' });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({
      fromMe: true,
      source: 'api',
      to: alice,
      body: '',
      ackName: 'PENDING',
      location: { latitude: '38.7223', longitude: '-9.1393', live: false, name: 'Lisbon', description: 'Lisbon' },
    });
    const any = await waitFor(() => hooks('message.any', (p) => p.id === sent.body.id)[0], 'message.any (api)', 15_000);
    expect(any.payload).toEqual(sent.body);
    await waitFor(() => hooks('message.ack', (p) => p.id === sent.body.id && p.ackName === 'SERVER')[0], 'SERVER', 15_000);
    expect((await phone.read(sent.body.id.split('_')[2])).locationMessage).toMatchObject({
      degreesLatitude: 38.7223,
      degreesLongitude: -9.1393,
      name: 'Lisbon',
    });
  });

  it('sends a poll through /api/sendPoll and votes on it through /api/sendPollVote; the webhook sees poll.vote', async () => {
    const poll = await gw.api('POST', '/api/sendPoll', {
      session: 'nw',
      chatId: alice,
      poll: { name: 'Beach or hills?', options: ['Beach', 'Hills'] },
    });
    expect(poll.status).toBe(201);
    expect(poll.body).toMatchObject({ fromMe: true, source: 'api', to: alice, body: 'Beach or hills?' });
    const created = (await phone.read(poll.body.id.split('_')[2])).pollCreationMessageV3;
    expect(created?.options?.map((o) => o.optionName)).toEqual(['Beach', 'Hills']);

    const vote = await gw.api('POST', '/api/sendPollVote', { session: 'nw', chatId: alice, pollMessageId: poll.body.id, votes: ['Hills'] });
    expect(vote.status).toBe(201);
    expect(vote.body).toMatchObject({
      vote: { from: phone.contactId, to: alice, fromMe: true, selectedOptions: ['Hills'] },
      poll: { id: poll.body.id, fromMe: true },
    });
    const hook = await waitFor(() => hooks('poll.vote', (p) => p.vote.id === vote.body.vote.id)[0], 'poll.vote on the webhook', 15_000);
    expect(hook.payload).toEqual(vote.body);
    expect((await phone.read(vote.body.vote.id.split('_')[2])).pollUpdateMessage?.pollCreationMessageKey?.id).toBe(poll.body.id.split('_')[2]);

    const wrong = await gw.api('POST', '/api/sendPollVote', { session: 'nw', chatId: alice, pollMessageId: poll.body.id, votes: ['Desert'] });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details).toEqual([{ path: 'body.votes', reason: '"Desert" is not an option of the poll' }]);
  });

  it('reacts through PUT /api/reaction to an incoming message; the webhook sees message.reaction from me', async () => {
    const original = phone.text(ALICE, 'react over the API');
    const incoming = await waitFor(() => hooks('message', (p) => p.body === 'react over the API')[0], 'the message to react to', 15_000);
    const reacted = await gw.api('PUT', '/api/reaction', { session: 'nw', messageId: incoming.payload.id, reaction: '👍' });
    expect(reacted.status).toBe(200);
    expect(reacted.body).toMatchObject({ from: phone.contactId, fromMe: true, to: alice, reaction: { text: '👍', messageId: incoming.payload.id } });
    const hook = await waitFor(() => hooks('message.reaction', (p) => p.id === reacted.body.id)[0], 'message.reaction on the webhook', 15_000);
    expect(hook.payload).toEqual(reacted.body);
    const reaction = (await phone.read(reacted.body.id.split('_')[2])).reactionMessage;
    expect(reaction).toMatchObject({ text: '👍', key: { id: original, fromMe: false } });
  });

  it('answers 422 naming NOWEB for buttons and lists, before downloading anything', async () => {
    const buttons = await gw.api('POST', '/api/sendButtons', {
      session: 'nw',
      chatId: alice,
      body: 'choose',
      headerImage: { mimetype: 'image/png', url: 'http://127.0.0.1:9/never-fetched.png' },
      buttons: [{ text: 'Yes' }],
    });
    expect(buttons.status).toBe(422);
    expect(buttons.body).toMatchObject({
      message: "engine NOWEB does not support buttons (session 'nw')",
      details: { session: 'nw', engine: 'NOWEB' },
    });
    const list = await gw.api('POST', '/api/sendList', {
      session: 'nw',
      chatId: alice,
      message: { title: 'Menu', button: 'Open', sections: [{ title: 'Mains', rows: [{ title: 'Soup', rowId: 'soup' }] }] },
    });
    expect(list.status).toBe(422);
    expect(list.body.details.engine).toBe('NOWEB');
  });
});
