// Statuses through Chromium, for both browser engines on the fake WhatsApp Web: whatsapp-web.js
// posts them with WhatsApp Web's status actions (the page tells the servers of a status), wa-js
// (`WPP.status.sendTextStatus`, `sendImageStatus`, `sendVideoStatus`) sends them as messages to
// status@broadcast. A file is uploaded first and the status names its direct path; a text status
// carries its text, colour and font. Taking one back tells the servers it is revoked.
import { MessageRecord } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import type { FakeWebPhone } from '../fake-web/index.js';
import { pairedSuite, pairedWebjs, pairedWpp } from './paired-webjs.js';

const ME = { id: '15550001313@c.us', pushName: 'Status Tests' };
// A 1x1 PNG: real image bytes, so a mix-up of files or encodings shows.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a3e1f4e20000000049454e44ae426082',
  'hex',
);
// Bytes standing for an Ogg/Opus note and an MP4: the page posts files as they are.
const OGG = Buffer.concat([Buffer.from('OggS'), Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 7) % 256))]);
const MP4 = Buffer.concat([Buffer.from('\0\0\0\x18ftypmp42'), Buffer.from(Array.from({ length: 500 }, (_, i) => (i * 13) % 256))]);
const TEXT_ARGS = { linkPreview: false, linkPreviewHighQuality: false };

type Posted = Record<string, unknown> & { id: { id: string }; directPath?: string };
/** What a text status was posted with, as the API was asked (the colour as WhatsApp keeps it, ARGB). */
interface TextStatus {
  text: string;
  color: number;
  font: number;
}

