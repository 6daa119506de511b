import type { ChatPresences, MessageRecord, ReadChatMessagesResponse } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { proto } from '@whiskeysockets/baileys';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakePhone } from '../fake-wa/index.js';
import { ALICE, type NowebSession, pairedSessionForTests } from './harness.js';

// The chats operations, presence and event messages on NOWEB: the unmodified Baileys speaks to the
// fake WhatsApp Web server, which decodes the app state patches the client uploads and decrypts
// the messages it sends as the recipient's device would.

const paired = pairedSessionForTests();
let s: NowebSession;
let phone: FakePhone;
const alice = `${ALICE}@c.us`;
const aliceJid = `${ALICE}@s.whatsapp.net`;

beforeAll(() => {
  ({ s, phone } = paired);
});

const run = <T = unknown>(command: Parameters<NowebSession['host']['execute']>[0]) => s.host.execute(command) as Promise<T>;
const idOf = (fullId: string) => fullId.split('_')[2]!;
const fromAlice = async (text: string): Promise<string> => {
  phone.text(ALICE, text);
  return (await s.waitForEvent('message', (p) => p.body === text)).payload.id as string;
};
/** What the recipient's device reads of the message the client sent last, once it sent one after `before`. */
const lastSent = async (before: number): Promise<proto.IMessage> => {
  const sent = await waitFor(() => (phone.sent.length > before ? phone.sent.at(-1) : undefined), 'a message to the phone');
  return phone.read(sent.id);
};
/** The app state mutations the client uploaded of one kind, for Alice's chat. */
const uploaded = async (kind: string) => {
  await phone.appState.settled();
  return phone.appState.uploaded.filter((u) => u.index[0] === kind && u.index[1] === aliceJid);
};

describe('NOWEB chats: app state patches (archive, unread, clear, delete)', () => {
  it('chat.archive: an archive patch the phone decodes, and chat.archive as when the phone archives', async () => {
    await fromAlice('archive this chat');
    const since = s.events.length;
    await run({ op: 'chat.archive', args: { chatId: alice, archive: true } });
    await run({ op: 'chat.archive', args: { chatId: alice, archive: false } });
    expect((await uploaded('archive')).map((u) => u.action.archiveChatAction?.archived)).toEqual([true, false]);
    await s.waitForEvent('chat.archive', (p) => p.id === alice && p.archived === true, since);
    await s.waitForEvent('chat.archive', (p) => p.id === alice && p.archived === false, since);
  });

  it('chat.unread, chat.clearMessages and chat.delete: markChatAsRead false, clearChat and deleteChat patches', async () => {
    await run({ op: 'chat.unread', args: { chatId: alice } });
    expect((await uploaded('markChatAsRead')).map((u) => u.action.markChatAsReadAction?.read)).toEqual([false]);
    await run({ op: 'chat.clearMessages', args: { chatId: alice } });
    expect(await uploaded('clearChat')).toHaveLength(1);
    await run({ op: 'chat.delete', args: { chatId: alice } });
    expect(await uploaded('deleteChat')).toHaveLength(1);
  });
});

describe('NOWEB chats: read receipts and the picture', () => {
  it('chat.read sends read receipts for the unread messages (the newest `messages` of them) and answers their ids', async () => {
    await run({ op: 'chat.read', args: { chatId: alice, days: 7 } });
    const older = await fromAlice('unread one');
    const newer = await fromAlice('unread two');
    const before = phone.receiptsSent.length;
    const first = await run<ReadChatMessagesResponse>({ op: 'chat.read', args: { chatId: alice, messages: 1, days: 7 } });
    expect(first).toEqual({ ids: [newer] });
    const rest = await run<ReadChatMessagesResponse>({ op: 'chat.read', args: { chatId: alice, days: 7 } });
    expect(rest).toEqual({ ids: [older] });
    const receipts = await waitFor(
      () => (phone.receiptsSent.slice(before).filter((r) => r.type === 'read').length >= 2 ? phone.receiptsSent.slice(before) : undefined),
      'two read receipts',
    );
    expect(receipts.filter((r) => r.type === 'read').flatMap((r) => r.ids)).toEqual([idOf(newer), idOf(older)]);
    expect(await run({ op: 'chat.read', args: { chatId: alice, days: 7 } })).toEqual({ ids: [] });
  });

  it('chat.picture: null for a contact whose picture the server does not give (404)', async () => {
    expect(await run({ op: 'chat.picture', args: { chatId: alice, refresh: false } })).toEqual({ url: null });
  });
});

