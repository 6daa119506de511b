import { randomBytes } from 'node:crypto';
import { EngineCommand, MessageRecord, STATUS_CHAT } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakePhone } from '../fake-wa/index.js';
import type { FakeMediaServer } from '../fake-wa/media-server.js';
import { ALICE, type NowebSession } from './harness.js';
import { mediaSessionForTests } from './media-session.js';

// Status updates (stories) on NOWEB: the unmodified Baileys sends a status to `status@broadcast`
// as it sends to a group, the content once under the account's sender key (`skmsg`) and the key
// to every device of the viewers (`participants`); the fake reads it back as a viewer's phone
// would (test/fake-wa/phone.ts, readStatus).

const paired = mediaSessionForTests('noweb-stories');
let media: FakeMediaServer;
let s: NowebSession;
let phone: FakePhone;
const BOB = '15551230002';

beforeAll(() => {
  ({ media, s, phone } = paired);
});

const idOf = (record: { id: string }) => record.id.split('_')[2]!;
/** As the gateway hands a command on: parsed with the protocol's schema, defaults filled in. */
const execute = async (op: string, args: Record<string, unknown>) => s.host.execute(EngineCommand.parse({ op, args }));
const posted = (id: string) =>
  waitFor(() => phone.sent.some((m) => m.id === id && m.to === STATUS_CHAT), `status ${id} at the server`).then(() => phone.readStatus(id));

describe('NOWEB status updates: sent with a sender key to the viewers, read back by the server', () => {
  it('status.text: white text on the colour in the font, for the contacts named and the account', async () => {
    const since = s.events.length;
    const record = MessageRecord.parse(
      await execute('status.text', { text: 'Out for lunch', backgroundColor: '#112233', font: 2, contacts: [`${ALICE}@c.us`, `${BOB}@c.us`] }),
    );
    expect(record).toMatchObject({ id: `true_${STATUS_CHAT}_${idOf(record)}`, to: STATUS_CHAT, fromMe: true, source: 'api', body: 'Out for lunch' });
    expect((await s.waitForEvent('message.any', (p) => p.id === record.id, since)).payload).toEqual(record);
    await s.waitForEvent('message.ack', (p) => p.id === record.id && p.ackName === 'SERVER', since);

    const status = await posted(idOf(record));
    expect(status.message.extendedTextMessage).toMatchObject({ text: 'Out for lunch', backgroundArgb: 0xff112233, textArgb: 0xffffffff, font: 2 });
    expect(status.recipients).toEqual([ALICE, BOB, phone.phone].sort());
  });

  it('status.media: an image with its caption, uploaded as a send is; a voice note on its colour', async () => {
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEklEQVR4nGP4z8CAFWEXHbQSACj/P8Fu7N9hAAAAAElFTkSuQmCC', 'base64');
    const image = MessageRecord.parse(
      await execute('status.media', {
        kind: 'image',
        file: { mimetype: 'image/png', data: png.toString('base64') },
        caption: 'view',
        contacts: [`${ALICE}@c.us`],
      }),
    );
    expect(image).toMatchObject({ to: STATUS_CHAT, body: 'view', hasMedia: true, media: { mimetype: 'image/png' } });
    const seen = await posted(idOf(image));
    expect(seen.recipients).toEqual([ALICE, phone.phone].sort());
    expect(seen.message.imageMessage).toMatchObject({ mimetype: 'image/png', caption: 'view' });
    expect((await media.open(seen.message.imageMessage!, 'image')).equals(png)).toBe(true);

    const ogg = Buffer.concat([Buffer.from('OggS'), randomBytes(2_000)]);
    const voice = MessageRecord.parse(
      await execute('status.media', {
        kind: 'voice',
        file: { mimetype: 'audio/ogg; codecs=opus', data: ogg.toString('base64') },
        backgroundColor: '#abcdef',
        contacts: [`${BOB}@c.us`],
      }),
    );
    const heard = await posted(idOf(voice));
    expect(heard.recipients).toEqual([BOB, phone.phone].sort());
    expect(heard.message.audioMessage).toMatchObject({ ptt: true, backgroundArgb: 0xffabcdef });
    expect((await media.open(heard.message.audioMessage!, 'audio')).equals(ogg)).toBe(true);
  });

  it('status.delete: a revoke of the status (edit 7) to its viewers, and message.revoked', async () => {
    const record = MessageRecord.parse(await execute('status.text', { text: 'soon gone', contacts: [`${ALICE}@c.us`] }));
    const since = s.events.length;
    expect(await execute('status.delete', { id: record.id, contacts: [`${ALICE}@c.us`] })).toEqual({ success: true });

    const revoke = phone.sent.filter((m) => m.to === STATUS_CHAT).at(-1)!;
    const read = await phone.readStatus(revoke.id);
    expect(read.edit).toBe('7');
    expect(read.recipients).toEqual([ALICE, phone.phone].sort());
    expect(read.message.protocolMessage).toMatchObject({ type: 0, key: { remoteJid: STATUS_CHAT, fromMe: true, id: idOf(record) } });
    // Its envelope parses with the event's schema (the harness checks every one).
    const revoked = await s.waitForEvent('message.revoked', () => true, since);
    expect(revoked.payload).toMatchObject({
      revokedMessageId: idOf(record),
      after: { to: STATUS_CHAT, fromMe: true, source: 'api' },
      before: { id: record.id, body: 'soon gone' },
    });
  });
});
