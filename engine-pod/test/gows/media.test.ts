import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakePhone, FakeWaServer } from '../fake-wa/index.js';
import type { FakeMediaServer } from '../fake-wa/media-server.js';
import { type GowsDriver, pairedWithMedia } from './driver.js';

const BOB = '15551230021';
const bob = `${BOB}@c.us`;
let fake: FakeWaServer;
let media: FakeMediaServer;
let gows: GowsDriver;
let phone: FakePhone;

beforeAll(async () => {
  ({ fake, media, gows, phone } = await pairedWithMedia('gows', { [BOB]: '245120000000021' }));
}, 180_000);

afterAll(async () => {
  await gows?.close();
  expect(gows?.invalid).toEqual([]);
  await fake?.close();
  await media?.close();
});

const bareId = (id: unknown) => String(id).split('_')[2]!;

describe('GOWS media both ways against the fake media server', () => {
  it('a received image is downloaded, kept through media.save, and its record has media', async () => {
    const bytes = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(50_000)]);
    const uploaded = await media.upload(bytes, 'image');
    const id = phone.message({ from: BOB }, { imageMessage: { ...uploaded, mimetype: 'image/png', caption: 'a photo' } });
    const message = await gows.event('message', (p) => p.body === 'a photo');
    expect(message).toMatchObject({ id: `false_${bob}_${id}`, hasMedia: true, media: { mimetype: 'image/png', filename: null } });
    const n = Number(
      String((message.media as { url: string }).url)
        .split('/')
        .pop(),
    );
    expect(gows.saved[n - 1]?.data.equals(bytes)).toBe(true);
    expect(media.requests).toContainEqual({ path: uploaded.directPath, status: 200 });
  });

  it('sends an image and a document: uploaded to the media server, the contact opens the same bytes', async () => {
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(2_000)]);
    const image = await gows.request<Record<string, unknown>>('sendMedia', {
      chatId: bob,
      kind: 'image',
      file: { mimetype: 'image/png', filename: null, data: png.toString('base64') },
      caption: 'a square',
    });
    expect(image).toMatchObject({ fromMe: true, to: bob, body: 'a square', hasMedia: true, media: { mimetype: 'image/png' }, ack: 0 });
    const sentImage = (await phone.read(bareId(image.id))).imageMessage!;
    expect(sentImage).toMatchObject({ mimetype: 'image/png', caption: 'a square' });
    expect((await media.open(sentImage, 'image')).equals(png)).toBe(true);

    const pdf = Buffer.from('%PDF-1.4 report');
    const document = await gows.request<Record<string, unknown>>('sendMedia', {
      chatId: bob,
      kind: 'file',
      file: { mimetype: 'application/pdf', filename: 'report.pdf', data: pdf.toString('base64') },
    });
    const sentDocument = (await phone.read(bareId(document.id))).documentMessage!;
    expect(sentDocument).toMatchObject({ mimetype: 'application/pdf', fileName: 'report.pdf' });
    expect((await media.open(sentDocument, 'document')).equals(pdf)).toBe(true);
  });

  it('refuses convert: true (NOT_SUPPORTED): files go as they are', async () => {
    await expect(
      gows.request('sendMedia', { chatId: bob, kind: 'voice', file: { mimetype: 'audio/mpeg', filename: null, data: 'AAAA' }, convert: true }),
    ).rejects.toMatchObject({ code: 'NOT_SUPPORTED' });
  });
});
