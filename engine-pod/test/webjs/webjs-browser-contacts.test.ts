// Contacts and presence through Chromium: whatsapp-web.js's own contact, save, block, number-check,
// presence and chat-state code on the fake WhatsApp Web. What the servers were told is checked on
// the fake's side, and what they know in the API's answers.
import type { Contact } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineHost } from '../../src/index.js';
import type { FakeWebPhone } from '../fake-web/index.js';
import { type PairedWebjs, pairedWebjs } from './paired-webjs.js';

const ME = { id: '15550009999@c.us', pushName: 'Contacts Tests' };
const ADA = '15553330001@c.us';
const BOB = '15553330002@c.us';
const NOBODY = '15553339999@c.us';
// A 1x1 PNG: the library crops and re-encodes a picture in the page, so it must decode.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a3e1f4e20000000049454e44ae426082',
  'hex',
);

describe('WEBJS contacts and presence through Chromium', () => {
  let host: EngineHost;
  let phone: FakeWebPhone;
  let session: PairedWebjs | undefined;
  const run = <T>(command: Parameters<EngineHost['execute']>[0]) => host.execute(command) as Promise<T>;

  beforeAll(async () => {
    session = await pairedWebjs('contacts', ME);
    ({ host, phone } = session);
    phone.unregistered.add(NOBODY);
  });
  afterAll(() => session?.close());

  it("lists the phone's address book and gets one contact; a number with no account is NOT_FOUND", async () => {
    phone.contacts.addressBook([{ id: ADA, name: 'Ada Lovelace', pushname: 'Ada', shortName: 'Ada' }]);
    const listed = await waitFor(async () => (await run<Contact[]>({ op: 'contacts.list' })).find((c) => c.id === ADA), 'Ada in the list');
    const ada = { id: ADA, number: '15553330001', name: 'Ada Lovelace', pushname: 'Ada', isMyContact: true, isWAContact: true, isBlocked: false };
    expect(listed).toMatchObject({ ...ada, isUser: true, isGroup: false, isMe: false });
    expect(await run<Contact>({ op: 'contacts.get', args: { contactId: ADA } })).toMatchObject(ada);
    // Not in the address book, but on WhatsApp: found, by asking the server.
    expect(await run<Contact>({ op: 'contacts.get', args: { contactId: BOB } })).toMatchObject({ id: BOB, isMyContact: false });
    await expect(run({ op: 'contacts.get', args: { contactId: NOBODY } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('reads the About text and the profile picture the servers have; none is null', async () => {
    phone.contacts.setAbout(ADA, 'Counting engines');
    phone.contacts.setPicture(ADA, 'https://pps.whatsapp.net/v/t61/ada.jpg');
    expect(await run({ op: 'contacts.about', args: { contactId: ADA } })).toEqual({ about: 'Counting engines' });
    expect(await run({ op: 'contacts.about', args: { contactId: BOB } })).toEqual({ about: null });
    expect(await run({ op: 'contacts.picture', args: { contactId: ADA, refresh: false } })).toEqual({
      profilePictureURL: 'https://pps.whatsapp.net/v/t61/ada.jpg',
    });
    expect(await run({ op: 'contacts.picture', args: { contactId: BOB, refresh: false } })).toEqual({ profilePictureURL: null });
  });

  it("sets the account's About text and picture, then removes the picture: the server has the text, the JPEG the library made, then no picture", async () => {
    await run({ op: 'profile.setStatus', args: { status: 'Answering through the gateway' } });
    expect(phone.contacts.myAbout).toBe('Answering through the gateway');
    await run({ op: 'profile.setPicture', args: { file: { mimetype: 'image/png', data: PNG.toString('base64') } } });
    expect(phone.contacts.pictureUploads).toEqual([{ id: ME.id, picture: expect.stringMatching(/^data:image\/jpeg;base64,/) }]);
    expect(await run({ op: 'profile.get' })).toMatchObject({ picture: expect.stringContaining('https://pps.whatsapp.net/') });
    await run({ op: 'profile.deletePicture' });
    expect(await run({ op: 'contacts.picture', args: { contactId: ME.id, refresh: false } })).toEqual({ profilePictureURL: null });
  });

  it("renames the account: the servers have the new name, and the profile and the session's me say it", async () => {
    await run({ op: 'profile.setName', args: { name: 'Renamed Tests' } });
    expect(phone.names).toEqual(['Renamed Tests']);
    expect(await run({ op: 'profile.get' })).toMatchObject({ id: ME.id, name: 'Renamed Tests' });
    expect(host.me).toMatchObject({ pushName: 'Renamed Tests' });
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

  it("saves a contact: the servers have the name WhatsApp Web made of the first and last names, synced to the phone's address book", async () => {
    await run({ op: 'contacts.update', args: { contactId: BOB, firstName: 'Bob', lastName: 'Builder' } });
    expect(phone.contacts.saved.get(BOB)).toEqual({ fullName: 'Bob Builder', shortName: 'Bob', syncToAddressbook: true });
    const bob = await waitFor(async () => {
      const contact = await run<Contact>({ op: 'contacts.get', args: { contactId: BOB } });
      return contact.name === 'Bob Builder' ? contact : null;
    }, "Bob's new name");
    expect(bob).toMatchObject({ id: BOB, name: 'Bob Builder', isMyContact: true });
    await run({ op: 'contacts.update', args: { contactId: BOB, firstName: 'Robert', lastName: '' } });
    expect(phone.contacts.saved.get(BOB)).toMatchObject({ fullName: 'Robert', shortName: 'Robert' });
  });

  it('checks numbers with the server: one on WhatsApp has its chat id, one not is numberExists false', async () => {
    expect(await run({ op: 'account.checkNumber', args: { phone: '15553330002' } })).toEqual({ numberExists: true, chatId: BOB });
    expect(await run({ op: 'account.checkNumber', args: { phone: '15553339999' } })).toEqual({ numberExists: false });
  });

  it('sets the presence online and offline: the server is told available, then unavailable', async () => {
    await run({ op: 'presence.set', args: { presence: 'online' } });
    await run({ op: 'presence.set', args: { presence: 'offline' } });
    expect(phone.contacts.presences).toEqual(['available', 'unavailable']);
  });

  it('typing, recording and paused in a chat reach the server as chat states of that chat', async () => {
    await run({ op: 'chat.typing', args: { chatId: ADA, typing: true } });
    // The library sends the state without waiting for it.
    await waitFor(() => phone.contacts.chatStates.length === 1, 'the typing state');
    await run({ op: 'presence.set', args: { chatId: ADA, presence: 'recording' } });
    await waitFor(() => phone.contacts.chatStates.length === 2, 'the recording state');
    await run({ op: 'chat.typing', args: { chatId: ADA, typing: false } });
    await waitFor(() => phone.contacts.chatStates.length === 3, 'the paused state');
    expect(phone.contacts.chatStates).toEqual([
      { chat: ADA, state: 'composing' },
      { chat: ADA, state: 'recording' },
      { chat: ADA, state: 'paused' },
    ]);
  });
});
