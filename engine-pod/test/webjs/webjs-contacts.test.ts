import { Contact, ContactAbout, ContactProfilePicture, WANumberExistResult } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { contactData } from './library-shapes.js';
import { webjsSession } from './harness.js';

// Contacts on WEBJS: the client's getContacts, getContactById, getNumberId and Contact's methods,
// the scripted client answering with the library's own Contact structures.

const ADA = '15550001111@c.us';
const STRANGER = '15559990000@c.us';

async function working() {
  const s = webjsSession();
  await s.working();
  s.client.contacts.set(ADA, contactData(ADA, { name: 'Ada Lovelace', shortName: 'Ada', pushname: 'ada', isWAContact: true, isMyContact: true }));
  s.client.registered.add(ADA);
  const run = <T>(command: Parameters<typeof s.host.execute>[0]) => s.host.execute(command) as Promise<T>;
  return { ...s, run };
}

describe('WEBJS contacts', () => {
  it('list and get: the library Contact as the protocol record', async () => {
    const s = await working();
    const list = await s.run<Contact[]>({ op: 'contacts.list' });
    const ada = {
      id: ADA,
      number: '15550001111',
      lid: null,
      name: 'Ada Lovelace',
      pushname: 'ada',
      shortName: 'Ada',
      isMe: false,
      isUser: true,
      isGroup: false,
      isWAContact: true,
      isMyContact: true,
      isBlocked: false,
    };
    expect(list.map((contact) => Contact.parse(contact))).toEqual([ada]);
    expect(Contact.parse(await s.run({ op: 'contacts.get', args: { contactId: ADA } }))).toEqual(ada);
    expect(s.client.calls).toContain(`getContactById ${ADA}`);
  });

  it('an id without an account: WhatsApp Web makes up a contact, the server says no, NOT_FOUND', async () => {
    const s = await working();
    await expect(s.run({ op: 'contacts.get', args: { contactId: STRANGER } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(s.client.calls).toContain(`isRegisteredUser ${STRANGER}`);
  });

  it('about and picture: Contact.getAbout and Client.getProfilePicUrl; none is null', async () => {
    const s = await working();
    expect(ContactAbout.parse(await s.run({ op: 'contacts.about', args: { contactId: ADA } }))).toEqual({ about: null });
    s.client.abouts.set(ADA, 'Counting');
    expect(await s.run({ op: 'contacts.about', args: { contactId: ADA } })).toEqual({ about: 'Counting' });
    expect(ContactProfilePicture.parse(await s.run({ op: 'contacts.picture', args: { contactId: ADA, refresh: false } }))).toEqual({
      profilePictureURL: null,
    });
    s.client.pictures.set(ADA, 'https://pps.whatsapp.net/v/t61/ada.jpg');
    expect(await s.run({ op: 'contacts.picture', args: { contactId: ADA, refresh: true } })).toEqual({
      profilePictureURL: 'https://pps.whatsapp.net/v/t61/ada.jpg',
    });
  });

  it('block and unblock: Contact.block / Contact.unblock', async () => {
    const s = await working();
    await s.run({ op: 'contacts.block', args: { contactId: ADA } });
    await s.run({ op: 'contacts.unblock', args: { contactId: ADA } });
    expect(s.client.calls.filter((call) => /block /.test(call))).toEqual([`block ${ADA}`, `unblock ${ADA}`]);
  });

  // Saving by number runs through Chromium (browser-contacts.test.ts); the fake's contacts have no LIDs.
  it('update: a LID without a known number is a 400', async () => {
    const s = await working();
    const lid = '987654321012345@lid';
    s.client.contacts.set(lid, contactData(lid, { isWAContact: true }));
    await expect(s.run({ op: 'contacts.update', args: { contactId: lid, firstName: 'X', lastName: '' } })).rejects.toMatchObject({ code: 'INVALID' });
  });

  it('check number: Client.getNumberId, the chat id when registered', async () => {
    const s = await working();
    expect(WANumberExistResult.parse(await s.run({ op: 'account.checkNumber', args: { phone: '15550001111' } }))).toEqual({
      numberExists: true,
      chatId: ADA,
    });
    expect(await s.run({ op: 'account.checkNumber', args: { phone: '15559990000' } })).toEqual({ numberExists: false });
    expect(s.client.calls).toContain('getNumberId 15559990000');
  });
});
