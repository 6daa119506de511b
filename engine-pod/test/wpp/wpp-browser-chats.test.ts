// Whole chats and presence on WPP through Chromium: WPPConnect and its wa-js, unmodified, archive,
// mark unread, read, clear and delete chats and set the account's presence with WhatsApp Web's own
// actions on the fake WhatsApp Web, whose backend keeps what the page asked. What the servers were
// told is checked on the fake's side; what the page did, through the API and the events emitted.
import type { EventName } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineHost, HostedEvent } from '../../src/index.js';
import type { FakeWebPhone } from '../fake-web/index.js';
import { expectValidEnvelopes } from '../webjs/harness.js';
import { type PairedWebjs, pairedWpp } from '../webjs/paired-webjs.js';

const ME = { id: '15550002525@c.us', pushName: 'WPP Chat Tests' };
const ADA = '15552225251@c.us';
const BOB = '15552225252@c.us';
const CY = '15552225253@c.us';

describe('WPP chats and presence through Chromium', () => {
  let host: EngineHost;
  let phone: FakeWebPhone;
  let session: PairedWebjs | undefined;
  const events: HostedEvent[] = [];
  const payloads = (name: EventName) => events.filter((e) => e.envelope.event === name).map((e) => e.envelope.payload);
  const run = <T>(command: Parameters<EngineHost['execute']>[0]) => host.execute(command) as Promise<T>;
  const chatActions = (chat: string) => phone.actions.filter((action) => action.type.startsWith('chat-') && action.chat === chat);

  beforeAll(async () => {
    session = await pairedWpp('wpp-chats', ME, (event) => events.push(event));
    ({ host, phone } = session);
  });
  afterAll(() => session?.close());

  /** A message from `from`, once the engine has it: its id in the API. */
  async function received(from: string, body: string): Promise<string> {
    const id = `false_${from}_${phone.text(from, body)}`;
    await waitFor(() => payloads('message').some((p) => p.id === id), `${body} to arrive`);
    return id;
  }

  it('archive and unarchive: the servers are told, and chat.archive says so each time', async () => {
    await received(ADA, 'hello');
    await run({ op: 'chat.archive', args: { chatId: ADA, archive: true } });
    await run({ op: 'chat.archive', args: { chatId: ADA, archive: false } });
    // wa-js changes the chat on the page and tells the servers without waiting for them.
    await waitFor(() => chatActions(ADA).length === 2, 'the servers to hear of both');
    expect(chatActions(ADA)).toEqual([
      { type: 'chat-archive', chat: ADA, archive: true },
      { type: 'chat-archive', chat: ADA, archive: false },
    ]);
    expect(payloads('chat.archive').map((p) => [p.id, p.archived])).toEqual([
      [ADA, true],
      [ADA, false],
    ]);
    expectValidEnvelopes(events.map((event) => event.envelope));
  });

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
    const older = phone.earlier(CY, ['from before', 'still before']).map((id) => `false_${CY}_${id}`);
    const latest = await received(CY, 'and now');
    const read = await run({ op: 'chat.read', args: { chatId: CY, days: 7 } });
    expect(read).toEqual({ ids: [...older, latest] });
    expect(phone.seen).toContain(CY);
    expect(await run({ op: 'chat.read', args: { chatId: CY, days: 7 } })).toEqual({ ids: [] });
  });

  it('clear: the servers are told, and the messages are gone; the chat stays', async () => {
    await received(BOB, 'clear me');
    await run({ op: 'chat.clearMessages', args: { chatId: BOB } });
    expect(chatActions(BOB)).toEqual([{ type: 'chat-clear', chat: BOB, keepStarred: false }]);
    const next = await received(BOB, 'after the clear');
    expect(await run({ op: 'chat.read', args: { chatId: BOB, days: 7 } })).toEqual({ ids: [next] });
  });

  it('delete: the servers are told', async () => {
    await received(ADA, 'delete me');
    await run({ op: 'chat.delete', args: { chatId: ADA } });
    expect(chatActions(ADA).at(-1)).toEqual({ type: 'chat-delete', chat: ADA });
  });

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
    phone.contacts.setPicture(BOB, 'https://pps.whatsapp.net/v/t61/bob.jpg');
    // The servers tell the page of the new picture; WPPConnect answers what the page was told.
    await waitFor(
      async () => (await run<{ url: string | null }>({ op: 'chat.picture', args: { chatId: BOB, refresh: false } })).url !== null,
      "Bob's picture",
    );
    expect(await run({ op: 'chat.picture', args: { chatId: BOB, refresh: false } })).toEqual({ url: 'https://pps.whatsapp.net/v/t61/bob.jpg' });
    expect(await run({ op: 'chat.picture', args: { chatId: CY, refresh: false } })).toEqual({ url: null });
  });

  it('sets the presence online and offline: the server is told available, then unavailable', async () => {
    await run({ op: 'presence.set', args: { presence: 'online' } });
    await run({ op: 'presence.set', args: { presence: 'offline' } });
    // wa-js does not wait for the page's word to the servers: it may land after the command answers.
    await waitFor(() => phone.contacts.presences.length === 2, 'the unavailable presence');
    expect(phone.contacts.presences).toEqual(['available', 'unavailable']);
  });

  it('typing, recording and paused in a chat reach the server as chat states of that chat', async () => {
    await run({ op: 'presence.set', args: { chatId: CY, presence: 'typing' } });
    await waitFor(() => phone.contacts.chatStates.length === 1, 'the typing state');
    await run({ op: 'presence.set', args: { chatId: CY, presence: 'recording' } });
    await waitFor(() => phone.contacts.chatStates.length === 2, 'the recording state');
    await run({ op: 'presence.set', args: { chatId: CY, presence: 'paused' } });
    await waitFor(() => phone.contacts.chatStates.length === 3, 'the paused state');
    expect(phone.contacts.chatStates).toEqual([
      { chat: CY, state: 'composing' },
      { chat: CY, state: 'recording' },
      { chat: CY, state: 'paused' },
    ]);
  });
});