describe('NOWEB messages: edit, delete for everyone, pin, event messages', () => {
  it('message.edit: a MESSAGE_EDIT protocol message the recipient decrypts, and message.edited with the new text', async () => {
    const sent = await run<MessageRecord>({ op: 'send.text', args: { chatId: alice, text: 'helo', linkPreview: false } });
    const before = phone.sent.length;
    const since = s.events.length;
    await run({ op: 'message.edit', args: { chatId: alice, messageId: sent.id, text: 'hello', linkPreview: false, linkPreviewHighQuality: false } });
    const read = await lastSent(before);
    expect(read.protocolMessage).toMatchObject({ type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT, key: { id: idOf(sent.id), fromMe: true } });
    expect(read.protocolMessage?.editedMessage?.conversation).toBe('hello');
    const edited = await s.waitForEvent('message.edited', (p) => p.editedMessageId === idOf(sent.id), since);
    expect(edited.payload.body).toBe('hello');
  });

  it('message.edit of a message someone else sent is refused (INVALID naming params.messageId); nothing is sent', async () => {
    const theirs = await fromAlice('not yours to edit');
    const before = phone.sent.length;
    await expect(
      run({ op: 'message.edit', args: { chatId: alice, messageId: theirs, text: 'x', linkPreview: false, linkPreviewHighQuality: false } }),
    ).rejects.toMatchObject({ code: 'INVALID', details: [{ path: 'params.messageId' }] });
    expect(phone.sent.length).toBe(before);
  });

  it('message.delete: a REVOKE protocol message, and message.revoked', async () => {
    const sent = await run<MessageRecord>({ op: 'send.text', args: { chatId: alice, text: 'take it back', linkPreview: false } });
    const before = phone.sent.length;
    const since = s.events.length;
    await run({ op: 'message.delete', args: { chatId: alice, messageId: sent.id } });
    expect((await lastSent(before)).protocolMessage).toMatchObject({ type: proto.Message.ProtocolMessage.Type.REVOKE, key: { id: idOf(sent.id) } });
    await s.waitForEvent('message.revoked', (p) => p.revokedMessageId === idOf(sent.id), since);
  });

  it('message.pin: pinInChatMessage PIN_FOR_ALL for the duration, then UNPIN_FOR_ALL', async () => {
    const target = await fromAlice('pin me');
    let before = phone.sent.length;
    await run({ op: 'message.pin', args: { chatId: alice, messageId: target, duration: 86400 } });
    const pinned = await lastSent(before);
    expect(pinned.pinInChatMessage).toMatchObject({ type: proto.PinInChat.Type.PIN_FOR_ALL, key: { id: idOf(target), fromMe: false } });
    expect(pinned.messageContextInfo?.messageAddOnDurationInSecs).toBe(86400);
    before = phone.sent.length;
    await run({ op: 'message.pin', args: { chatId: alice, messageId: target, duration: null } });
    expect((await lastSent(before)).pinInChatMessage?.type).toBe(proto.PinInChat.Type.UNPIN_FOR_ALL);
  });

  it('send.event: an eventMessage the recipient decrypts; the record and message.any with source api', async () => {
    const since = s.events.length;
    const event = {
      name: 'Team lunch',
      description: 'Pizza',
      startTime: 2063137000,
      location: { name: 'The usual place' },
      extraGuestsAllowed: true,
    };
    const record = await run<MessageRecord>({ op: 'send.event', args: { chatId: alice, event } });
    expect(record).toMatchObject({ to: alice, fromMe: true, source: 'api' });
    await s.waitForEvent('message.any', (p) => p.id === record.id, since);
    const read = await phone.read(idOf(record.id));
    expect(read.eventMessage).toMatchObject({
      name: 'Team lunch',
      description: 'Pizza',
      extraGuestsAllowed: true,
      location: { name: 'The usual place' },
    });
    expect(Number(read.eventMessage?.startTime)).toBe(2063137000);
  });
});

describe('NOWEB presence', () => {
  it('presence.set typing in a chat is a composing chat state to it', async () => {
    const before = phone.chatStates.length;
    await run({ op: 'presence.set', args: { chatId: alice, presence: 'typing' } });
    expect(await waitFor(() => phone.chatStates[before], 'a chat state')).toEqual({ to: aliceJid, state: 'composing' });
  });

  it('presence.get subscribes, then answers the presence heard; presence.list has every chat subscribed to', async () => {
    expect(await run({ op: 'presence.get', args: { chatId: alice } })).toEqual({ id: alice, presences: [] });
    const since = s.events.length;
    phone.presence(ALICE, 'composing');
    await s.waitForEvent('presence.update', (p) => p.id === alice, since);
    const heard: ChatPresences = { id: alice, presences: [{ participant: alice, lastKnownPresence: 'typing', lastSeen: null }] };
    expect(await run({ op: 'presence.get', args: { chatId: alice } })).toEqual(heard);
    await run({ op: 'presence.subscribe', args: { chatId: '15551230009@c.us' } });
    expect(await run({ op: 'presence.list' })).toEqual([heard, { id: '15551230009@c.us', presences: [] }]);
  });
});
