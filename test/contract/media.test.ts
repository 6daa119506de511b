import { randomBytes } from 'node:crypto';
import { waitFor, WsClient } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, type ContractGateway, mode, startGateway, workingSession } from './harness.js';

// Media: received files are stored and served at `media.url` for a configurable lifetime
// (docs/api.md "Media").

/** Short enough to watch a file expire, long enough to download it first on a busy machine. */
const LIFETIME_SECONDS = 4;

let gw: ContractGateway;
const S = 'media';

beforeAll(async () => {
  gw = await startGateway({ mediaLifetimeSeconds: LIFETIME_SECONDS });
  await workingSession(gw, S);
});
afterAll(async () => {
  await gw.close();
});

const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(2048)]);

function simulateFile(session: string, media: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return gw.api('POST', `/api/${session}/sandbox/simulate`, { kind: 'message', from: '15552220001@c.us', media, ...extra });
}

/**
 * Downloads what a `media.url` points at, from this gateway. In cluster mode the address starts
 * with the base URL the operator gives engine pods, not this test gateway's: its path is the same.
 */
async function download(url: string, key: string | null = ADMIN_KEY): Promise<Response> {
  return fetch(gw.url + new URL(url).pathname, { headers: key ? { 'x-api-key': key } : {} });
}

describe('Media: a received file', () => {
  it('arrives with hasMedia true and a media.url, in the event and the history', async () => {
    const ws = await WsClient.connect(gw.url, `x-api-key=${ADMIN_KEY}&session=${S}&events=message`);
    const sent = await simulateFile(S, { mimetype: 'image/png', filename: 'photo.png', data: png.toString('base64') }, { body: 'look' });
    expect(sent.status).toBe(201);
    const event = await waitFor(() => ws.events('message').find((e) => e.payload.id === sent.body.id), 'the message event');
    ws.close();
    expect(event.payload).toMatchObject({ hasMedia: true, body: 'look', media: { mimetype: 'image/png', filename: 'photo.png' } });
    expect(event.payload.media.url).toMatch(new RegExp(`^https?://[^/]+/api/files/${S}/[A-Za-z0-9_-]{22}\\.png$`));
    if (mode === 'local') expect(event.payload.media.url.startsWith(`http://localhost:${new URL(gw.url).port}/`)).toBe(true);
    expect(sent.body.media).toEqual(event.payload.media);

    const [recorded] = await waitFor(async () => {
      const res = await gw.api('GET', `/api/${S}/chats/15552220001@c.us/messages?limit=1`);
      return res.body.length === 1 && res.body;
    }, 'the history');
    expect(recorded.media).toEqual(event.payload.media);
  });

  it('downloads with the same bytes, its media type and its file name', async () => {
    const { media } = (await simulateFile(S, { mimetype: 'image/png', filename: 'photo.png', data: png.toString('base64') })).body;
    const res = await download(media.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename=photo.png');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await res.arrayBuffer()).equals(png)).toBe(true);
  });

  it('keeps parameters of the media type and non-ASCII file names; a file without a name is named as its URL names it', async () => {
    const voice = (await simulateFile(S, { mimetype: 'audio/ogg; codecs=opus', filename: 'nota de voz ñ.ogg', data: 'T2dnUw==' })).body.media;
    const res = await download(voice.url);
    expect(res.headers.get('content-type')).toBe('audio/ogg; codecs=opus');
    expect(res.headers.get('content-disposition')).toContain("filename*=UTF-8''nota%20de%20voz%20%C3%B1.ogg");
    expect(Buffer.from(await res.arrayBuffer()).toString()).toBe('OggS');

    const unnamed = (await simulateFile(S, { mimetype: 'application/pdf', data: 'JVBERi0=' })).body.media;
    expect(unnamed.filename).toBeNull();
    const name = /\/([A-Za-z0-9_-]{22}\.pdf)$/.exec(unnamed.url)![1];
    expect((await download(unnamed.url)).headers.get('content-disposition')).toBe(`attachment; filename=${name}`);
  });

  it('GET /api/files without the extension works too: the id alone names the file', async () => {
    const { media } = (await simulateFile(S, { mimetype: 'text/plain', filename: 'a.txt', data: 'aGk=' })).body;
    const res = await download(media.url.replace(/\.txt$/, ''));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('hi');
  });

  it('history with downloadMedia=false answers media null, hasMedia still true', async () => {
    const chat = '15552220009@c.us';
    await simulateFile(S, { mimetype: 'text/plain', data: 'aGk=' }, { from: chat });
    const [withMedia] = await waitFor(async () => {
      const res = await gw.api('GET', `/api/${S}/chats/${chat}/messages`);
      return res.body.length === 1 && res.body;
    }, 'the history');
    expect(withMedia.media.url).toMatch(/\/api\/files\//);
    const [without] = (await gw.api('GET', `/api/${S}/chats/${chat}/messages?downloadMedia=false`)).body;
    expect(without).toMatchObject({ id: withMedia.id, hasMedia: true, media: null });
  });
});

describe('Media: who may download', () => {
  it('needs a key; a media key of the session may, one of another session may not', async () => {
    const { media } = (await simulateFile(S, { mimetype: 'text/plain', data: 'aGk=' })).body;
    expect((await download(media.url, null)).status).toBe(401);
    await gw.api('POST', '/api/sessions', { name: 'media-other', start: false });
    const mine = await gw.api('POST', '/api/keys/media', { session: S });
    const theirs = await gw.api('POST', '/api/keys/media', { session: 'media-other' });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect((await download(media.url, mine.body.key)).status).toBe(200);
    expect((await download(media.url, theirs.body.key)).status).toBe(403);
  });
});

describe('Media: gone files', () => {
  it('404 for an id that was never given out, 400 for one that is not an id', async () => {
    const unknown = await gw.api('GET', `/api/files/${S}/${'A'.repeat(22)}.png`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.details).toEqual({ session: S, fileId: 'A'.repeat(22) });
    const bad = await gw.api('GET', `/api/files/${S}/..%2Fswitchboard.db`);
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].path).toBe('params.fileId');
  });

  it('a file of one session is not found under another', async () => {
    const { media } = (await simulateFile(S, { mimetype: 'text/plain', data: 'aGk=' })).body;
    const elsewhere = media.url.replace(`/api/files/${S}/`, '/api/files/media-other/');
    expect((await download(elsewhere)).status).toBe(404);
  });

  it(`404 once its lifetime (${LIFETIME_SECONDS} s here) has passed`, async () => {
    const { media } = (await simulateFile(S, { mimetype: 'text/plain', data: 'aGk=' })).body;
    expect((await download(media.url)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, LIFETIME_SECONDS * 1000 + 500));
    const gone = await download(media.url);
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { message: string }).message).toContain('lifetime');
  });

  it('deleting the session removes its files', async () => {
    await workingSession(gw, 'media-del');
    const sent = await gw.api('POST', '/api/media-del/sandbox/simulate', {
      kind: 'message',
      from: '15552220001@c.us',
      media: { mimetype: 'text/plain', data: 'aGk=' },
    });
    expect((await download(sent.body.media.url)).status).toBe(200);
    expect((await gw.api('DELETE', '/api/sessions/media-del')).status).toBe(200);
    await gw.api('POST', '/api/sessions', { name: 'media-del', start: false });
    expect((await download(sent.body.media.url)).status).toBe(404);
  });
});

