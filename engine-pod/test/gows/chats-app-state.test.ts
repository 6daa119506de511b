import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePhone, FakeWaServer } from '../fake-wa/index.js';
import { buildGows, closeChecked, fakeServerDriver, type GowsDriver, pairWithFake } from './driver.js';

/**
 * The chats' app state operations of the Go engine (engines/gows/internal/engine/chat-state.go) over its RPC,
 * against the fake server: whatsmeow's archive, markChatAsRead, deleteChat and clearChat patches,
 * which the fake decodes as the phone would, and `chat.archive` for an archive change, the
 * account's own or the phone's, and `engine.event` `chats.delete` for a chat the phone deletes; a chat's picture (`w:profile:picture`) and read receipts for its
 * unread messages.
 */
// A 2x1 PNG: the engine makes the square JPEG the service keeps of it.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAADUlEQVR4nGP4zwAE/wEHAAH/4iOeWQAAAABJRU5ErkJggg==';
const BOB = '15551270002';
const bob = `${BOB}@c.us`;
const bobJid = `${BOB}@s.whatsapp.net`;
let fake: FakeWaServer;
let gows: GowsDriver;
let phone: FakePhone;

beforeAll(async () => {
  let binary: string;
  [fake, binary] = await Promise.all([FakeWaServer.start({ signal: true }), buildGows()]);
  gows = fakeServerDriver(binary, fake, 'gows-chats');
  phone = await pairWithFake(gows, fake, 'gows-chats', { [BOB]: '245120000000012' });
}, 180_000);

afterAll(() => closeChecked(gows, fake));

/** The app state mutations the engine uploaded of one kind, for Bob's chat. */
const uploaded = async (kind: string) => {
  await phone.appState.settled();
  return phone.appState.uploaded.filter((u) => u.index[0] === kind && u.index[1] === bobJid);
};

describe('GOWS chats: app state patches against the fake', () => {
  it('archives and unarchives: archive patches the phone decodes, and chat.archive for each', async () => {
    const since = gows.notifications.length;
    await gows.request('archiveChat', { chatId: bob, archive: true });
    await gows.event('chat.archive', (p) => p.id === bob && p.archived === true, since);
    await gows.request('archiveChat', { chatId: bob, archive: false });
    await gows.event('chat.archive', (p) => p.id === bob && p.archived === false, since);
    expect((await uploaded('archive')).map((u) => u.action.archiveChatAction?.archived)).toEqual([true, false]);
    expect(await gows.failureCode('archiveChat', { chatId: bob })).toBe('INVALID');
  });

  it('emits chat.archive when the phone archives a chat', async () => {
    const since = gows.notifications.length;
    await phone.archive(BOB, true);
    expect(await gows.event('chat.archive', (p) => p.archived === true, since)).toMatchObject({ id: bob, archived: true });
  });

  it('marks unread, clears and deletes: markChatAsRead false, clearChat and deleteChat patches', async () => {
    await gows.request('markChatUnread', { chatId: bob });
    expect((await uploaded('markChatAsRead')).map((u) => u.action.markChatAsReadAction?.read)).toEqual([false]);
    await gows.request('clearMessages', { chatId: bob });
    expect(await uploaded('clearChat')).toHaveLength(1);
    await gows.request('deleteChat', { chatId: bob });
    expect(await uploaded('deleteChat')).toHaveLength(1);
    expect(await gows.failureCode('deleteChat', {})).toBe('INVALID');
  });

  it("stars and unstars a message: star patches the phone decodes, naming the chat, the sender and the message's id", async () => {
    await gows.request('star', { chatId: bob, messageId: `false_${bob}_3EB0STARRED`, star: true });
    await gows.request('star', { chatId: bob, messageId: `true_${bob}_3EB0MINE`, star: false });
    const stars = (await uploaded('star')).map((u) => [u.index, u.action.starAction?.starred]);
    expect(stars).toEqual([
      [['star', bobJid, '3EB0STARRED', '0', '0'], true],
      [['star', bobJid, '3EB0MINE', '1', '0'], false],
    ]);
    expect(await gows.failureCode('star', { chatId: bob, messageId: `false_${bob}_3EB0STARRED` })).toBe('INVALID');
  });

  it('relays a chat the phone deletes as engine.event chats.delete, which the history forgets (no interface event)', async () => {
    const since = gows.notifications.length;
    await phone.deleteChat(BOB);
    expect(await gows.event('engine.event', (p) => p.event === 'chats.delete', since)).toEqual({
      event: 'chats.delete',
      data: { items: [bobJid] },
    });
  });
});

describe('GOWS chats: the picture against the fake', () => {
  it("answers a chat's picture address, null for one the service does not show", async () => {
    expect(await gows.request('chatPicture', { chatId: bob, refresh: false })).toEqual({ url: null });
    await gows.request('setProfilePicture', { mimetype: 'image/png', filename: null, data: PNG });
    expect(await gows.request('chatPicture', { chatId: phone.contactId, refresh: true })).toEqual({ url: phone.profile.pictureUrl });
    expect(await gows.failureCode('chatPicture', {})).toBe('INVALID');
  });
});

describe('GOWS chats: read receipts against the fake', () => {
  it('marks the unread messages read, the newest `messages` of them first, and answers their ids', async () => {
    await gows.request('readChatMessages', { chatId: bob, days: 7 });
    const older = phone.text(BOB, 'unread one');
    const olderId = (await gows.event('message', (p) => p.body === 'unread one')).id;
    const newer = phone.text(BOB, 'unread two');
    const newerId = (await gows.event('message', (p) => p.body === 'unread two')).id;
    const before = phone.receiptsSent.length;
    expect(await gows.request('readChatMessages', { chatId: bob, messages: 1, days: 7 })).toEqual({ ids: [newerId] });
    expect(await gows.request('readChatMessages', { chatId: bob, days: 7 })).toEqual({ ids: [olderId] });
    const receipts = await waitFor(
      () => (phone.receiptsSent.slice(before).filter((r) => r.type === 'read').length >= 2 ? phone.receiptsSent.slice(before) : undefined),
      'two read receipts',
    );
    expect(receipts.filter((r) => r.type === 'read').flatMap((r) => r.ids)).toEqual([newer, older]);
    expect(await gows.request('readChatMessages', { chatId: bob, days: 7 })).toEqual({ ids: [] });
    expect(await gows.failureCode('readChatMessages', { chatId: bob })).toBe('INVALID');
  });
});
