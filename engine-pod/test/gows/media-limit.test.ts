import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakePhone, FakeWaServer } from '../fake-wa/index.js';
import type { FakeMediaServer } from '../fake-wa/media-server.js';
import { closeChecked, type GowsDriver, pairedWithMedia } from './driver.js';

// Received files and the media limit on GOWS (SWITCHBOARD_MEDIA_MAX_BYTES, here 256 KiB):
// whatsmeow downloads to a file of the spool, never to memory; a file over the limit is not kept
// and its download stops at the limit. The same cases as engine-pod/test/noweb/media-limit.test.ts.

const LIMIT = 256 * 1024;
const BOB = '15551230051';
const bob = `${BOB}@c.us`;
let fake: FakeWaServer;
let media: FakeMediaServer;
let gows: GowsDriver;
let phone: FakePhone;
let spool: string;

beforeAll(async () => {
  ({ fake, media, gows, phone, spool } = await pairedWithMedia('gows', { [BOB]: '245120000000051' }, { SWITCHBOARD_MEDIA_MAX_BYTES: String(LIMIT) }));
}, 180_000);

afterAll(async () => {
  await closeChecked(gows, fake);
  await media?.close();
});

const savedOf = (url: string) => gows.saved[Number(url.split('/').pop()) - 1];
const refusals = () => gows.log.filter((line) => line.level === 'warn' && String(line.err).includes(`larger than the media limit of ${LIMIT} bytes`));

async function received(part: Record<string, unknown>): Promise<Record<string, unknown>> {
  const id = phone.message({ from: BOB }, { documentMessage: { mimetype: 'application/octet-stream', ...part } });
  return gows.event('message', (p) => p.id === `false_${bob}_${id}`);
}

describe('GOWS received files and the media limit', () => {
  it('keeps a file of exactly the limit byte for byte, and leaves nothing in the spool', async () => {
    const bytes = randomBytes(LIMIT);
    const message = await received({ ...(await media.upload(bytes, 'document')), fileName: 'at-limit.bin' });
    expect(message).toMatchObject({ hasMedia: true, media: { filename: 'at-limit.bin' } });
    expect(savedOf((message.media as { url: string }).url)?.data.equals(bytes)).toBe(true);
    expect(readdirSync(spool)).toEqual([]);
  });

  it('does not download a file that says it is larger: media null, and the log says why', async () => {
    const before = refusals().length;
    const uploaded = await media.uploadSized(LIMIT + 1, 'document');
    const message = await received({ ...uploaded, fileName: 'declared.bin' });
    expect(message).toMatchObject({ hasMedia: true, media: null });
    expect(media.requests.filter((r) => r.path === uploaded.directPath)).toEqual([]);
    expect(refusals().length).toBe(before + 1);
    expect(refusals().at(-1)).toMatchObject({ msg: 'could not keep a received file; its record has media null' });
  });

  it('stops the download of a file larger than it says at the limit: media null, the rest never read, nothing in the spool', async () => {
    const before = refusals().length;
    const size = 32 * 1024 * 1024;
    const uploaded = await media.uploadSized(size, 'document', 1000);
    const message = await received({ ...uploaded, fileName: 'lying.bin' });
    expect(message).toMatchObject({ hasMedia: true, media: null });
    expect(refusals().length).toBe(before + 1);
    // What the server wrote is the limit and what the sockets buffered, far from the whole file.
    expect(media.sent.get(uploaded.directPath)).toBeLessThan(size / 2);
    expect(readdirSync(spool)).toEqual([]);
  });

  it("holds a channel post's file to the same limit: one over it has media null, one under it is kept", async () => {
    const news = fake.newsletters.add({ name: 'Harbour Limits' });
    const small = randomBytes(1000);
    fake.newsletters.post(news.id, { documentMessage: { ...media.servePlain(small), mimetype: 'application/pdf', fileName: 'small.pdf' } });
    const big = media.servePlain(randomBytes(32 * 1024 * 1024));
    fake.newsletters.post(news.id, { documentMessage: { ...big, fileLength: 1000, mimetype: 'application/pdf', fileName: 'big.pdf' } });
    const posts = await gows.request<{ message: Record<string, unknown> }[]>('channelPosts', {
      channel: { by: 'id', key: news.id },
      limit: 10,
      downloadMedia: true,
    });
    const [kept, refused] = posts.map((p) => p.message);
    expect(savedOf((kept?.media as { url: string }).url)?.data.equals(small)).toBe(true);
    expect(refused).toMatchObject({ hasMedia: true, media: null });
    expect(media.sent.get(big.directPath)).toBeLessThan(16 * 1024 * 1024);
    expect(gows.log).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: "could not keep a channel post's file; its record has media null" }),
    );
  });
});
