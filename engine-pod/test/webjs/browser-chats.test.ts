// Whole chats and presence through Chromium, for both browser engines on the fake WhatsApp Web:
// whatsapp-web.js, and WPPConnect with its wa-js, archive, mark unread, read, clear and delete chats
// and set the account's presence with WhatsApp Web's own actions, on a backend that keeps what the
// page asked. What the servers were told is checked on the fake's side; what the page did, through
// the API (a cleared or deleted chat's messages are gone) and the events it emits.
import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { expectValidEnvelopes } from './harness.js';
import { pairedSuite, pairedWebjs, pairedWpp } from './paired-webjs.js';

const ME = { id: '15550001616@c.us', pushName: 'Chat Tests' };
const ADA = '15551116661@c.us';
const BOB = '15551116662@c.us';
const CY = '15551116663@c.us';

describe.each([
  // whatsapp-web.js awaits the servers; its chat.archive comes from the page's change.
  ['WEBJS', pairedWebjs, { awaitsServers: true, archiveEventFromCommand: false }],
  // wa-js changes the page and tells the servers without waiting for them; WPPConnect reports no
  // archive changes, so chat.archive comes from the command; a picture is what the servers told the page.
  ['WPP', pairedWpp, { awaitsServers: false, archiveEventFromCommand: true }],
] as const)('%s chats and presence through Chromium', (engine, paired, { awaitsServers, archiveEventFromCommand }) => {
  const session = pairedSuite(paired, 'chats', ME);
  const { events, payloads, run } = session;
  const chatActions = (chat: string) => session.phone.actions.filter((action) => action.type.startsWith('chat-') && action.chat === chat);

  /** A message from `from`, once the engine has it: its id in the API. */
  async function received(from: string, body: string): Promise<string> {
    const id = `false_${from}_${session.phone.text(from, body)}`;
    await waitFor(() => payloads('message').some((p) => p.id === id), `${body} to arrive`);
    return id;
  }

  it('archive and unarchive: the servers are told, and chat.archive says so each time', async () => {
    await received(ADA, 'hello');
    await run({ op: 'chat.archive', args: { chatId: ADA, archive: true } });
    await run({ op: 'chat.archive', args: { chatId: ADA, archive: false } });
    if (!awaitsServers) await waitFor(() => chatActions(ADA).length === 2, 'the servers to hear of both');
    expect(chatActions(ADA)).toEqual([
      { type: 'chat-archive', chat: ADA, archive: true },
      { type: 'chat-archive', chat: ADA, archive: false },
    ]);
    const archived = archiveEventFromCommand
      ? payloads('chat.archive')
      : await waitFor(() => (payloads('chat.archive').length === 2 ? payloads('chat.archive') : null), 'two chat.archive events');
    expect(archived.map((p) => [p.id, p.archived])).toEqual([
      [ADA, true],
      [ADA, false],
    ]);
    expectValidEnvelopes(events.map((event) => event.envelope));
  });

  // whatsapp-web.js tells the servers again.
  if (engine === 'WPP')
    it('unarchiving a chat that is not archived changes nothing and emits nothing', async () => {
      await run({ op: 'chat.archive', args: { chatId: ADA, archive: false } });
      expect(chatActions(ADA)).toHaveLength(2);
      expect(payloads('chat.archive')).toHaveLength(2);
    });

  it('unread: the servers are told the chat is marked unread', async () => {
    await run({ op: 'chat.unread', args: { chatId: ADA } });
    expect(chatActions(ADA).at(-1)).toEqual({ type: 'chat-unread', chat: ADA, unread: true });
  });

  it('read: the unread messages, older ones loaded from the phone first, are answered, and the servers get the read receipt', async () => {
    const older = session.phone.earlier(CY, ['from before', 'still before']).map((id) => `false_${CY}_${id}`);
    const latest = await received(CY, 'and now');
    const read = await run({ op: 'chat.read', args: { chatId: CY, days: 7 } });
    expect(read).toEqual({ ids: [...older, latest] });
    expect(session.phone.seen).toContain(CY);
    expect(await run({ op: 'chat.read', args: { chatId: CY, days: 7 } })).toEqual({ ids: [] });
  });

  it('clear: the servers are told, and the messages are gone (a message op on one is NOT_FOUND); the chat stays', async () => {
    const id = await received(BOB, 'clear me');
    await run({ op: 'chat.clearMessages', args: { chatId: BOB } });
    expect(chatActions(BOB)).toEqual([{ type: 'chat-clear', chat: BOB, keepStarred: false }]);
    await expect(run({ op: 'message.star', args: { chatId: BOB, messageId: id, star: true } })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      details: { messageId: id },
    });
    // The chat is still there: a new message lands in it, is the one unread, and can be starred.
    const next = await received(BOB, 'after the clear');
    expect(await run({ op: 'chat.read', args: { chatId: BOB, days: 7 } })).toEqual({ ids: [next] });
    await run({ op: 'message.star', args: { chatId: BOB, messageId: next, star: true } });
  });

  it('a received message deleted (for the account: it cannot revoke it) is gone too', async () => {
    const id = await received(BOB, 'delete just me');
    await run({ op: 'message.delete', args: { chatId: BOB, messageId: id } });
    expect(session.phone.actions.at(-1)).toEqual({ type: 'delete', msgId: id });
    await expect(run({ op: 'message.star', args: { chatId: BOB, messageId: id, star: true } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('delete: the servers are told, and the chat`s messages are gone', async () => {
    const id = await received(ADA, 'delete me');
    await run({ op: 'chat.delete', args: { chatId: ADA } });
    expect(chatActions(ADA).at(-1)).toEqual({ type: 'chat-delete', chat: ADA });
    await expect(run({ op: 'message.star', args: { chatId: ADA, messageId: id, star: true } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  // whatsapp-web.js makes the chat it is asked about.
  if (engine === 'WPP')
    it('a chat the page does not have is NOT_FOUND for archive, unread and read', async () => {
      const unknown = '15552229999@c.us';
      for (const command of [
        { op: 'chat.archive', args: { chatId: unknown, archive: true } },
        { op: 'chat.unread', args: { chatId: unknown } },
        { op: 'chat.read', args: { chatId: unknown, days: 7 } },
      ] as const)
        await expect(run(command)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

  it('the chat picture: its URL once the servers told the page, or null when there is none', async () => {
    session.phone.contacts.setPicture(BOB, 'https://pps.whatsapp.net/v/t61/bob.jpg');
    const picture = () => run<{ url: string | null }>({ op: 'chat.picture', args: { chatId: BOB, refresh: false } });
    if (!awaitsServers) await waitFor(async () => (await picture()).url !== null, "Bob's picture");
    expect(await picture()).toEqual({ url: 'https://pps.whatsapp.net/v/t61/bob.jpg' });
    expect(await run({ op: 'chat.picture', args: { chatId: CY, refresh: false } })).toEqual({ url: null });
  });

  it('sets the presence online and offline: the server is told available, then unavailable', async () => {
    // The chat actions above may have told the servers of a presence already (whatsapp-web.js's
    // do): what this test asks is what follows.
    const before = session.phone.contacts.presences.length;
    const told = () => session.phone.contacts.presences.slice(before);
    await run({ op: 'presence.set', args: { presence: 'online' } });
    await run({ op: 'presence.set', args: { presence: 'offline' } });
    if (!awaitsServers) await waitFor(() => told().length === 2, 'the unavailable presence');
    expect(told()).toEqual(['available', 'unavailable']);
  });

  it('typing, recording and paused in a chat (chat.typing, presence.set) reach the server as chat states of that chat', async () => {
    const { phone } = session;
    const states = (chat: string) => phone.contacts.chatStates.filter((state) => state.chat === chat);
    // Both libraries send a chat state without waiting for it.
    await run({ op: 'chat.typing', args: { chatId: BOB, typing: true } });
    await waitFor(() => states(BOB).length === 1, 'the typing state');
    await run({ op: 'presence.set', args: { chatId: BOB, presence: 'recording' } });
    await waitFor(() => states(BOB).length === 2, 'the recording state');
    await run({ op: 'chat.typing', args: { chatId: BOB, typing: false } });
    await waitFor(() => states(BOB).length === 3, 'the paused state');
    expect(states(BOB)).toEqual([
      { chat: BOB, state: 'composing' },
      { chat: BOB, state: 'recording' },
      { chat: BOB, state: 'paused' },
    ]);
    await run({ op: 'presence.set', args: { chatId: CY, presence: 'typing' } });
    await waitFor(() => states(CY).length === 1, 'the typing state');
    await run({ op: 'presence.set', args: { chatId: CY, presence: 'recording' } });
    await waitFor(() => states(CY).length === 2, 'the recording state');
    await run({ op: 'presence.set', args: { chatId: CY, presence: 'paused' } });
    await waitFor(() => states(CY).length === 3, 'the paused state');
    expect(states(CY)).toEqual([
      { chat: CY, state: 'composing' },
      { chat: CY, state: 'recording' },
      { chat: CY, state: 'paused' },
    ]);
  });
});