describe.each([
  {
    engine: 'WEBJS',
    paired: pairedWebjs,
    // whatsapp-web.js posts a status with WhatsApp Web's status action, which the servers keep as a status.
    postedStatuses: (phone: FakeWebPhone) => phone.statuses as Posted[],
    textStatusId: /^true_status@broadcast_/,
    // WhatsApp Web posts a text status of its own making: the answer is that one, not the library's draft.
    textStatuses: (phone: FakeWebPhone): unknown[] => phone.statuses,
    textStatus: (record: MessageRecord, { text, color, font }: TextStatus): unknown => ({ type: 'text', id: record.id, text, color, font }),
    // The servers are told the status's id as the answer named it.
    revoked: (id: string) => id,
    // whatsapp-web.js sees its own revoke come back and reports it.
    revokeAnnounced: true,
  },
  {
    engine: 'WPP',
    paired: pairedWpp,
    // wa-js sends a status as a message to status@broadcast.
    postedStatuses: (phone: FakeWebPhone) => phone.sentTo('status@broadcast') as unknown as Posted[],
    textStatusId: /^true_status@broadcast_[0-9A-F]+$/,
    textStatuses: (phone: FakeWebPhone): unknown[] => phone.sent,
    textStatus: (record: MessageRecord, { text, color, font }: TextStatus): unknown =>
      expect.objectContaining({
        to: expect.objectContaining({ _serialized: 'status@broadcast' }),
        id: expect.objectContaining({ id: record.id.split('_')[2] }),
        body: text,
        font,
        backgroundColor: color,
      }),
    // wa-js revokes the status as WhatsApp Web keys it, with the account as its author.
    revoked: (id: string) => `${id}_${ME.id}`,
    // WPPConnect reports no revoke of the account's own status.
    revokeAnnounced: false,
  },
] as const)(
  '$engine statuses through Chromium',
  ({ engine, paired, postedStatuses, textStatusId, textStatuses, textStatus, revoked, revokeAnnounced }) => {
    const session = pairedSuite(paired, 'statuses', ME);
    const { payloads: named, run } = session;

    /** What the servers got for the record's status, and the upload its direct path names. */
    async function posted(record: MessageRecord) {
      expect(MessageRecord.parse(record)).toMatchObject({ fromMe: true, source: 'api', to: 'status@broadcast', hasMedia: true });
      expect(record.id).toMatch(/^true_status@broadcast_/);
      const status = await waitFor(
        () => postedStatuses(session.phone).find((candidate) => candidate.id.id === record.id.split('_')[2]),
        `the status ${record.id} posted`,
      );
      const upload = session.phone.uploads.find((candidate) => candidate.directPath === status.directPath);
      expect(upload, `an upload at the status's direct path ${String(status.directPath)}`).toBeDefined();
      await waitFor(() => named('message.any').some((p) => p.id === record.id), 'message.any for the status');
      return { status, upload: upload! };
    }

    it('an image status: the image uploaded, and the status posted with its direct path and caption', async () => {
      const record = await run<MessageRecord>({
        op: 'status.media',
        args: { kind: 'image', caption: 'the view', file: { mimetype: 'image/png', filename: 'view.png', data: PNG.toString('base64') } },
      });
      const { status, upload } = await posted(record);
      expect(status).toMatchObject({ type: 'image', caption: 'the view', mimetype: 'image/png' });
      expect(upload.data.equals(PNG), 'the uploaded bytes are the PNG posted').toBe(true);
    });

    it('a video status: the video uploaded, and the status posted as a video with its caption', async () => {
      const record = await run<MessageRecord>({
        op: 'status.media',
        args: {
          kind: 'video',
          caption: 'the clip',
          convert: false,
          file: { mimetype: 'video/mp4', filename: 'clip.mp4', data: MP4.toString('base64') },
        },
      });
      const { status, upload } = await posted(record);
      expect(status).toMatchObject({ type: 'video', caption: 'the clip', mimetype: 'video/mp4' });
      expect(upload.data.equals(MP4), 'the uploaded bytes are the MP4 posted').toBe(true);
    });

    it('a voice status: the Ogg/Opus bytes uploaded, and the status posted as a voice note', async () => {
      const record = await run<MessageRecord>({
        op: 'status.media',
        args: {
          kind: 'voice',
          convert: false,
          backgroundColor: '#38b42f',
          file: { mimetype: 'audio/ogg; codecs=opus', data: OGG.toString('base64') },
        },
      });
      const { status, upload } = await posted(record);
      expect(status).toMatchObject({ type: 'ptt' });
      expect(upload.data.equals(OGG), 'the uploaded bytes are the voice note posted').toBe(true);
    });

    it('status.delete takes back an image status, by the id its post answered', async () => {
      const record = await run<MessageRecord>({
        op: 'status.media',
        args: { kind: 'image', file: { mimetype: 'image/png', filename: 'gone.png', data: PNG.toString('base64') } },
      });
      await posted(record);
      await run({ op: 'status.delete', args: { id: record.id } });
      const id = record.id.split('_')[2]!;
      expect(session.phone.actions.filter((action) => action.type === 'status-revoke' && String(action.msgId).includes(id))).toHaveLength(1);
    });

    it.each([
      ['choosing who sees it (`contacts`)', 'contacts', { contacts: ['15552220001@c.us'] }],
      ['a pre-generated id (WhatsApp Web keys the status itself)', 'id', { id: '3EB0AAAABBBBCCCCDDDD' }],
    ])('%s is NOT_SUPPORTED naming the field; nothing is uploaded or posted', async (_what, field, refused) => {
      const [uploads, statuses] = [session.phone.uploads.length, postedStatuses(session.phone).length];
      await expect(
        run({ op: 'status.media', args: { kind: 'image', ...refused, file: { mimetype: 'image/png', data: PNG.toString('base64') } } }),
      ).rejects.toMatchObject({ code: 'NOT_SUPPORTED', details: { field } });
      expect([session.phone.uploads.length, postedStatuses(session.phone).length]).toEqual([uploads, statuses]);
    });

    it('a text status: the servers get it with its text, colour and font; answered and announced once as a message to status@broadcast', async () => {
      const record = await run<MessageRecord>({
        op: 'status.text',
        args: { text: 'Out of office', backgroundColor: '#38b42f', font: 2, ...TEXT_ARGS },
      });
      expect(record).toMatchObject({ fromMe: true, to: 'status@broadcast', body: 'Out of office', source: 'api' });
      expect(record.id).toMatch(textStatusId);
      expect(textStatuses(session.phone)).toContainEqual(textStatus(record, { text: 'Out of office', color: 0xff38b42f, font: 2 }));
      await waitFor(() => named('message.any').some((p) => p.id === record.id), 'message.any for the posted status');
      expect(named('message.any').filter((p) => p.to === 'status@broadcast' && p.body === 'Out of office')).toEqual([
        expect.objectContaining({ id: record.id, source: 'api' }),
      ]);
    });

    it('status.delete takes back a text status by the id its post answered: the servers are told it is revoked', async () => {
      const record = await run<MessageRecord>({
        op: 'status.text',
        args: { text: 'Back soon', backgroundColor: '#38b42f', font: 0, ...TEXT_ARGS },
      });
      await run({ op: 'status.delete', args: { id: record.id } });
      expect(session.phone.actions).toContainEqual({ type: 'status-revoke', msgId: revoked(record.id) });
      if (revokeAnnounced)
        await waitFor(
          () => named('message.revoked').some((p) => p.revokedMessageId === record.id.split('_').at(-1)),
          'message.revoked for the status',
        );
    });

    if (engine === 'WEBJS')
      it('status.delete of a status the account has not posted is a 404 and takes nothing back', async () => {
        const unknown = 'true_status@broadcast_3EB0000000000000DEAD';
        await expect(run({ op: 'status.delete', args: { id: unknown } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
        expect(session.phone.actions.filter((action) => action.type === 'status-revoke' && action.msgId === unknown)).toEqual([]);
      });

    if (engine === 'WPP') {
      it('a text status in a font wa-js does not post is a 400 naming font; nothing is posted', async () => {
        const sent = session.phone.sent.length;
        await expect(run({ op: 'status.text', args: { text: 'x', backgroundColor: '#000000', font: 7, ...TEXT_ARGS } })).rejects.toMatchObject({
          code: 'INVALID',
          message: expect.stringContaining('font'),
        });
        expect(session.phone.sent).toHaveLength(sent);
      });

      it('a text status choosing who sees it (`contacts`) is NOT_SUPPORTED: WhatsApp Web posts to whom the status privacy names; nothing is posted', async () => {
        const sent = session.phone.sent.length;
        await expect(
          run({ op: 'status.text', args: { text: 'x', backgroundColor: '#000000', font: 0, ...TEXT_ARGS, contacts: ['15552220001@c.us'] } }),
        ).rejects.toMatchObject({ code: 'NOT_SUPPORTED' });
        expect(session.phone.sent).toHaveLength(sent);
      });
    }
  },
);
