// Contacts and the account's profile on WPP through Chromium: WPPConnect's and wa-js's own
// contact, number-check, About, picture, block-list and profile code on the fake WhatsApp Web. What the servers were told is checked on
// the fake's side, and what they know in the API's answers.
import type { Contact } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineHost } from '../../src/index.js';
import type { FakeWebPhone } from '../fake-web/index.js';
import { type PairedWebjs, pairedWpp } from '../webjs/paired-webjs.js';

const ME = { id: '15550002626@c.us', pushName: 'WPP Contact Tests' };
const ADA = '15552626001@c.us';
const BOB = '15552626002@c.us';
const NOBODY = '15552626999@c.us';
// A 1x1 PNG: WPPConnect re-encodes a picture as JPEG, so it must decode.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a3e1f4e20000000049454e44ae426082',
  'hex',
);

describe('WPP contacts and profile through Chromium', () => {
  let host: EngineHost;
  let phone: FakeWebPhone;
  let session: PairedWebjs | undefined;
  const run = <T>(command: Parameters<EngineHost['execute']>[0]) => host.execute(command) as Promise<T>;

  beforeAll(async () => {
    session = await pairedWpp('wpp-contacts', ME);
    ({ host, phone } = session);
    phone.unregistered.add(NOBODY);
  });
  afterAll(() => session?.close());

  it("lists the phone's address book and gets one contact; one on WhatsApp but not in the book is found; a number with no account is NOT_FOUND", async () => {
    phone.contacts.addressBook([{ id: ADA, name: 'Ada Lovelace', pushname: 'Ada', shortName: 'Ada' }]);
    const listed = await waitFor(async () => (await run<Contact[]>({ op: 'contacts.list' })).find((c) => c.id === ADA), 'Ada in the list');
    const ada = { id: ADA, number: '15552626001', name: 'Ada Lovelace', pushname: 'Ada', isMyContact: true, isWAContact: true, isBlocked: false };
    expect(listed).toMatchObject({ ...ada, isUser: true, isGroup: false, isMe: false });
    expect(await run<Contact>({ op: 'contacts.get', args: { contactId: ADA } })).toMatchObject(ada);
    expect(await run<Contact>({ op: 'contacts.get', args: { contactId: BOB } })).toMatchObject({ id: BOB, isMyContact: false });
    await expect(run({ op: 'contacts.get', args: { contactId: NOBODY } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('reads the About text and the profile picture the servers have; none is null', async () => {
    phone.contacts.setAbout(ADA, 'Counting engines');
    phone.contacts.setPicture(ADA, 'https://pps.whatsapp.net/v/t61/ada.jpg');
    expect(await run({ op: 'contacts.about', args: { contactId: ADA } })).toEqual({ about: 'Counting engines' });
    expect(await run({ op: 'contacts.about', args: { contactId: BOB } })).toEqual({ about: null });
    // The servers tell the page of the new picture; WPPConnect answers what the page was told.
    const picture = () => run<{ profilePictureURL: string | null }>({ op: 'contacts.picture', args: { contactId: ADA, refresh: false } });
    await waitFor(async () => (await picture()).profilePictureURL !== null, "Ada's picture");
    expect(await run({ op: 'contacts.picture', args: { contactId: ADA, refresh: false } })).toEqual({
      profilePictureURL: 'https://pps.whatsapp.net/v/t61/ada.jpg',
    });
    expect(await run({ op: 'contacts.picture', args: { contactId: BOB, refresh: false } })).toEqual({ profilePictureURL: null });
  });

  it('blocks and unblocks: the server has the block list, and the contact says isBlocked', async () => {
    await run({ op: 'contacts.block', args: { contactId: ADA } });
    expect([...phone.contacts.blocked]).toEqual([ADA]);
    expect(await run<Contact>({ op: 'contacts.get', args: { contactId: ADA } })).toMatchObject({ isBlocked: true });
    await run({ op: 'contacts.unblock', args: { contactId: ADA } });
    expect([...phone.contacts.blocked]).toEqual([]);
    expect(phone.contacts.blockChanges).toEqual([
      { id: ADA, blocked: true },
      { id: ADA, blocked: false },
    ]);
    expect(await run<Contact>({ op: 'contacts.get', args: { contactId: ADA } })).toMatchObject({ isBlocked: false });
  });

  it('a group cannot be blocked: INVALID, and the server is told nothing', async () => {
    await expect(run({ op: 'contacts.block', args: { contactId: '120363000000000001@g.us' } })).rejects.toMatchObject({ code: 'INVALID' });
    expect(phone.contacts.blockChanges).toHaveLength(2);
  });

  it('checks numbers with the server: one on WhatsApp has its chat id, one not is numberExists false', async () => {
    expect(await run({ op: 'account.checkNumber', args: { phone: '15552626002' } })).toEqual({ numberExists: true, chatId: BOB });
    expect(await run({ op: 'account.checkNumber', args: { phone: '15552626999' } })).toEqual({ numberExists: false });
  });

  it('saving a contact is not something WPPConnect does: 422 NOT_SUPPORTED, naming the engine', async () => {
    await expect(run({ op: 'contacts.update', args: { contactId: BOB, firstName: 'Bob', lastName: 'Builder' } })).rejects.toMatchObject({
      code: 'NOT_SUPPORTED',
      message: expect.stringContaining('WPP'),
    });
  });

  it("sets the account's About text and picture, then removes the picture: the server has the text, a JPEG, then no picture", async () => {
    await run({ op: 'profile.setStatus', args: { status: 'Answering through the gateway' } });
    expect(phone.contacts.myAbout).toBe('Answering through the gateway');
    expect(await run({ op: 'profile.get' })).toEqual({ id: ME.id, name: ME.pushName, picture: null });
    await run({ op: 'profile.setPicture', args: { file: { mimetype: 'image/png', data: PNG.toString('base64') } } });
    expect(phone.contacts.pictureUploads).toEqual([{ id: ME.id, picture: expect.stringMatching(/^data:image\/jpeg;base64,/) }]);
    expect(await run({ op: 'profile.get' })).toMatchObject({ picture: expect.stringContaining('https://pps.whatsapp.net/') });
    await run({ op: 'profile.deletePicture' });
    expect(await run({ op: 'contacts.picture', args: { contactId: ME.id, refresh: false } })).toEqual({ profilePictureURL: null });
  });

  it("renames the account: the servers have the new name, and the profile and the session's me say it", async () => {
    await run({ op: 'profile.setName', args: { name: 'Renamed WPP Tests' } });
    expect(phone.names).toEqual(['Renamed WPP Tests']);
    expect(await run({ op: 'profile.get' })).toMatchObject({ id: ME.id, name: 'Renamed WPP Tests' });
    expect(host.me).toMatchObject({ pushName: 'Renamed WPP Tests' });
  });
});
