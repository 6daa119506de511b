import { closedPort, waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chattingSession, expectSendEvents, expectStoredMedia, fieldsOf, FileServer, GROUP, PDF, PEER, PNG } from './chatting-support.js';

const SESSION = 'chat-media';
const ctx = chattingSession(SESSION);
let files: FileServer;

beforeAll(async () => {
  files = await FileServer.start();
});
afterAll(async () => {
  await files.close();
});

const send = (path: string, body: Record<string, unknown>) => ctx.gw.api('POST', path, { session: SESSION, chatId: PEER, ...body });
const inline = (bytes: Buffer, mimetype: string, filename?: string) => ({
  mimetype,
  data: bytes.toString('base64'),
  ...(filename ? { filename } : {}),
});

describe('4.5 POST /api/sendImage', () => {
  it('answers 201 with the record (hasMedia, caption as body) and gives message.any, then the acks', async () => {
    const res = await send('/api/sendImage', { file: inline(PNG, 'image/png', 'pixel.png'), caption: 'a pixel' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ fromMe: true, source: 'api', to: PEER, body: 'a pixel', hasMedia: true, ack: 0, ackName: 'PENDING' });
    expect(res.body._data).toMatchObject({ type: 'image', mimetype: 'image/png', filename: 'pixel.png', size: PNG.length });
    await expectSendEvents(ctx.tap, res.body);
    await expectStoredMedia(ctx.gw.url, res.body.media, 'image/png', PNG);
  });

  it('carries the deprecated mediaUrl beside media.url: in the answer, the events and the history; never without media', async () => {
    const res = await send('/api/sendImage', { file: inline(PNG, 'image/png') });
    expect(res.body.mediaUrl).toBe(res.body.media.url);
    expect((await ctx.tap.delivered('message.any', (p) => p.id === res.body.id)).payload.mediaUrl).toBe(res.body.media.url);
    const history = (query: string) => ctx.gw.api('GET', `/api/${SESSION}/chats/${PEER}/messages?limit=100&${query}`);
    const kept = await waitFor(async () => (await history('')).body.find((r: any) => r.id === res.body.id), 'the image in the history');
    expect(kept.mediaUrl).toBe(res.body.media.url);
    const withoutMedia = (await history('downloadMedia=false')).body.find((r: any) => r.id === res.body.id);
    expect(withoutMedia.media).toBeNull();
    expect(withoutMedia).not.toHaveProperty('mediaUrl');
    const text = await send('/api/sendText', { text: 'no file' });
    expect(text.status).toBe(201);
    expect(text.body).not.toHaveProperty('mediaUrl');
  });

  it('takes a pre-generated id and reply_to', async () => {
    const res = await send('/api/sendImage', { file: inline(PNG, 'image/png'), id: 'IMAGE0000001', reply_to: `false_${PEER}_QUOTED1` });
    expect(res.status).toBe(201);
    expect(res.body.id).toBe(`true_${PEER}_IMAGE0000001`);
    expect(res.body.replyTo).toEqual({ id: `false_${PEER}_QUOTED1`, hasMedia: false });
    expect(res.body.body).toBe('');
  });

  it('takes a base64 file of 3 MB whole (cluster mode: more than one NATS message carries)', async () => {
    const big = Buffer.concat([PNG, Buffer.alloc(3 * 1024 * 1024, 5)]);
    const res = await send('/api/sendImage', { file: inline(big, 'image/png', 'big.png') });
    expect(res.status).toBe(201);
    expect(res.body._data).toMatchObject({ type: 'image', filename: 'big.png', size: big.length });
    await expectStoredMedia(ctx.gw.url, res.body.media, 'image/png', big);
  });

  it('in a group, the sender is you (participant)', async () => {
    const res = await ctx.gw.api('POST', '/api/sendImage', { session: SESSION, chatId: GROUP, file: inline(PNG, 'image/png') });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ to: GROUP, participant: ctx.tap.me });
  });
});

