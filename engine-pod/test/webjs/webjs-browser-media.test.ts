// Sending files through Chromium: whatsapp-web.js's own media path (processMediaData: the file
// prepared, hashed and uploaded) on the fake WhatsApp Web, whose backend keeps the uploaded bytes.
// What the phone side received is checked against what was sent, and the API's answer against it.
import { type EventName, MessageRecord } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineHost, HostedEvent } from '../../src/index.js';
import type { FakeWebPhone } from '../fake-web/index.js';
import { type PairedWebjs, pairedWebjs } from './paired-webjs.js';

const ME = { id: '15550007777@c.us', pushName: 'Media Sender' };
const CONTACT = '15551113333@c.us';
// A 1x1 PNG: real image bytes, so a mix-up of files or encodings shows.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a3e1f4e20000000049454e44ae426082',
  'hex',
);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

describe('WEBJS sends files and statuses through Chromium: the bytes the phone side got are the file sent', () => {
  let host: EngineHost;
  let phone: FakeWebPhone;
  let session: PairedWebjs | undefined;
  const events: HostedEvent[] = [];
  const named = (name: EventName) => events.filter((e) => e.envelope.event === name).map((e) => e.envelope.payload);

  beforeAll(async () => {
    session = await pairedWebjs('media', ME, (event) => events.push(event));
    ({ host, phone } = session);
  });
  afterAll(() => session?.close());

  /** What the page sent for the record's message, and the upload its direct path names. */
  async function received(record: MessageRecord) {
    const sent = await waitFor(
      () => phone.sentTo(CONTACT).find((msg) => `true_${CONTACT}_${msg.id.id}` === record.id),
      `the page to send ${record.id}`,
    );
    const upload = phone.uploads.find((candidate) => candidate.directPath === sent.directPath);
    expect(upload, `an upload at the message's direct path ${String(sent.directPath)}`).toBeDefined();
    return { sent, upload: upload! };
  }

  it('an image with a caption: uploaded as the image it is, sent as an image message with its direct path', async () => {
    const record = (await host.execute({
      op: 'send.media',
      args: {
        chatId: CONTACT,
        kind: 'image',
        caption: 'a pixel',
        file: { mimetype: 'image/png', filename: 'pixel.png', data: PNG.toString('base64') },
      },
    })) as MessageRecord;
    expect(MessageRecord.parse(record)).toMatchObject({ fromMe: true, source: 'api', hasMedia: true, to: CONTACT, body: 'a pixel' });
    const { sent, upload } = await received(record);
    expect(upload.data.equals(PNG), 'the uploaded bytes are the PNG sent').toBe(true);
    expect(upload).toMatchObject({ mimetype: 'image/png', mediaType: 'image' });
    expect(sent).toMatchObject({ type: 'image', mimetype: 'image/png', caption: 'a pixel', size: PNG.length });
    expect(sent.mediaKey).toEqual(expect.any(String));
    await waitFor(() => named('message.any').some((p) => p.id === record.id), 'message.any for the image');
  });

  it('a file: sent as a document under its name, the uploaded bytes the file', async () => {
    const record = (await host.execute({
      op: 'send.media',
      args: {
        chatId: CONTACT,
        kind: 'file',
        caption: 'the report',
        file: { mimetype: 'application/pdf', filename: 'report.pdf', data: PDF.toString('base64') },
      },
    })) as MessageRecord;
    expect(MessageRecord.parse(record)).toMatchObject({ fromMe: true, hasMedia: true, to: CONTACT, body: 'the report' });
    const { sent, upload } = await received(record);
    expect(upload.data.equals(PDF), 'the uploaded bytes are the PDF sent').toBe(true);
    expect(upload).toMatchObject({ mimetype: 'application/pdf', mediaType: 'document' });
    expect(sent).toMatchObject({ type: 'document', mimetype: 'application/pdf', filename: 'report.pdf', caption: 'the report', size: PDF.length });
  });

  it('a text status: posted with its text, colour and font, answered as a message to status@broadcast', async () => {
    const record = (await host.execute({
      op: 'status.text',
      args: { text: 'Out of office', backgroundColor: '#38b42f', font: 2, linkPreview: false, linkPreviewHighQuality: false },
    })) as MessageRecord;
    expect(record).toMatchObject({ fromMe: true, to: 'status@broadcast', body: 'Out of office' });
    // WhatsApp Web posts a message of its own making: the answer is that one, not the library's draft.
    expect(phone.statuses).toContainEqual({ type: 'text', id: record.id, text: 'Out of office', color: 0xff38b42f, font: 2 });
    await waitFor(() => named('message.any').some((p) => p.id === record.id), 'message.any for the posted status');
    expect(named('message.any').filter((p) => p.to === 'status@broadcast' && p.body === 'Out of office')).toEqual([
      expect.objectContaining({ id: record.id, source: 'api' }),
    ]);
  });

  it('status.delete takes back the text status posted, by the id the post answered', async () => {
    const record = (await host.execute({
      op: 'status.text',
      args: { text: 'Back soon', backgroundColor: '#38b42f', font: 0, linkPreview: false, linkPreviewHighQuality: false },
    })) as MessageRecord;
    await host.execute({ op: 'status.delete', args: { id: record.id } });
    expect(phone.actions).toContainEqual({ type: 'status-revoke', msgId: record.id });
    await waitFor(() => named('message.revoked').some((p) => p.revokedMessageId === record.id.split('_').at(-1)), 'message.revoked for the status');
  });

  it('status.delete of a status the account has not posted is a 404 and takes nothing back', async () => {
    const unknown = 'true_status@broadcast_3EB0000000000000DEAD';
    await expect(host.execute({ op: 'status.delete', args: { id: unknown } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(phone.actions.filter((action) => action.type === 'status-revoke' && action.msgId === unknown)).toEqual([]);
  });

  it('an image sent as a file is a document, not an image', async () => {
    const record = (await host.execute({
      op: 'send.media',
      args: { chatId: CONTACT, kind: 'file', file: { mimetype: 'image/png', filename: 'pixel.png', data: PNG.toString('base64') } },
    })) as MessageRecord;
    const { sent, upload } = await received(record);
    expect(upload.data.equals(PNG)).toBe(true);
    expect(sent).toMatchObject({ type: 'document', filename: 'pixel.png' });
  });
});
