// Statuses with a file through Chromium, for both browser engines on the fake WhatsApp Web:
// whatsapp-web.js posts them with WhatsApp Web's status actions (the page tells the servers of a
// status), wa-js (`WPP.status.sendImageStatus`, `sendVideoStatus`) sends them as messages to
// status@broadcast. Either way the file is uploaded first and the status names its direct path.
import { type EventName, MessageRecord } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineHost, HostedEvent } from '../../src/index.js';
import type { FakeWebPhone } from '../fake-web/index.js';
import { type PairedWebjs, pairedWebjs, pairedWpp } from './paired-webjs.js';

const ME = { id: '15550001313@c.us', pushName: 'Status Tests' };
// A 1x1 PNG: real image bytes, so a mix-up of files or encodings shows.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a3e1f4e20000000049454e44ae426082',
  'hex',
);
// Bytes standing for an Ogg/Opus note and an MP4: the page posts files as they are.
const OGG = Buffer.concat([Buffer.from('OggS'), Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 7) % 256))]);
const MP4 = Buffer.concat([Buffer.from('\0\0\0\x18ftypmp42'), Buffer.from(Array.from({ length: 500 }, (_, i) => (i * 13) % 256))]);

type Posted = Record<string, unknown> & { id: { id: string }; directPath?: string };

describe.each([
  // whatsapp-web.js posts a status with WhatsApp Web's status action, which the servers keep as a status.
  ['WEBJS', pairedWebjs, (phone: FakeWebPhone) => phone.statuses as Posted[]],
  // wa-js sends a status as a message to status@broadcast.
  ['WPP', pairedWpp, (phone: FakeWebPhone) => phone.sentTo('status@broadcast') as unknown as Posted[]],
] as const)('%s posts statuses with a file through Chromium: the bytes uploaded are the file', (_engine, paired, postedStatuses) => {
  let host: EngineHost;
  let phone: FakeWebPhone;
  let session: PairedWebjs | undefined;
  const events: HostedEvent[] = [];
  const named = (name: EventName) => events.filter((e) => e.envelope.event === name).map((e) => e.envelope.payload);

  beforeAll(async () => {
    session = await paired('statuses', ME, (event) => events.push(event));
    ({ host, phone } = session);
  });
  afterAll(() => session?.close());

  /** What the servers got for the record's status, and the upload its direct path names. */
  async function posted(record: MessageRecord) {
    expect(MessageRecord.parse(record)).toMatchObject({ fromMe: true, source: 'api', to: 'status@broadcast', hasMedia: true });
    expect(record.id).toMatch(/^true_status@broadcast_/);
    const status = await waitFor(
      () => postedStatuses(phone).find((candidate) => candidate.id.id === record.id.split('_')[2]),
      `the status ${record.id} posted`,
    );
    const upload = phone.uploads.find((candidate) => candidate.directPath === status.directPath);
    expect(upload, `an upload at the status's direct path ${String(status.directPath)}`).toBeDefined();
    await waitFor(() => named('message.any').some((p) => p.id === record.id), 'message.any for the status');
    return { status, upload: upload! };
  }

  it('an image status: the image uploaded, and the status posted with its direct path and caption', async () => {
    const record = (await host.execute({
      op: 'status.media',
      args: { kind: 'image', caption: 'the view', file: { mimetype: 'image/png', filename: 'view.png', data: PNG.toString('base64') } },
    })) as MessageRecord;
    const { status, upload } = await posted(record);
    expect(status).toMatchObject({ type: 'image', caption: 'the view', mimetype: 'image/png' });
    expect(upload.data.equals(PNG), 'the uploaded bytes are the PNG posted').toBe(true);
  });

  it('a video status: the video uploaded, and the status posted as a video with its caption', async () => {
    const record = (await host.execute({
      op: 'status.media',
      args: {
        kind: 'video',
        caption: 'the clip',
        convert: false,
        file: { mimetype: 'video/mp4', filename: 'clip.mp4', data: MP4.toString('base64') },
      },
    })) as MessageRecord;
    const { status, upload } = await posted(record);
    expect(status).toMatchObject({ type: 'video', caption: 'the clip', mimetype: 'video/mp4' });
    expect(upload.data.equals(MP4), 'the uploaded bytes are the MP4 posted').toBe(true);
  });

  it('a voice status: the Ogg/Opus bytes uploaded, and the status posted as a voice note', async () => {
    const record = (await host.execute({
      op: 'status.media',
      args: { kind: 'voice', convert: false, backgroundColor: '#38b42f', file: { mimetype: 'audio/ogg; codecs=opus', data: OGG.toString('base64') } },
    })) as MessageRecord;
    const { status, upload } = await posted(record);
    expect(status).toMatchObject({ type: 'ptt' });
    expect(upload.data.equals(OGG), 'the uploaded bytes are the voice note posted').toBe(true);
  });

  it('status.delete takes back an image status, by the id its post answered', async () => {
    const record = (await host.execute({
      op: 'status.media',
      args: { kind: 'image', file: { mimetype: 'image/png', filename: 'gone.png', data: PNG.toString('base64') } },
    })) as MessageRecord;
    await posted(record);
    await host.execute({ op: 'status.delete', args: { id: record.id } });
    const id = record.id.split('_')[2]!;
    expect(phone.actions.filter((action) => action.type === 'status-revoke' && String(action.msgId).includes(id))).toHaveLength(1);
  });

  it.each([
    ['choosing who sees it (`contacts`)', 'contacts', { contacts: ['15552220001@c.us'] }],
    ['a pre-generated id (WhatsApp Web keys the status itself)', 'id', { id: '3EB0AAAABBBBCCCCDDDD' }],
  ])('%s is NOT_SUPPORTED naming the field; nothing is uploaded or posted', async (_what, field, refused) => {
    const [uploads, statuses] = [phone.uploads.length, postedStatuses(phone).length];
    await expect(
      host.execute({ op: 'status.media', args: { kind: 'image', ...refused, file: { mimetype: 'image/png', data: PNG.toString('base64') } } }),
    ).rejects.toMatchObject({ code: 'NOT_SUPPORTED', details: { field } });
    expect([phone.uploads.length, postedStatuses(phone).length]).toEqual([uploads, statuses]);
  });
});
