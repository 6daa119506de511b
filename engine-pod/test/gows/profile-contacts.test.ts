import { Contact } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePhone, FakeWaServer } from '../fake-wa/index.js';
import { buildGows, closeChecked, fakeServerDriver, type GowsDriver, pairWithFake } from './driver.js';

/**
 * The profile's name and picture, the Contacts operations and group pictures of the Go engine
 * (engines/gows/internal/engine/profile.go, pictures.go, contacts.go) over its RPC, against the fake server:
 * whatsmeow's app state patch, `w:profile:picture`, usync and `blocklist` queries.
 */
const BOB = '15551270002';
const bob = `${BOB}@c.us`;
// A 2x1 PNG: the engine makes the square JPEG the service keeps of it.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAADUlEQVR4nGP4zwAE/wEHAAH/4iOeWQAAAABJRU5ErkJggg==';
let fake: FakeWaServer;
let gows: GowsDriver;
let phone: FakePhone;

beforeAll(async () => {
  let binary: string;
  [fake, binary] = await Promise.all([FakeWaServer.start({ signal: true }), buildGows()]);
  gows = fakeServerDriver(binary, fake, 'gows-contacts');
  phone = await pairWithFake(gows, fake, 'gows-contacts');
}, 180_000);

afterAll(() => closeChecked(gows, fake));

describe('GOWS profile against the fake', () => {
  it('sets the picture: the server gets a square JPEG, and the profile answers its address', async () => {
    await gows.request('setProfilePicture', { mimetype: 'image/png', filename: null, data: PNG });
    const picture = phone.profile.picture;
    expect(picture?.jpeg.subarray(0, 2).toString('hex')).toBe('ffd8');
    expect(await gows.request('profile')).toMatchObject({ picture: phone.profile.pictureUrl });
  });

  it('removes the picture', async () => {
    await gows.request('deleteProfilePicture');
    expect(phone.profile.picture).toBeNull();
    expect(await gows.request('profile')).toMatchObject({ picture: null });
  });

  it('refuses a file that is not an image', async () => {
    expect(await gows.failureCode('setProfilePicture', { mimetype: 'text/plain', data: Buffer.from('hello').toString('base64') })).toBe('INVALID');
  });

  it('sets the name with an app state patch; me and the profile follow', async () => {
    await gows.request('setProfileName', { name: 'Ada L.' });
    await phone.appState.settled();
    expect(phone.appState.uploaded.map((u) => u.action.pushNameSetting?.name)).toContain('Ada L.');
    expect(await gows.request('profile')).toMatchObject({ name: 'Ada L.' });
  });
});

describe('GOWS contacts against the fake', () => {
  it('reads a registered contact; a number without an account is NOT_FOUND', async () => {
    // Every contact answered is the protocol's Contact, as the host checks it.
    expect(Contact.parse(await gows.request('contact', { id: bob }))).toMatchObject({
      id: bob,
      number: BOB,
      isMe: false,
      isBlocked: false,
      isUser: true,
    });
    expect(Contact.parse(await gows.request('contact', { id: phone.contactId }))).toMatchObject({ isMe: true });
    fake.notOnWhatsApp('15551270009');
    expect(await gows.failureCode('contact', { id: '15551270009@c.us' })).toBe('NOT_FOUND');
  });

  it('reads the About text (usync status); none is null', async () => {
    expect(await gows.request('contactAbout', { id: bob })).toBeNull();
    fake.about(BOB, 'At sea');
    expect(await gows.request('contactAbout', { id: bob })).toBe('At sea');
  });

  it('reads a picture: the own account’s address once set, null for one the service does not show', async () => {
    expect(await gows.request('contactPicture', { id: bob })).toBeNull();
    await gows.request('setProfilePicture', { mimetype: 'image/png', data: PNG });
    expect(await gows.request('contactPicture', { id: phone.contactId })).toBe(phone.profile.pictureUrl);
  });

  it('blocks and unblocks with the block list query; the contact and the list show it', async () => {
    await gows.request('setBlocked', { id: bob, blocked: true });
    expect([...phone.profile.blocked]).toEqual([`${BOB}@s.whatsapp.net`]);
    expect(await gows.request('contact', { id: bob })).toMatchObject({ isBlocked: true });
    const listed = await gows.request<{ id: string; isBlocked: boolean }[]>('contacts');
    expect(listed.find((contact) => contact.id === bob)).toMatchObject({ isBlocked: true });
    await gows.request('setBlocked', { id: bob, blocked: false });
    expect(phone.profile.blocked.size).toBe(0);
    expect(await gows.request('contact', { id: bob })).toMatchObject({ isBlocked: false });
  });

  it('names a contact with a contactAction app state patch, which whatsmeow fetches back into its store', async () => {
    await gows.request('updateContact', { id: bob, firstName: 'Bob', lastName: 'Builder' });
    await phone.appState.settled();
    expect(phone.appState.uploaded.map((u) => u.action.contactAction?.fullName)).toContain('Bob Builder');
    expect(Contact.parse(await gows.request('contact', { id: bob }))).toMatchObject({ name: 'Bob Builder', shortName: 'Bob', isMyContact: true });
  });

  it('lists the contacts the store knows: a sender’s push name', async () => {
    phone.text('15551270003', 'hi', { pushName: 'Carol' });
    await waitFor(() => gows.notifications.some((n) => n.method === 'event' && n.params.event === 'message'), 'the message');
    const listed = Contact.array().parse(await gows.request('contacts'));
    expect(listed).toContainEqual(expect.objectContaining({ id: '15551270003@c.us', pushname: 'Carol', isMyContact: false }));
  });
});

describe('GOWS group pictures against the fake', () => {
  it('sets (the server gets it), reads (its address) and removes a group’s picture', async () => {
    const group = await gows.request<{ id: string }>('createGroup', { name: 'Pics', participants: [{ id: bob }] });
    expect(await gows.request('groupPicture', { id: group.id, refresh: false })).toBeNull();
    await gows.request('setGroupPicture', { id: group.id, file: { mimetype: 'image/png', data: PNG } });
    const kept = fake.groupById(group.id)!.picture;
    expect(kept).not.toBeNull();
    expect(await gows.request('groupPicture', { id: group.id, refresh: true })).toBe(
      `https://pps.whatsapp.net/v/t61/${group.id.split('@')[0]}_${kept}.jpg`,
    );
    await gows.request('deleteGroupPicture', { id: group.id });
    expect(fake.groupById(group.id)!.picture).toBeNull();
    expect(await gows.request('groupPicture', { id: group.id, refresh: true })).toBeNull();
  });
});
