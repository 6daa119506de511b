import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakePhone } from '../fake-wa/index.js';
import type { FakeMediaServer } from '../fake-wa/media-server.js';
import { ALICE, type NowebSession } from './harness.js';
import { mediaSessionForTests } from './media-session.js';

// Received media on NOWEB: the unmodified Baileys downloads and decrypts the file from a fake
// WhatsApp media server, and the engine keeps it in the session's media store (here cluster
// mode's, on a real nats-server).

const paired = mediaSessionForTests();
let media: FakeMediaServer;
let s: NowebSession;
let phone: FakePhone;

beforeAll(() => {
  ({ media, s, phone } = paired);
});

describe('NOWEB received media', () => {
  it('an image arrives with media.url; the stored file has the bytes the contact sent', async () => {
    const bytes = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(70_000)]);
    const uploaded = await media.upload(bytes, 'image');
    const since = s.events.length;
    const id = phone.message({ from: ALICE }, { imageMessage: { ...uploaded, mimetype: 'image/png', caption: 'a photo' } });
    const event = await s.waitForEvent('message', (p) => p.body === 'a photo', since);
    expect(event.payload).toMatchObject({ id: `false_${ALICE}@c.us_${id}`, hasMedia: true, media: { mimetype: 'image/png', filename: null } });
    const { url } = event.payload.media as { url: string };
    expect(url).toMatch(/^https:\/\/wa\.example\.com\/api\/files\/noweb\/[A-Za-z0-9_-]{22}\.png$/);
    expect((await paired.stored(url))?.data.equals(bytes)).toBe(true);
    expect(media.requests).toContainEqual({ path: uploaded.directPath, status: 200 });
  });

  it('a document keeps its file name', async () => {
    const uploaded = await media.upload(Buffer.from('%PDF-1.4 report'), 'document');
    const since = s.events.length;
    phone.message({ from: ALICE }, { documentMessage: { ...uploaded, mimetype: 'application/pdf', fileName: 'report.pdf' } });
    const event = await s.waitForEvent('message.any', (p) => (p.media as { filename?: string } | null)?.filename === 'report.pdf', since);
    const stored = await paired.stored((event.payload.media as { url: string }).url);
    expect(stored?.meta).toMatchObject({ mimetype: 'application/pdf', filename: 'report.pdf' });
    expect(stored?.data.toString()).toBe('%PDF-1.4 report');
  });

  it('a file the server no longer has still gives the message, with media null', async () => {
    const uploaded = await media.upload(Buffer.from('gone'), 'audio');
    media.forget(uploaded.directPath);
    const since = s.events.length;
    const id = phone.message({ from: ALICE }, { audioMessage: { ...uploaded, mimetype: 'audio/ogg; codecs=opus', ptt: true } });
    const event = await s.waitForEvent('message', (p) => p.id === `false_${ALICE}@c.us_${id}`, since);
    expect(event.payload).toMatchObject({ hasMedia: true, media: null });
  });
});