describe('SANDBOX simulate: message with media (validation)', () => {
  it('body may be left out when media is given, not otherwise', async () => {
    const res = await gw.api('POST', `/api/${S}/sandbox/simulate`, { kind: 'message', from: '15552220001@c.us' });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toEqual(['body.body']);
  });

  it('body may be "" when media is given (docs/sandbox.md), not otherwise (issue 12, item 20)', async () => {
    const sent = await simulateFile(S, { mimetype: 'text/plain', data: 'aGk=' }, { body: '' });
    expect(sent.status).toBe(201);
    const [recorded] = await waitFor(async () => {
      const res = await gw.api('GET', `/api/${S}/chats/15552220001@c.us/messages?limit=1`);
      return res.body[0]?.id === sent.body.id && res.body;
    }, 'the history');
    expect(recorded).toMatchObject({ hasMedia: true, body: '' });
    const text = await gw.api('POST', `/api/${S}/sandbox/simulate`, { kind: 'message', from: '15552220001@c.us', body: '' });
    expect(text.status).toBe(400);
    expect(text.body.details).toEqual([{ path: 'body.body', reason: 'required and not empty unless media is given' }]);
  });

  it('400 names a bad media type, file name or base64 data', async () => {
    const res = await simulateFile(S, { mimetype: 'image', filename: '../etc/passwd', data: 'not base64!' });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['body.media.data', 'body.media.filename', 'body.media.mimetype']);
  });
});
