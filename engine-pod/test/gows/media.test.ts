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

  it('a high-quality link preview: title, description, matchedText, a JPEG thumbnail, and the image uploaded as thumbnail-link, which the contact decrypts', async () => {
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEklEQVR4nGP4z8CAFWEXHbQSACj/P8Fu7N9hAAAAAElFTkSuQmCC', 'base64');
    const record = await gows.request<Record<string, unknown>>('sendLinkCustomPreview', {
      chatId: bob,
      text: 'Read https://example.com/post',
      linkPreviewHighQuality: true,
      preview: {
        url: 'https://example.com/post',
        title: 'A post',
        description: 'About things',
        image: { mimetype: 'image/png', filename: null, data: png.toString('base64') },
      },
    });
    expect(record).toMatchObject({ fromMe: true, to: bob, body: 'Read https://example.com/post' });
    const text = (await phone.read(bareId(record.id))).extendedTextMessage!;
    expect(text).toMatchObject({
      text: 'Read https://example.com/post',
      matchedText: 'https://example.com/post',
      title: 'A post',
      description: 'About things',
    });
    expect(text).toMatchObject({ thumbnailWidth: 8, thumbnailHeight: 8 });
    expect(Buffer.from(text.jpegThumbnail!).subarray(0, 3).toString('hex')).toBe('ffd8ff');
    const thumbnail = {
      directPath: text.thumbnailDirectPath,
      mediaKey: text.mediaKey,
      fileEncSha256: text.thumbnailEncSha256,
      fileSha256: text.thumbnailSha256,
    };
    expect((await media.open(thumbnail, 'thumbnail-link')).equals(png)).toBe(true);
  });

  it('a link preview without high quality carries the JPEG thumbnail only; one with no image none; an image it cannot read is refused naming preview.image', async () => {
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEklEQVR4nGP4z8CAFWEXHbQSACj/P8Fu7N9hAAAAAElFTkSuQmCC', 'base64');
    const uploads = media.uploads.length;
    const low = await gows.request<Record<string, unknown>>('sendLinkCustomPreview', {
      chatId: bob,
      text: 'https://example.com/a',
      linkPreviewHighQuality: false,
      preview: {
        url: 'https://example.com/a',
        title: 'A',
        description: '',
        image: { mimetype: 'image/png', filename: null, data: png.toString('base64') },
      },
    });
    const lowText = (await phone.read(bareId(low.id))).extendedTextMessage!;
    expect(lowText).toMatchObject({ matchedText: 'https://example.com/a', title: 'A' });
    expect(lowText.jpegThumbnail?.length).toBeGreaterThan(0);
    expect(lowText.thumbnailDirectPath).toBeFalsy();
    expect(media.uploads.length).toBe(uploads);

    const bare = await gows.request<Record<string, unknown>>('sendLinkCustomPreview', {
      chatId: bob,
      text: 'https://example.com/b',
      preview: { url: 'https://example.com/b', title: 'B', description: 'no picture' },
    });
    const bareText = (await phone.read(bareId(bare.id))).extendedTextMessage!;
    expect(bareText).toMatchObject({ matchedText: 'https://example.com/b', title: 'B', description: 'no picture' });
    expect(bareText.jpegThumbnail?.length ?? 0).toBe(0);

    const refused = gows.request('sendLinkCustomPreview', {
      chatId: bob,
      text: 'https://example.com/c',
      preview: {
        url: 'https://example.com/c',
        title: 'C',
        image: { mimetype: 'image/png', filename: null, data: Buffer.from('not an image').toString('base64') },
      },
    });
    await expect(refused).rejects.toMatchObject({ code: 'INVALID', message: expect.stringContaining('preview.image') });
  });

  it('refuses convert: true (NOT_SUPPORTED): files go as they are', async () => {
    await expect(
      gows.request('sendMedia', { chatId: bob, kind: 'voice', file: { mimetype: 'audio/mpeg', filename: null, data: 'AAAA' }, convert: true }),
    ).rejects.toMatchObject({ code: 'NOT_SUPPORTED' });
  });
});

describe('GOWS channel posts with downloadMedia', () => {
  const savedOf = (media: unknown) =>
    gows.saved[
      Number(
        String((media as { url: string }).url)
          .split('/')
          .pop(),
      ) - 1
    ];

  it("a post's image (stored unencrypted, no mediaKey) downloads by its direct path and is kept; downloadMedia false leaves media null", async () => {
    const news = fake.newsletters.add({ name: 'Harbour Pictures' });
    const bytes = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(30_000)]);
    const file = media.servePlain(bytes);
    fake.newsletters.post(news.id, { imageMessage: { ...file, mimetype: 'image/png', caption: 'The harbour at dawn' } });
    const doc = media.servePlain(Buffer.from('%PDF-1.4 timetable'));
    fake.newsletters.post(news.id, { documentMessage: { ...doc, mimetype: 'application/pdf', fileName: 'timetable.pdf' } });
    fake.newsletters.post(news.id, 'No file here');
    const posts = (downloadMedia: boolean) =>
      gows.request<{ message: Record<string, unknown> }[]>('channelPosts', { channel: { by: 'id', key: news.id }, limit: 10, downloadMedia });

    expect((await posts(false)).map((p) => [p.message.hasMedia, p.message.media])).toEqual([
      [true, null],
      [true, null],
      [false, null],
    ]);
    expect(media.requests.filter((r) => r.path === file.directPath)).toEqual([]);

    const [image, pdf, text] = await posts(true);
    expect(image?.message).toMatchObject({ body: 'The harbour at dawn', hasMedia: true, media: { mimetype: 'image/png', filename: null } });
    expect(savedOf(image?.message.media)?.data.equals(bytes)).toBe(true);
    expect(pdf?.message.media).toMatchObject({ mimetype: 'application/pdf', filename: 'timetable.pdf' });
    expect(savedOf(pdf?.message.media)?.data.toString()).toBe('%PDF-1.4 timetable');
    expect(text?.message.media).toBeNull();
  });

  it('a file gone from the server, or not the bytes the post names: the post comes, media null', async () => {
    const news = fake.newsletters.add({ name: 'Harbour Gone' });
    const gone = media.servePlain(Buffer.from('gone'));
    media.forget(gone.directPath);
    fake.newsletters.post(news.id, { imageMessage: { ...gone, mimetype: 'image/jpeg', caption: 'gone' } });
    const other = media.servePlain(Buffer.from('not what the post names'));
    fake.newsletters.post(news.id, { imageMessage: { ...other, fileSha256: Buffer.alloc(32), mimetype: 'image/jpeg', caption: 'tampered' } });
    const posts = await gows.request<{ message: Record<string, unknown> }[]>('channelPosts', {
      channel: { by: 'id', key: news.id },
      limit: 10,
      downloadMedia: true,
    });
    expect(posts.map((p) => [p.message.body, p.message.hasMedia, p.message.media])).toEqual([
      ['gone', true, null],
      ['tampered', true, null],
    ]);
    expect(media.requests).toContainEqual({ path: other.directPath, status: 200 });
  });
});
