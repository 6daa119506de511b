import { describe, expect, it } from 'vitest';
import { chattingSession, PNG } from './chatting-support.js';

/**
 * Status updates (stories), with the peer product's paths (issue 16), on the SANDBOX: each post is
 * a message from the account to `status@broadcast` with the send's events, and deleting one
 * revokes it.
 */
const S = 'stories';
const ctx = chattingSession(S);

describe('status: post and delete', () => {
  it('a text status answers 201 with its record (to status@broadcast) and goes out as message.any (source api)', async () => {
    const res = await ctx.gw.api('POST', `/api/${S}/status/text`, { text: 'Have a look!', backgroundColor: '#38b42f', font: 1 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ to: 'status@broadcast', from: ctx.tap.me, fromMe: true, body: 'Have a look!', source: 'api' });
    expect(res.body.id).toMatch(/^true_status@broadcast_/);
    const any = await ctx.tap.delivered('message.any', (payload) => payload.id === res.body.id);
    expect(any.payload._data).toMatchObject({ backgroundColor: '#38b42f', font: 1 });
  });

  it('an image status keeps its file; a pre-generated id (status/new-message-id) becomes its id', async () => {
    const fresh = await ctx.gw.api('GET', `/api/${S}/status/new-message-id`);
    expect(fresh.status).toBe(200);
    const res = await ctx.gw.api('POST', `/api/${S}/status/image`, {
      id: fresh.body.id,
      contacts: ['15551234567@c.us'],
      file: { mimetype: 'image/png', data: PNG.toString('base64') },
      caption: 'pixel',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: `true_status@broadcast_${fresh.body.id}`, hasMedia: true, body: 'pixel' });
    expect(res.body.media.mimetype).toBe('image/png');
  });

  it('delete revokes the status: message.revoked with the status as it was', async () => {
    const posted = await ctx.gw.api('POST', `/api/${S}/status/text`, { text: 'soon gone' });
    const id = posted.body.id.split('_').pop();
    const res = await ctx.gw.api('POST', `/api/${S}/status/delete`, { id });
    expect(res.status).toBe(201);
    const revoked = await ctx.tap.delivered('message.revoked', (payload) => payload.revokedMessageId === id);
    expect(revoked.payload.before).toMatchObject({ id: posted.body.id, body: 'soon gone' });
  });

  it('takes contacts as the peer does, any strings: one that is no contact id names no one and is not passed on (issue 26)', async () => {
    const res = await ctx.gw.api('POST', `/api/${S}/status/text`, { text: 'x', contacts: ['55xxxxxxxxxxx@c.us', 'nobody', '11111111111@c.us'] });
    expect(res.status).toBe(201);
    // SANDBOX's record shows what the engine was given.
    expect(res.body._data.contacts).toEqual(['11111111111@c.us']);
    const none = await ctx.gw.api('POST', `/api/${S}/status/text`, { text: 'x', contacts: ['55xxxxxxxxxxx@c.us'] });
    expect(none.status).toBe(201);
    expect(none.body._data.contacts).toEqual([]);
    expect((await ctx.gw.api('POST', `/api/${S}/status/text`, { text: 'x', contacts: ['1'.repeat(65)] })).status).toBe(400);
  });

  it('refuses bad bodies naming the field: no text, a colour that is none, an image that is no image', async () => {
    expect((await ctx.gw.api('POST', `/api/${S}/status/text`, {})).status).toBe(400);
    expect((await ctx.gw.api('POST', `/api/${S}/status/text`, { text: 'x', backgroundColor: 'green' })).status).toBe(400);
    const notImage = await ctx.gw.api('POST', `/api/${S}/status/image`, { file: { mimetype: 'text/plain', data: 'aGk=' } });
    expect(notImage.status).toBe(400);
    expect(JSON.stringify(notImage.body)).toContain('mimetype');
    expect((await ctx.gw.api('POST', `/api/${S}/status/delete`, {})).status).toBe(400);
  });
});
