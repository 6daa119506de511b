import { describe, expect, it } from 'vitest';
import { pairedSessionForTests } from './harness.js';

/**
 * Issue 16's Contacts on NOWEB: the unmodified Baileys makes the queries (onWhatsApp,
 * profilePictureUrl, fetchStatus, the block list IQ) and the address book's app state patch.
 */
const paired = pairedSessionForTests();
const run = (command: Parameters<typeof paired.s.host.execute>[0]) => paired.s.host.execute(command);
const BOB = '15557770001@c.us';

describe('NOWEB contacts', () => {
  it('reads a registered contact; a number without an account is a 404', async () => {
    expect(await run({ op: 'contacts.get', args: { contactId: BOB } })).toMatchObject({
      id: BOB,
      number: '15557770001',
      isMe: false,
      isBlocked: false,
    });
    paired.fake.notOnWhatsApp('15557770009');
    await expect(run({ op: 'contacts.get', args: { contactId: '15557770009@c.us' } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a picture the service does not show is null, and so is an About text it does not send', async () => {
    expect(await run({ op: 'contacts.picture', args: { contactId: BOB, refresh: true } })).toEqual({ profilePictureURL: null });
    expect(await run({ op: 'contacts.about', args: { contactId: BOB } })).toEqual({ about: null });
  });

  it('blocks and unblocks with the block list query; the contact shows it', async () => {
    expect(await run({ op: 'contacts.block', args: { contactId: BOB } })).toEqual({ success: true });
    expect(await run({ op: 'contacts.get', args: { contactId: BOB } })).toMatchObject({ isBlocked: true });
    expect(((await run({ op: 'contacts.list' })) as { id: string }[]).map((c) => c.id)).toContain(BOB);
    expect(await run({ op: 'contacts.unblock', args: { contactId: BOB } })).toEqual({ success: true });
    expect(await run({ op: 'contacts.get', args: { contactId: BOB } })).toMatchObject({ isBlocked: false });
  });

  it('names a contact with a contactAction app state patch', async () => {
    expect(await run({ op: 'contacts.update', args: { contactId: BOB, firstName: 'Bob', lastName: 'Builder' } })).toEqual({ success: true });
    await paired.phone.appState.settled();
    expect(paired.phone.appState.uploaded.map((u) => u.action.contactAction?.fullName)).toContain('Bob Builder');
    expect(await run({ op: 'contacts.get', args: { contactId: BOB } })).toMatchObject({ name: 'Bob Builder', shortName: 'Bob', isMyContact: true });
  });
});
