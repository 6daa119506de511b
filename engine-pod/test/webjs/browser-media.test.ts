// Files through Chromium, for both browser engines on the fake WhatsApp Web, whose backend keeps the
// uploaded bytes: whatsapp-web.js's own media path (processMediaData: the file prepared, hashed and
// uploaded) and WPPConnect's sendFile (wa-js's sendFileMessage: WhatsApp Web's media preparation and
// upload). What the phone side received is checked against what was sent, and the API's answer
// against it; a contact's file is downloaded in the page and kept by the host.
import { MessageRecord } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { memoryMediaStore } from '../support/memory-media-store.js';
import { pairedSuite, pairedWebjs, pairedWpp } from './paired-webjs.js';

const ME = { id: '15550007777@c.us', pushName: 'Media Sender' };
const CONTACT = '15551113333@c.us';
// A 1x1 PNG: real image bytes, so a mix-up of files or encodings shows.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a3e1f4e20000000049454e44ae426082',
  'hex',
);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
// Bytes standing for an Ogg/Opus note and an MP4: the page sends files as they are.
const OGG = Buffer.concat([Buffer.from('OggS'), Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 7) % 256))]);
const MP4 = Buffer.concat([Buffer.from('\0\0\0\x18ftypmp42'), Buffer.from(Array.from({ length: 500 }, (_, i) => (i * 13) % 256))]);

// The largest received file the host keeps here: every file above is smaller.
const MAX_KEPT = 4096;

