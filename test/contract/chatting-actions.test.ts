import { describe, expect, it } from 'vitest';
import { chattingSession, expectSendEvents, fieldsOf, GROUP, PEER } from './chatting-support.js';

const SESSION = 'chat-actions';
const ctx = chattingSession(SESSION);

const call = (method: string, path: string, body: Record<string, unknown>) => ctx.gw.api(method, path, { session: SESSION, ...body });
const sendText = async (text: string, chatId = PEER) => (await call('POST', '/api/sendText', { chatId, text })).body;

describe('4.5 POST /api/forwardMessage', () => {
  it('answers 201 with a new record in the other chat, the content of the original, marked forwarded', async () => {
    const original = await sendText('worth sharing');
    const res = await call('POST', '/api/forwardMessage', { chatId: GROUP, messageId: original.id });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ to: GROUP, fromMe: true, source: 'api', body: 'worth sharing', hasMedia: false });
    expect(res.body.id).not.toBe(original.id);
    expect(res.body._data).toMatchObject({ isForwarded: true, forwardedFrom: original.id });
    await expectSendEvents(ctx.tap, res.body);
  });

  it('forwards a received message too', async () => {
    const { id } = await ctx.tap.simulate({ kind: 'message', from: '15557770000@c.us', body: 'hello from afar' });
    const res = await call('POST', '/api/forwardMessage', { chatId: PEER, messageId: id, id: 'FORWARD00001' });
    expect(res.body).toMatchObject({ id: `true_${PEER}_FORWARD00001`, body: 'hello from afar' });
  });

  it('a message the session does not know is a 404; a malformed id a 400', async () => {
    const unknown = await call('POST', '/api/forwardMessage', { chatId: PEER, messageId: `false_${PEER}_UNKNOWN1` });
    expect(unknown.status).toBe(404);
    const malformed = await call('POST', '/api/forwardMessage', { chatId: PEER, messageId: 'AAAA' });
    expect(malformed.status).toBe(400);
    expect(fieldsOf(malformed.body)).toEqual(['body.messageId']);
  });
});

describe('4.5 POST /api/sendSeen', () => {
  it('answers 201 with the chat and the messages marked read; no event', async () => {
    const { id } = await ctx.tap.simulate({ kind: 'message', from: PEER, body: 'did you read this?' });
    await ctx.tap.delivered('message.any', (payload) => payload.id === id);
    const before = ctx.tap.ws.frames.length;
    const res = await call('POST', '/api/sendSeen', { chatId: PEER, messageIds: [id], messageId: id });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ chatId: PEER, messageIds: [id] });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Read receipts go to the sender: nothing about the message comes back to this session.
    expect(ctx.tap.ws.frames.slice(before).filter((frame) => JSON.stringify(frame.payload).includes(id))).toEqual([]);
  });

  it('message ids must be of chatId', async () => {
    const res = await call('POST', '/api/sendSeen', { chatId: PEER, messageIds: [`false_${PEER}_OK1`, `false_${GROUP}_OTHER1_15551112222@c.us`] });
    expect(res.status).toBe(400);
    expect(fieldsOf(res.body)).toEqual(['body.messageIds[1]']);
  });
});

describe('4.5 POST /api/startTyping, /api/stopTyping', () => {
  it('answer 201 with an empty object', async () => {
    for (const path of ['/api/startTyping', '/api/stopTyping']) {
      const res = await call('POST', path, { chatId: PEER });
      expect(res.status, path).toBe(201);
      expect(res.body, path).toEqual({});
    }
  });

  it('need a chatId, and a WORKING session', async () => {
    const missing = await call('POST', '/api/startTyping', {});
    expect(fieldsOf(missing.body)).toEqual(['body.chatId']);
    await ctx.gw.api('POST', '/api/sessions', { name: 'chat-actions-idle', engine: 'SANDBOX', start: false });
    const idle = await ctx.gw.api('POST', '/api/stopTyping', { session: 'chat-actions-idle', chatId: PEER });
    expect(idle.status).toBe(422);
  });
});

describe('4.5 PUT /api/reaction', () => {
  it('answers 200 with the reaction and gives message.reaction from you (spec 6.2, ties 3)', async () => {
    const target = await sendText('react to me');
    const res = await call('PUT', '/api/reaction', { messageId: target.id, reaction: '👍🏽' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      from: ctx.tap.me,
      fromMe: true,
      to: PEER,
      participant: null,
      source: 'api',
      reaction: { text: '👍🏽', messageId: target.id },
    });
    const event = await ctx.tap.delivered('message.reaction', (payload) => payload.id === res.body.id);
    expect(event.payload).toEqual(res.body);
  });

  it('an empty reaction takes it back; in a group you are the participant', async () => {
    const target = await sendText('in the group', GROUP);
    const res = await call('PUT', '/api/reaction', { messageId: target.id, reaction: '' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ to: GROUP, participant: ctx.tap.me, reaction: { text: '' } });
    await ctx.tap.delivered('message.reaction', (payload) => payload.id === res.body.id);
  });

  it('takes one emoji, not text', async () => {
    for (const reaction of ['ok', '👍👍']) {
      const res = await call('PUT', '/api/reaction', { messageId: `false_${PEER}_AAAA`, reaction });
      expect(res.status, reaction).toBe(400);
      expect(fieldsOf(res.body)).toEqual(['body.reaction']);
    }
  });
});

describe('4.5 PUT /api/star', () => {
  it('answers 200 with an empty object', async () => {
    const target = await sendText('star me');
    const res = await call('PUT', '/api/star', { messageId: target.id, chatId: PEER, star: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
  });

  it('needs star and a message of chatId', async () => {
    const res = await call('PUT', '/api/star', { messageId: `false_${GROUP}_AAAA`, chatId: PEER });
    expect(res.status).toBe(400);
    expect(fieldsOf(res.body).sort()).toEqual(['body.star']);
  });
});

describe('4.5 POST /api/reply (deprecated)', () => {
  it('sends a text replying to reply_to: 201 with the record', async () => {
    const quoted = await sendText('question?');
    const res = await call('POST', '/api/reply', { chatId: PEER, text: 'answer', reply_to: quoted.id });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ body: 'answer', replyTo: { id: quoted.id, body: 'question?', hasMedia: false } });
    await expectSendEvents(ctx.tap, res.body);
  });
});
