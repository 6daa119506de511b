import { randomBytes } from 'node:crypto';
import type { MessageRecord } from '@switchboard/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakePhone } from '../fake-wa/index.js';
import type { FakeMediaServer } from '../fake-wa/media-server.js';
import { ALICE, type NowebSession } from './harness.js';
import { mediaSessionForTests } from './media-session.js';

// Sending files on NOWEB: the unmodified Baileys asks the fake server where to upload
// (`media_conn`), encrypts the file and uploads it over HTTPS to the fake media host; the
// recipient's device decrypts the message (signal), then fetches the file at its direct path and
// checks its hashes and MAC before decrypting it. The record's `media` is the session's stored
// copy (cluster mode's store, on a real nats-server).

const paired = mediaSessionForTests('noweb-send-media');
let media: FakeMediaServer;
let s: NowebSession;
let phone: FakePhone;
const alice = `${ALICE}@c.us`;

beforeAll(() => {
  ({ media, s, phone } = paired);
});

const idOf = (record: { id: string }) => record.id.split('_')[2]!;
const send = (args: Record<string, unknown>) => s.host.execute({ op: 'send.media', args } as never) as Promise<MessageRecord>;
const base64 = (data: Buffer) => data.toString('base64');
/** The stored copy behind a record's `media.url`. */
const stored = (record: MessageRecord) => paired.stored(record.media!.url);

/** An 8x8 PNG, red: real enough for the library to make a thumbnail of. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEklEQVR4nGP4z8CAFWEXHbQSACj/P8Fu7N9hAAAAAElFTkSuQmCC', 'base64');

describe('NOWEB sending files (spec 4.5): uploaded encrypted, readable by the recipient', () => {
  it('an image with a caption: record with media, message.any and SERVER; the recipient decrypts the same bytes', async () => {
    const since = s.events.length;
    const record = await send({ kind: 'image', chatId: alice, file: { mimetype: 'image/png', data: base64(PNG) }, caption: 'a red square' });
    expect(record).toMatchObject({
      from: phone.contactId,
      to: alice,
      fromMe: true,
      source: 'api',
      body: 'a red square',
      hasMedia: true,
      media: { mimetype: 'image/png', filename: null },
      ack: 0,
    });
    expect((await stored(record))?.data.equals(PNG)).toBe(true);
    expect((await s.waitForEvent('message.any', (p) => p.id === record.id, since)).payload).toEqual(record);
    await s.waitForEvent('message.ack', (p) => p.id === record.id && p.ackName === 'SERVER', since);

    const image = (await phone.read(idOf(record))).imageMessage!;
    expect(image).toMatchObject({ mimetype: 'image/png', caption: 'a red square', width: 8, height: 8 });
    expect(Buffer.from(image.jpegThumbnail!).subarray(0, 2).toString('hex')).toBe('ffd8');
    expect(image.url).toBe(`https://${media.host}${image.directPath}`);
    expect((await media.open(image, 'image')).equals(PNG)).toBe(true);
    expect(media.uploads.find((u) => u.directPath === image.directPath)?.path).toMatch(/^\/mms\/image\/[A-Za-z0-9_-]{43}$/);
  });

  it('a file is a document with its name and caption', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(50_000)]);
    const record = await send({
      kind: 'file',
      chatId: alice,
      file: { mimetype: 'application/pdf', filename: 'report.pdf', data: base64(pdf) },
      caption: 'the report',
    });
    expect(record).toMatchObject({ body: 'the report', hasMedia: true, media: { mimetype: 'application/pdf', filename: 'report.pdf' } });
    const document = (await phone.read(idOf(record))).documentMessage!;
    expect(document).toMatchObject({ mimetype: 'application/pdf', fileName: 'report.pdf', caption: 'the report' });
    expect(Number(document.fileLength)).toBe(pdf.length);
    expect((await media.open(document, 'document')).equals(pdf)).toBe(true);
  });

  it('a voice message is a push-to-talk audio message', async () => {
    const ogg = Buffer.concat([Buffer.from('OggS'), randomBytes(4_000)]);
    const record = await send({ kind: 'voice', chatId: alice, file: { mimetype: 'audio/ogg; codecs=opus', data: base64(ogg) }, convert: false });
    expect(record).toMatchObject({ body: '', hasMedia: true, media: { mimetype: 'audio/ogg; codecs=opus' } });
    const audio = (await phone.read(idOf(record))).audioMessage!;
    expect(audio).toMatchObject({ ptt: true, mimetype: 'audio/ogg; codecs=opus' });
    expect((await media.open(audio, 'audio')).equals(ogg)).toBe(true);
    expect((await s.waitForEvent('message.ack', (p) => p.id === record.id && p.ackName === 'SERVER')).payload.ack).toBe(1);
  });

  it('a video with a caption; asNote makes it a round video note (ptvMessage)', async () => {
    const mp4 = randomBytes(20_000);
    const video = await send({
      kind: 'video',
      chatId: alice,
      file: { mimetype: 'video/mp4', data: base64(mp4) },
      caption: 'a clip',
      asNote: false,
      convert: false,
    });
    expect(video).toMatchObject({ body: 'a clip', hasMedia: true });
    const clip = (await phone.read(idOf(video))).videoMessage!;
    expect(clip).toMatchObject({ mimetype: 'video/mp4', caption: 'a clip' });
    expect((await media.open(clip, 'video')).equals(mp4)).toBe(true);

    const note = await send({ kind: 'video', chatId: alice, file: { mimetype: 'video/mp4', data: base64(mp4) }, asNote: true, convert: false });
    expect(note).toMatchObject({ hasMedia: true });
    const read = await phone.read(idOf(note));
    expect(read.videoMessage).toBeFalsy();
    expect((await media.open(read.ptvMessage!, 'video')).equals(mp4)).toBe(true);
  });

  it('convert is refused (NOWEB sends files as they are), before anything is uploaded', async () => {
    const uploads = media.uploads.length;
    const refused = send({ kind: 'voice', chatId: alice, file: { mimetype: 'audio/mpeg', data: base64(randomBytes(100)) }, convert: true });
    await expect(refused).rejects.toMatchObject({ code: 'NOT_SUPPORTED', details: { engine: 'NOWEB', field: 'convert' } });
    expect(media.uploads.length).toBe(uploads);
  });

  it('a high-quality link preview uploads the image (thumbnail-link), which the recipient decrypts', async () => {
    const record = (await s.host.execute({
      op: 'send.linkCustomPreview',
      args: {
        chatId: alice,
        text: 'https://example.com/page',
        linkPreviewHighQuality: true,
        preview: { url: 'https://example.com/page', title: 'A page', description: '', image: { data: base64(PNG) } },
      },
    })) as MessageRecord;
    const text = (await phone.read(idOf(record))).extendedTextMessage!;
    expect(text).toMatchObject({ title: 'A page', matchedText: 'https://example.com/page', thumbnailWidth: 8, thumbnailHeight: 8 });
    const thumbnail = {
      directPath: text.thumbnailDirectPath,
      mediaKey: text.mediaKey,
      fileEncSha256: text.thumbnailEncSha256,
      fileSha256: text.thumbnailSha256,
    };
    expect((await media.open(thumbnail, 'thumbnail-link')).equals(PNG)).toBe(true);
  });
});
