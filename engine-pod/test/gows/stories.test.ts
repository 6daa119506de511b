import { randomBytes } from 'node:crypto';
import { MessageRecord, STATUS_CHAT } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakePhone, FakeWaServer } from '../fake-wa/index.js';
import type { FakeMediaServer } from '../fake-wa/media-server.js';
import { closeChecked, type GowsDriver, pairedWithMedia } from './driver.js';

// Status updates (stories) on GOWS: whatsmeow sends a status to `status@broadcast` as it sends to
// a group, the content once under the account's sender key (`skmsg`) and the key to every device
// of the viewers; the fake reads it back as a viewer's phone would (fake-wa/phone.ts, readStatus).

const [ALICE, BOB] = ['15551230031', '15551230032'];
let fake: FakeWaServer;
let media: FakeMediaServer;
let gows: GowsDriver;
let phone: FakePhone;

beforeAll(async () => {
  ({ fake, media, gows, phone } = await pairedWithMedia('gows', { [ALICE]: '245120000000031', [BOB]: '245120000000032' }));
}, 180_000);

afterAll(async () => {
  await closeChecked(gows, fake);
  await media?.close();
});

const idOf = (record: { id: string }) => record.id.split('_')[2]!;
const posted = (id: string) =>
  waitFor(() => phone.sent.some((m) => m.id === id && m.to === STATUS_CHAT), `status ${id} at the server`).then(() => phone.readStatus(id));

describe('GOWS status updates: sent with a sender key to the viewers, read back by the server', () => {
  it('sendTextStatus: white text on the colour in the font, for the contacts named and the account; message.any and the SERVER ack', async () => {
    const since = gows.notifications.length;
    const record = MessageRecord.parse(
      await gows.request('sendTextStatus', {
        text: 'Out for lunch',
        backgroundColor: '#112233',
        font: 2,
        contacts: [`${ALICE}@c.us`, `${BOB}@c.us`],
        linkPreview: true,
        linkPreviewHighQuality: false,
      }),
    );
    expect(record).toMatchObject({ id: `true_${STATUS_CHAT}_${idOf(record)}`, to: STATUS_CHAT, fromMe: true, source: 'api', body: 'Out for lunch' });
    expect(await gows.event('message.any', (p) => p.id === record.id, since)).toEqual(record);
    await gows.event('message.ack', (p) => p.id === record.id && p.ackName === 'SERVER', since);

    const status = await posted(idOf(record));
    expect(status.message.extendedTextMessage).toMatchObject({ text: 'Out for lunch', backgroundArgb: 0xff112233, textArgb: 0xffffffff, font: 2 });
    expect(status.recipients).toEqual([ALICE, BOB, phone.phone].sort());
  });

  it('without contacts: whatsmeow picks the viewers, the status privacy (contacts) over the address book: the named contacts', async () => {
    await gows.request('updateContact', { id: `${BOB}@c.us`, firstName: 'Bob', lastName: 'Builder' });
    await phone.appState.settled();
    await waitFor(
      async () => (await gows.request<{ name: string | null }>('contact', { id: `${BOB}@c.us` })).name === 'Bob Builder',
      'the name in the store',
    );
    const record = MessageRecord.parse(await gows.request('sendTextStatus', { text: 'to my contacts', font: 0 }));
    expect((await posted(idOf(record))).recipients).toEqual([BOB, phone.phone].sort());
  });

  it('a pre-generated id becomes the status id; a colour with alpha is ARGB', async () => {
    const id = await gows.request<string>('newMessageId');
    const record = MessageRecord.parse(
      await gows.request('sendTextStatus', { id, text: 'batch', backgroundColor: '#11223380', font: 0, contacts: [`${ALICE}@c.us`] }),
    );
    expect(record.id).toBe(`true_${STATUS_CHAT}_${id}`);
    const status = await posted(id);
    expect(status.message.extendedTextMessage?.backgroundArgb).toBe(0x80112233);
    expect(status.recipients).toEqual([ALICE, phone.phone].sort());
  });

  it('sendMediaStatus: an image with its caption, uploaded as a send is; a voice note on its colour', async () => {
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(2_000)]);
    const image = MessageRecord.parse(
      await gows.request('sendMediaStatus', {
        kind: 'image',
        file: { mimetype: 'image/png', filename: null, data: png.toString('base64') },
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
      await gows.request('sendMediaStatus', {
        kind: 'voice',
        file: { mimetype: 'audio/ogg; codecs=opus', filename: null, data: ogg.toString('base64') },
        backgroundColor: '#abcdef',
        contacts: [`${BOB}@c.us`],
      }),
    );
    const heard = await posted(idOf(voice));
    expect(heard.recipients).toEqual([BOB, phone.phone].sort());
    expect(heard.message.audioMessage).toMatchObject({ ptt: true, backgroundArgb: 0xffabcdef });
    expect((await media.open(heard.message.audioMessage!, 'audio')).equals(ogg)).toBe(true);
  });

  it('deleteStatus: a revoke of the status (edit 7) to its viewers, and message.revoked with the status as it was', async () => {
    const record = MessageRecord.parse(await gows.request('sendTextStatus', { text: 'soon gone', font: 0, contacts: [`${ALICE}@c.us`] }));
    const since = gows.notifications.length;
    await gows.request('deleteStatus', { id: record.id, contacts: [`${ALICE}@c.us`] });

    const revoke = phone.sent.filter((m) => m.to === STATUS_CHAT).at(-1)!;
    const read = await phone.readStatus(revoke.id);
    expect(read.edit).toBe('7');
    expect(read.recipients).toEqual([ALICE, phone.phone].sort());
    expect(read.message.protocolMessage).toMatchObject({ type: 0, key: { remoteJid: STATUS_CHAT, fromMe: true, id: idOf(record) } });
    expect(await gows.event('message.revoked', () => true, since)).toMatchObject({
      revokedMessageId: idOf(record),
      after: { to: STATUS_CHAT, fromMe: true, source: 'api' },
      before: { id: record.id, body: 'soon gone' },
    });
  });

  it('refuses a status without text or of another kind (INVALID)', async () => {
    expect(await gows.failureCode('sendTextStatus', { text: '' })).toBe('INVALID');
    expect(await gows.failureCode('sendMediaStatus', { kind: 'file', file: { mimetype: 'application/pdf', data: '' } })).toBe('INVALID');
    expect(await gows.failureCode('deleteStatus', {})).toBe('INVALID');
  });
});
