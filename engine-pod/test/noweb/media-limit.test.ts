import { randomBytes } from 'node:crypto';
import type { ChannelMessage } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { ALICE } from './harness.js';
import { mediaSessionForTests } from './media-session.js';

// Received files and the media limit on NOWEB (SWITCHBOARD_MEDIA_MAX_BYTES, here 256 KiB):
// Baileys downloads and decrypts as a stream straight into the media store (cluster mode's, on a
// real nats-server), never holding a file whole; a file over the limit is not kept and its
// download stops at the limit. The same cases as engine-pod/test/gows/media-limit.test.ts.

const LIMIT = 256 * 1024;
const paired = mediaSessionForTests('noweb', { maxBytes: LIMIT });

const refusals = () =>
  paired.s.logs.filter(
    (line) => line.level === 'warn' && String((line.obj.err as Error | undefined)?.message).includes(`larger than the media limit of ${LIMIT} bytes`),
  );

async function received(part: Record<string, unknown>): Promise<Record<string, unknown>> {
  const since = paired.s.events.length;
  const id = paired.phone.message({ from: ALICE }, { documentMessage: { mimetype: 'application/octet-stream', ...part } });
  return (await paired.s.waitForEvent('message', (p) => p.id === `false_${ALICE}@c.us_${id}`, since)).payload;
}

describe('NOWEB received files and the media limit', () => {
  it('keeps a file of exactly the limit byte for byte', async () => {
    const bytes = randomBytes(LIMIT);
    const message = await received({ ...(await paired.media.upload(bytes, 'document')), fileName: 'at-limit.bin' });
    expect(message).toMatchObject({ hasMedia: true, media: { filename: 'at-limit.bin' } });
    const stored = await paired.stored((message.media as { url: string }).url);
    expect(stored?.data.equals(bytes)).toBe(true);
    expect(stored?.meta.size).toBe(LIMIT);
  });

  it('does not download a file that says it is larger: media null, and the log says why', async () => {
    const before = refusals().length;
    const uploaded = await paired.media.uploadSized(LIMIT + 1, 'document');
    const message = await received({ ...uploaded, fileName: 'declared.bin' });
    expect(message).toMatchObject({ hasMedia: true, media: null });
    expect(paired.media.requests.filter((r) => r.path === uploaded.directPath)).toEqual([]);
    expect(refusals().length).toBe(before + 1);
    expect(refusals().at(-1)?.msg).toBe('NOWEB could not keep a received file; its record has media null');
  });

  it('stops the download of a file larger than it says at the limit: media null, the rest never read', async () => {
    const before = refusals().length;
    const size = 32 * 1024 * 1024;
    const uploaded = await paired.media.uploadSized(size, 'document', 1000);
    const message = await received({ ...uploaded, fileName: 'lying.bin' });
    expect(message).toMatchObject({ hasMedia: true, media: null });
    expect(refusals().length).toBe(before + 1);
    // What the server wrote is the limit and what the sockets buffered, far from the whole file.
    expect(paired.media.sent.get(uploaded.directPath)).toBeLessThan(size / 2);
  });

  it("holds a channel post's file to the same limit: one over it has media null, one under it is kept", async () => {
    const { fake, media, s } = paired;
    const news = fake.newsletters.add({ name: 'Harbour Limits' });
    const small = randomBytes(1000);
    fake.newsletters.post(news.id, { documentMessage: { ...media.servePlain(small), mimetype: 'application/pdf', fileName: 'small.pdf' } });
    const big = media.servePlain(randomBytes(32 * 1024 * 1024));
    fake.newsletters.post(news.id, { documentMessage: { ...big, fileLength: 1000, mimetype: 'application/pdf', fileName: 'big.pdf' } });
    const posts = (await s.host.execute({
      op: 'channels.preview',
      args: { channel: { by: 'id', key: news.id }, limit: 10, downloadMedia: true },
    })) as ChannelMessage[];
    const [kept, refused] = posts.map((p) => p.message);
    expect((await paired.stored((kept?.media as { url: string }).url))?.data.equals(small)).toBe(true);
    expect(refused).toMatchObject({ hasMedia: true, media: null });
    expect(media.sent.get(big.directPath)).toBeLessThan(16 * 1024 * 1024);
    expect(s.logs).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: "NOWEB could not keep a channel post's file; its record has media null" }),
    );
  });
});
