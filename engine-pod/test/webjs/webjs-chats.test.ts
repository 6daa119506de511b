import { ChatPictureResponse, ReadChatMessagesResponse } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { webjsSession } from './harness.js';

// The chats operations and presence on WEBJS: each calls whatsapp-web.js's Chat, Message or
// Client method, the scripted client answering as the library does.

const PEER = '15551234567@c.us';

async function working() {
  const s = webjsSession();
  await s.working();
  const run = <T>(command: Parameters<typeof s.host.execute>[0]) => s.host.execute(command) as Promise<T>;
  return { ...s, run };
}

describe('WEBJS chats', () => {
  it('a chat the browser does not know: ENGINE_ERROR saying what was being done', async () => {
    const s = await working();
    s.client.unknownChats.add(PEER);
    await expect(s.run({ op: 'chat.clearMessages', args: { chatId: PEER } })).rejects.toMatchObject({
      code: 'ENGINE_ERROR',
      message: expect.stringContaining(`find chat ${PEER}`),
    });
  });

  it('picture: Client.getProfilePicUrl; none is null', async () => {
    const s = await working();
    expect(ChatPictureResponse.parse(await s.run({ op: 'chat.picture', args: { chatId: PEER, refresh: false } }))).toEqual({ url: null });
    s.client.pictures.set(PEER, 'https://pps.whatsapp.net/v/t61/peer.jpg');
    expect(await s.run({ op: 'chat.picture', args: { chatId: PEER, refresh: true } })).toEqual({ url: 'https://pps.whatsapp.net/v/t61/peer.jpg' });
  });

  it('read: the unread incoming messages from Chat.fetchMessages, then Client.sendSeen', async () => {
    const s = await working();
    const now = Math.floor(Date.now() / 1000);
    s.client.know({ fromMe: false, chatId: PEER, id: 'OLD1', t: now - 10 * 86_400 });
    const recent = s.client.know({ fromMe: false, chatId: PEER, id: 'NEW1', t: now - 60 });
    // The chat has 2 unread (library-shapes chatData): the newest two incoming ones.
    const result = await s.run<ReadChatMessagesResponse>({ op: 'chat.read', args: { chatId: PEER, days: 7 } });
    expect(ReadChatMessagesResponse.parse(result)).toEqual({ ids: [recent.id._serialized] });
    expect(s.client.args[s.client.calls.indexOf(`fetchMessages ${PEER}`)]).toEqual([{ limit: 2, fromMe: false }]);
    expect(s.client.calls.at(-1)).toBe(`sendSeen ${PEER}`);
  });

  it('online and offline: Client.sendPresenceAvailable / Unavailable; the chat states through the Chat', async () => {
    const s = await working();
    await s.run({ op: 'presence.set', args: { presence: 'online' } });
    await s.run({ op: 'presence.set', args: { presence: 'offline' } });
    await s.run({ op: 'presence.set', args: { chatId: PEER, presence: 'typing' } });
    await s.run({ op: 'presence.set', args: { chatId: PEER, presence: 'recording' } });
    await s.run({ op: 'presence.set', args: { chatId: PEER, presence: 'paused' } });
    expect(s.client.calls.filter((call) => /Presence|State/.test(call))).toEqual([
      'sendPresenceAvailable',
      'sendPresenceUnavailable',
      `sendStateTyping ${PEER}`,
      `sendStateRecording ${PEER}`,
      `clearState ${PEER}`,
    ]);
  });
});
