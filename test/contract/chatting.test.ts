import { waitFor, WsClient } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type ContractGateway, workingSession } from './harness.js';

let gw: ContractGateway;
beforeAll(async () => {
  gw = await startGateway();
  await workingSession(gw, 'chat');
});
afterAll(async () => {
  await gw.close();
});

describe('4.5 POST /api/sendText', () => {
  it('answers 201 with the message record of 2.5', async () => {
    const res = await gw.api('POST', '/api/sendText', { session: 'chat', chatId: '15551234567@c.us', text: 'hello' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      fromMe: true,
      source: 'api',
      from: '15550000000@c.us',
      to: '15551234567@c.us',
      body: 'hello',
      hasMedia: false,
      media: null,
      ack: 0,
      ackName: 'PENDING',
      vCards: [],
    });
    expect(res.body.id).toMatch(/^true_15551234567@c\.us_[0-9A-Z]+$/);
    expect(res.body.timestamp).toBeGreaterThan(Date.now() / 1000 - 60);
  });

  it('uses a client-chosen id and carries reply_to', async () => {
    const res = await gw.api('POST', '/api/sendText', {
      session: 'chat',
      chatId: '123456789-987654@g.us',
      text: 'to the group',
      id: 'ABCDEF0123456789',
      reply_to: 'false_15551234567@c.us_AAAA',
    });
    expect(res.body.id).toBe('true_123456789-987654@g.us_ABCDEF0123456789');
    expect(res.body.replyTo).toEqual({ id: 'false_15551234567@c.us_AAAA', hasMedia: false });
  });

  it('gives message.any with source api, then message.ack SERVER and DEVICE', async () => {
    const ws = await WsClient.connect(gw.url, 'x-api-key=test-admin-key-0123456789&session=chat&events=message.any&events=message.ack');
    const sent = (await gw.api('POST', '/api/sendText', { session: 'chat', chatId: '15551234567@c.us', text: 'ack me' })).body;
    await waitFor(() => ws.events('message.ack').filter((e) => e.payload.id === sent.id).length === 2, 'two acks', 3_000);
    const any = ws.events('message.any').find((e) => e.payload.id === sent.id);
    expect(any.payload.source).toBe('api');
    const acks = ws
      .events('message.ack')
      .filter((e) => e.payload.id === sent.id)
      .map((e) => e.payload);
    expect(acks).toEqual([
      { id: sent.id, from: '15551234567@c.us', to: '15550000000@c.us', participant: null, fromMe: true, ack: 1, ackName: 'SERVER' },
      { id: sent.id, from: '15551234567@c.us', to: '15550000000@c.us', participant: null, fromMe: true, ack: 2, ackName: 'DEVICE' },
    ]);
    ws.close();
  });

  it('validates chatId, text and session, naming each field', async () => {
    const res = await gw.api('POST', '/api/sendText', { session: 'no/slash', chatId: 'bob', text: '' });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['body.chatId', 'body.session', 'body.text']);
  });

  it('refuses linkPreviewHighQuality: true instead of dropping it, and takes false (item 15)', async () => {
    const refused = await gw.api('POST', '/api/sendText', {
      session: 'chat',
      chatId: '15551234567@c.us',
      text: 'hi https://example.com',
      linkPreviewHighQuality: true,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.details).toEqual([{ path: 'body.linkPreviewHighQuality', reason: expect.stringContaining('send/link-custom-preview') }]);
    const sent = await gw.api('POST', '/api/sendText', { session: 'chat', chatId: '15551234567@c.us', text: 'hi', linkPreviewHighQuality: false });
    expect(sent.status).toBe(201);
  });

  it('defaults session to "default" and answers 404 when it does not exist', async () => {
    const res = await gw.api('POST', '/api/sendText', { chatId: '15551234567@c.us', text: 'x' });
    expect(res.status).toBe(404);
    expect(res.body.details.session).toBe('default');
  });

  it('answers 422 when the session is not WORKING', async () => {
    await gw.api('POST', '/api/sessions', { name: 'chat-idle', start: false });
    const res = await gw.api('POST', '/api/sendText', { session: 'chat-idle', chatId: '15551234567@c.us', text: 'x' });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual({ session: 'chat-idle', status: 'STOPPED', expected: ['WORKING'] });
  });
});

describe('4.5 GET /api/sendText (deprecated)', () => {
  it('sends to a phone number and answers 200 with the record', async () => {
    const res = await gw.api('GET', '/api/sendText?phone=15557654321&text=hi%20there&session=chat');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ to: '15557654321@c.us', body: 'hi there', source: 'api' });
  });

  it('accepts a chat id as phone', async () => {
    const res = await gw.api('GET', '/api/sendText?phone=15557654321@c.us&text=x&session=chat');
    expect(res.body.to).toBe('15557654321@c.us');
  });

  it('rejects a phone that is not a number or chat id', async () => {
    const res = await gw.api('GET', '/api/sendText?phone=hello&text=x&session=chat');
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('querystring.phone');
  });
});

describe('SANDBOX simulate: message', () => {
  it('an incoming text gives message and message.any with source app', async () => {
    const ws = await WsClient.connect(gw.url, 'x-api-key=test-admin-key-0123456789&session=chat&events=message&events=message.any');
    const res = await gw.api('POST', '/api/chat/sandbox/simulate', { kind: 'message', from: '15557777777@c.us', body: 'ping', id: 'IN1' });
    expect(res.status).toBe(201);
    await waitFor(() => ws.frames.length >= 2, 'message and message.any');
    const [message, any] = [ws.events('message')[0], ws.events('message.any')[0]];
    for (const event of [message, any]) {
      expect(event.payload).toMatchObject({
        id: 'false_15557777777@c.us_IN1',
        from: '15557777777@c.us',
        to: '15550000000@c.us',
        fromMe: false,
        source: 'app',
        body: 'ping',
      });
    }
    ws.close();
  });

  it('answers 422 while the session is not WORKING', async () => {
    await gw.api('POST', '/api/sessions', { name: 'sim-idle' });
    const res = await gw.api('POST', '/api/sim-idle/sandbox/simulate', { kind: 'message', from: '15557777777@c.us', body: 'x' });
    expect(res.status).toBe(422);
  });
});
