import { randomBytes } from 'node:crypto';
import type { ChannelMessage } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { mediaSessionForTests } from './media-session.js';

// A channel post's file in the posts preview on NOWEB (channels.preview with downloadMedia):
// channel files are stored unencrypted on the media host (the fake's `servePlain`), the engine
// fetches the post's direct path, checks its sha256 and keeps it in the session's media store.

const paired = mediaSessionForTests();

describe('NOWEB channels.preview with downloadMedia', () => {
  it("a post with an image: media set, the stored file is the post's bytes; downloadMedia false leaves media null", async () => {
    const { fake, media, s } = paired;
    const news = fake.newsletters.add({ name: 'Harbour Pictures' });
    const bytes = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(40_000)]);
    const file = media.servePlain(bytes);
    fake.newsletters.post(news.id, { imageMessage: { ...file, mimetype: 'image/png', caption: 'The harbour at dawn' } });
    const doc = media.servePlain(Buffer.from('%PDF-1.4 timetable'));
    fake.newsletters.post(news.id, { documentMessage: { ...doc, mimetype: 'application/pdf', fileName: 'timetable.pdf' } });
    fake.newsletters.post(news.id, 'No file here');
    const preview = (downloadMedia: boolean) =>
      s.host.execute({ op: 'channels.preview', args: { channel: { by: 'id', key: news.id }, limit: 10, downloadMedia } }) as Promise<
        ChannelMessage[]
      >;

    const plain = await preview(false);
    expect(plain.map((p) => [p.message.hasMedia, p.message.media])).toEqual([
      [true, null],
      [true, null],
      [false, null],
    ]);
    expect(media.requests.filter((r) => r.path === file.directPath)).toEqual([]);

    const [image, pdf, text] = await preview(true);
    expect(image?.message).toMatchObject({ body: 'The harbour at dawn', hasMedia: true, media: { mimetype: 'image/png', filename: null } });
    expect((await paired.stored((image!.message.media as { url: string }).url))?.data.equals(bytes)).toBe(true);
    expect(pdf?.message.media).toMatchObject({ mimetype: 'application/pdf', filename: 'timetable.pdf' });
    expect((await paired.stored((pdf!.message.media as { url: string }).url))?.data.toString()).toBe('%PDF-1.4 timetable');
    expect(text?.message.media).toBeNull();
  });

  it('a file gone from the server, or not the bytes the post names: the post comes, media null', async () => {
    const { fake, media, s } = paired;
    const news = fake.newsletters.add({ name: 'Harbour Gone' });
    const gone = media.servePlain(Buffer.from('gone'));
    media.forget(gone.directPath);
    fake.newsletters.post(news.id, { imageMessage: { ...gone, mimetype: 'image/jpeg', caption: 'gone' } });
    const other = media.servePlain(Buffer.from('not what the post names'));
    fake.newsletters.post(news.id, { imageMessage: { ...other, fileSha256: Buffer.alloc(32), mimetype: 'image/jpeg', caption: 'tampered' } });
    const posts = (await s.host.execute({
      op: 'channels.preview',
      args: { channel: { by: 'id', key: news.id }, limit: 10, downloadMedia: true },
    })) as ChannelMessage[];
    expect(posts.map((p) => [p.message.body, p.message.hasMedia, p.message.media])).toEqual([
      ['gone', true, null],
      ['tampered', true, null],
    ]);
    expect(media.requests).toContainEqual({ path: other.directPath, status: 200 });
  });
});