describe('4.5 POST /api/sendFile', () => {
  it('downloads a file by url: the MIME type given, the file name from the URL', async () => {
    const res = await send('/api/sendFile', { file: { mimetype: 'application/pdf', url: `${files.url}/docs/report.pdf` }, caption: 'the report' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ hasMedia: true, body: 'the report' });
    expect(res.body._data).toMatchObject({ type: 'document', mimetype: 'application/pdf', filename: 'report.pdf', size: PDF.length });
    await expectSendEvents(ctx.tap, res.body);
    await expectStoredMedia(ctx.gw.url, res.body.media, 'application/pdf', PDF);
  });

  it('answers 400 naming body.file.url when the download fails, with the reason', async () => {
    const missing = await send('/api/sendFile', { file: { mimetype: 'application/pdf', url: `${files.url}/nothing-here.pdf` } });
    expect(missing.status).toBe(400);
    expect(missing.body.details).toEqual([{ path: 'body.file.url', reason: 'could not be downloaded: the server answered 404' }]);

    // A port nothing listens on.
    const refused = await send('/api/sendFile', {
      file: { mimetype: 'application/pdf', url: `http://127.0.0.1:${(await closedPort()).port}/x.pdf` },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.details[0]).toEqual({ path: 'body.file.url', reason: 'could not be downloaded: ECONNREFUSED' });
  });
});

describe('4.5 POST /api/sendVoice', () => {
  it('sends a voice note (ptt); the MIME type defaults to ogg/opus', async () => {
    const res = await send('/api/sendVoice', { file: { data: Buffer.from('OggS voice').toString('base64') } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ hasMedia: true, body: '' });
    expect(res.body._data).toMatchObject({ type: 'ptt', mimetype: 'audio/ogg; codecs=opus', convert: false });
    await expectSendEvents(ctx.tap, res.body);
  });
});

describe('4.5 POST /api/sendVideo', () => {
  it('sends a video with a caption, or a round video note (ptv) with asNote', async () => {
    const video = await send('/api/sendVideo', { file: { url: `${files.url}/pixel`, filename: 'clip.mp4' }, caption: 'watch' });
    expect(video.status).toBe(201);
    expect(video.body._data).toMatchObject({ type: 'video', mimetype: 'video/mp4', filename: 'clip.mp4', asNote: false });
    await expectSendEvents(ctx.tap, video.body);

    const note = await send('/api/sendVideo', { file: inline(PNG, 'video/mp4'), asNote: true });
    expect(note.status).toBe(201);
    expect(note.body._data).toMatchObject({ type: 'ptv', asNote: true });
  });
});

describe('4.5 media: validation', () => {
  it('bad base64 is a 400 naming body.file.data', async () => {
    const res = await send('/api/sendImage', { file: { mimetype: 'image/png', data: 'not base64!' } });
    expect(res.status).toBe(400);
    expect(fieldsOf(res.body)).toEqual(['body.file.data']);
  });

  it('a file needs exactly one of url and data', async () => {
    const neither = await send('/api/sendImage', { file: { mimetype: 'image/png' } });
    expect(neither.status).toBe(400);
    expect(fieldsOf(neither.body)).toEqual(['body.file.url']);
    const both = await send('/api/sendImage', { file: { mimetype: 'image/png', url: `${files.url}/pixel`, data: PNG.toString('base64') } });
    expect(fieldsOf(both.body)).toEqual(['body.file.data']);
  });

  it('only http and https URLs, and real MIME types', async () => {
    const res = await send('/api/sendFile', { file: { mimetype: 'pdf', url: 'file:///etc/passwd' } });
    expect(res.status).toBe(400);
    expect(fieldsOf(res.body).sort()).toEqual(['body.file.mimetype', 'body.file.url']);
  });

  it('a missing chatId is a 400 naming it', async () => {
    const res = await ctx.gw.api('POST', '/api/sendImage', { session: SESSION, file: inline(PNG, 'image/png') });
    expect(res.status).toBe(400);
    expect(fieldsOf(res.body)).toEqual(['body.chatId']);
  });

  it('an unknown session is a 404; a session that is not WORKING a 422', async () => {
    const unknown = await ctx.gw.api('POST', '/api/sendImage', { session: 'no-such-session', chatId: PEER, file: inline(PNG, 'image/png') });
    expect(unknown.status).toBe(404);
    await ctx.gw.api('POST', '/api/sessions', { name: 'chat-media-idle', engine: 'SANDBOX', start: false });
    const idle = await ctx.gw.api('POST', '/api/sendVoice', { session: 'chat-media-idle', chatId: PEER, file: { url: `${files.url}/pixel` } });
    expect(idle.status).toBe(422);
    expect(idle.body.details).toEqual({ session: 'chat-media-idle', status: 'STOPPED', expected: ['WORKING'] });
  });
});

describe('4.5 POST /api/send/link-custom-preview', () => {
  it('sends the text with the preview given (image by base64), 201 with the record', async () => {
    const preview = { url: 'https://example.com/post', title: 'A post', description: 'About things', image: { data: PNG.toString('base64') } };
    const res = await send('/api/send/link-custom-preview', { text: 'Read https://example.com/post', preview });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ body: 'Read https://example.com/post', hasMedia: false });
    expect(res.body._data.linkPreview).toEqual({
      url: 'https://example.com/post',
      title: 'A post',
      description: 'About things',
      highQuality: true,
      image: { mimetype: 'application/octet-stream', size: PNG.length },
    });
    await expectSendEvents(ctx.tap, res.body);
  });

  it('the text must include preview.url', async () => {
    const res = await send('/api/send/link-custom-preview', {
      text: 'no link',
      preview: { url: 'https://example.com/', title: 't', description: '' },
    });
    expect(res.status).toBe(400);
    expect(fieldsOf(res.body)).toEqual(['body.text']);
  });

  it('a preview image that cannot be downloaded is a 400 naming body.preview.image.url', async () => {
    const preview = { url: 'https://example.com/', title: 't', image: { url: `${files.url}/gone.png` } };
    const res = await send('/api/send/link-custom-preview', { text: 'https://example.com/', preview });
    expect(res.status).toBe(400);
    expect(fieldsOf(res.body)).toEqual(['body.preview.image.url']);
  });
});

describe('4.5 POST /api/sendLinkPreview (deprecated)', () => {
  it('sends the url as text with a preview titled title: 201 with the record', async () => {
    const res = await send('/api/sendLinkPreview', { url: 'https://example.com/a', title: 'Example' });
    expect(res.status).toBe(201);
    expect(res.body.body).toBe('https://example.com/a');
    expect(res.body._data.linkPreview).toMatchObject({ url: 'https://example.com/a', title: 'Example' });
    await expectSendEvents(ctx.tap, res.body);
  });
});