describe.each([
  // whatsapp-web.js sends videos only as videos and makes up every message id (both refused by the catalog).
  ['WEBJS', pairedWebjs, { videoNotes: false, presetIds: false }],
  ['WPP', pairedWpp, { videoNotes: true, presetIds: true }],
] as const)('%s sends and receives files through Chromium: the bytes on the other side are the file', (engine, paired, { videoNotes, presetIds }) => {
  const kept = memoryMediaStore();
  const session = pairedSuite(paired, 'media', ME, { store: kept.store, urlFor: kept.urlFor, maxBytes: MAX_KEPT });
  const { payloads: named } = session;

  const send = async (args: Record<string, unknown>) =>
    MessageRecord.parse(await session.host.execute({ op: 'send.media', args: { chatId: CONTACT, ...args } as never }));

  /** What the page sent for the record's message, and the upload its direct path names. */
  async function received(record: MessageRecord) {
    const { phone } = session;
    const sent = await waitFor(
      () => phone.sentTo(CONTACT).find((msg) => `true_${CONTACT}_${msg.id.id}` === record.id),
      `the page to send ${record.id}`,
    );
    const upload = phone.uploads.find((candidate) => candidate.directPath === sent.directPath);
    expect(upload, `an upload at the message's direct path ${String(sent.directPath)}`).toBeDefined();
    return { sent, upload: upload! };
  }

  it('an image with a caption: uploaded as the image it is, sent as an image message with its direct path', async () => {
    const record = await send({
      kind: 'image',
      caption: 'a pixel',
      file: { mimetype: 'image/png', filename: 'pixel.png', data: PNG.toString('base64') },
    });
    expect(record).toMatchObject({ fromMe: true, source: 'api', hasMedia: true, to: CONTACT, body: 'a pixel' });
    const { sent, upload } = await received(record);
    expect(upload.data.equals(PNG), 'the uploaded bytes are the PNG sent').toBe(true);
    expect(upload).toMatchObject({ mimetype: 'image/png', mediaType: 'image' });
    expect(sent).toMatchObject({ type: 'image', mimetype: 'image/png', caption: 'a pixel', size: PNG.length });
    expect(sent.mediaKey).toEqual(expect.any(String));
    await waitFor(() => named('message.any').some((p) => p.id === record.id), 'message.any for the image');
  });

  it('a file: sent as a document under its name with its caption, the uploaded bytes the file', async () => {
    const record = await send({
      kind: 'file',
      caption: 'the report',
      file: { mimetype: 'application/pdf', filename: 'report.pdf', data: PDF.toString('base64') },
    });
    expect(record).toMatchObject({ fromMe: true, hasMedia: true, to: CONTACT, body: 'the report' });
    const { sent, upload } = await received(record);
    expect(upload.data.equals(PDF), 'the uploaded bytes are the PDF sent').toBe(true);
    expect(upload).toMatchObject({ mimetype: 'application/pdf', mediaType: 'document' });
    expect(sent).toMatchObject({ type: 'document', mimetype: 'application/pdf', filename: 'report.pdf', caption: 'the report', size: PDF.length });
  });

  it('an image sent as a file is a document, and without a caption none is shown (not its name)', async () => {
    const record = await send({ kind: 'file', file: { mimetype: 'image/png', filename: 'pixel.png', data: PNG.toString('base64') } });
    const { sent, upload } = await received(record);
    expect(upload.data.equals(PNG)).toBe(true);
    expect(sent).toMatchObject({ type: 'document', filename: 'pixel.png' });
    expect(sent.caption).toBeUndefined();
  });

  it('a voice message: sent as a voice note (ptt), the Ogg/Opus bytes as they were', async () => {
    const record = await send({ kind: 'voice', convert: false, file: { mimetype: 'audio/ogg; codecs=opus', data: OGG.toString('base64') } });
    expect(record).toMatchObject({ fromMe: true, hasMedia: true });
    const { sent, upload } = await received(record);
    expect(upload.data.equals(OGG), 'the uploaded bytes are the voice note sent').toBe(true);
    expect(sent).toMatchObject({ type: 'ptt', mimetype: 'audio/ogg; codecs=opus', size: OGG.length });
  });

  it('a video with a caption: a video, the bytes as they were', async () => {
    const video = await send({
      kind: 'video',
      caption: 'the clip',
      asNote: false,
      convert: false,
      file: { mimetype: 'video/mp4', filename: 'clip.mp4', data: MP4.toString('base64') },
    });
    const first = await received(video);
    expect(first.upload.data.equals(MP4), 'the uploaded bytes are the video sent').toBe(true);
    expect(first.sent).toMatchObject({ type: 'video', mimetype: 'video/mp4', caption: 'the clip' });
  });

  if (videoNotes)
    it('a video note (asNote): a round video (ptv)', async () => {
      const note = await send({ kind: 'video', asNote: true, convert: false, file: { mimetype: 'video/mp4', data: MP4.toString('base64') } });
      const second = await received(note);
      expect(second.upload.data.equals(MP4)).toBe(true);
      expect(second.upload.mediaType, 'wa-js uploads a video note as a video').toBe('video');
      expect(second.sent).toMatchObject({ type: 'ptv', mimetype: 'video/mp4' });
    });

  it('a reply quotes the message named by reply_to; a pre-generated id is the message id', async () => {
    const original = session.phone.text(CONTACT, 'send me the picture');
    await waitFor(() => named('message').some((p) => p.id === `false_${CONTACT}_${original}`), 'the contact’s message');
    const record = await send({
      kind: 'image',
      ...(presetIds ? { id: '3EB0WPPMEDIA0001' } : {}),
      reply_to: `false_${CONTACT}_${original}`,
      file: { mimetype: 'image/png', data: PNG.toString('base64') },
    });
    if (presetIds) expect(record.id).toBe(`true_${CONTACT}_3EB0WPPMEDIA0001`);
    const { sent, upload } = await received(record);
    expect(upload.data.equals(PNG)).toBe(true);
    expect(sent).toMatchObject({ type: 'image', quotedStanzaID: original });
  });

  it('converting is refused by the catalog: 422 naming the field, nothing sent', async () => {
    const before = session.phone.sentTo(CONTACT).length;
    await expect(send({ kind: 'voice', convert: true, file: { mimetype: 'audio/mpeg', data: OGG.toString('base64') } })).rejects.toMatchObject({
      code: 'NOT_SUPPORTED',
      message: expect.stringContaining('`convert`'),
    });
    expect(session.phone.sentTo(CONTACT)).toHaveLength(before);
  });

  it("a contact's file arrives as message with hasMedia and media whose URL is the kept file's, its bytes the file's", async () => {
    const id = session.phone.media(CONTACT, { type: 'document', mimetype: 'application/pdf', data: PDF, filename: 'plan.pdf', caption: 'the plan' });
    const message = await waitFor(() => named('message').find((p) => p.id === `false_${CONTACT}_${id}`), 'the file as message');
    const record = MessageRecord.parse(message);
    expect(record).toMatchObject({ hasMedia: true, fromMe: false, body: 'the plan', media: { mimetype: 'application/pdf', filename: 'plan.pdf' } });
    const stored = [...kept.files.values()].find((file) => record.media!.url === kept.urlFor(file.meta));
    expect(stored, `a kept file at ${record.media!.url}`).toBeDefined();
    expect(stored!.data.equals(PDF), 'the kept bytes are the file the contact sent').toBe(true);
    expect(named('message.any').find((p) => p.id === record.id)).toMatchObject({ media: record.media });
  });

  it("a contact's image and voice note: each kept with its bytes and type", async () => {
    for (const [file, check] of [
      [{ type: 'image', mimetype: 'image/png', data: PNG, caption: 'look' }, PNG],
      [{ type: 'ptt', mimetype: 'audio/ogg; codecs=opus', data: OGG }, OGG],
    ] as const) {
      const id = session.phone.media(CONTACT, file);
      const message = await waitFor(() => named('message').find((p) => p.id === `false_${CONTACT}_${id}`), `the ${file.type} as message`);
      const record = MessageRecord.parse(message);
      expect(record.media?.mimetype).toBe(file.mimetype);
      const stored = [...kept.files.values()].find((kept_) => record.media!.url === kept.urlFor(kept_.meta));
      expect(stored?.data.equals(check), `the kept ${file.type} is the file sent`).toBe(true);
    }
  });

  it("a contact's file larger than the host keeps: message with hasMedia and media null, nothing kept", async () => {
    const before = kept.files.size;
    const large = Buffer.alloc(MAX_KEPT + 1, 7);
    const id = session.phone.media(CONTACT, { type: 'document', mimetype: 'application/octet-stream', data: large, filename: 'large.bin' });
    const message = await waitFor(() => named('message').find((p) => p.id === `false_${CONTACT}_${id}`), 'the large file as message');
    expect(MessageRecord.parse(message)).toMatchObject({ hasMedia: true, media: null });
    expect(kept.files.size).toBe(before);
  });
});
