// Whole chats through Chromium: whatsapp-web.js archives, marks unread, reads, clears and deletes chats
// with WhatsApp Web's own actions on the fake WhatsApp Web, whose backend keeps what the page
// asked. What the servers were told is checked on the fake's side; what the page did, through the
// API (a cleared or deleted chat's messages are gone) and the events it emits.
import type { EventName } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineHost, HostedEvent } from '../../src/index.js';
import type { FakeWebPhone } from '../fake-web/index.js';
import { expectValidEnvelopes } from './harness.js';
import { type PairedWebjs, pairedWebjs } from './paired-webjs.js';

const ME = { id: '15550001616@c.us', pushName: 'Chat Tests' };
const ADA = '15551116661@c.us';
const BOB = '15551116662@c.us';
const CY = '15551116663@c.us';

describe('WEBJS chats through Chromium', () => {
  let host: EngineHost;
  let phone: FakeWebPhone;
  let session: PairedWebjs | undefined;
  const events: HostedEvent[] = [];
  const payloads = (name: EventName) => events.filter((e) => e.envelope.event === name).map((e) => e.envelope.payload);
  const run = <T>(command: Parameters<EngineHost['execute']>[0]) => host.execute(command) as Promise<T>;
  const chatActions = (chat: string) => phone.actions.filter((action) => action.type.startsWith('chat-') && action.chat === chat);

  beforeAll(async () => {
    session = await pairedWebjs('chats', ME, (event) => events.push(event));
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
    expect(chatActions(ADA)).toEqual([
      { type: 'chat-archive', chat: ADA, archive: true },
      { type: 'chat-archive', chat: ADA, archive: false },
    ]);
    const archived = await waitFor(() => (payloads('chat.archive').length === 2 ? payloads('chat.archive') : null), 'two chat.archive events');
    expect(archived.map((p) => [p.id, p.archived])).toEqual([
      [ADA, true],
      [ADA, false],
    ]);
    expectValidEnvelopes(events.map((event) => event.envelope));
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

  it('clear: the servers are told, and the messages are gone (a message op on one is NOT_FOUND); the chat stays', async () => {
    const id = await received(BOB, 'clear me');
    await run({ op: 'chat.clearMessages', args: { chatId: BOB } });
    expect(chatActions(BOB)).toEqual([{ type: 'chat-clear', chat: BOB, keepStarred: false }]);
    await expect(run({ op: 'message.star', args: { chatId: BOB, messageId: id, star: true } })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      details: { messageId: id },
    });
    // The chat is still there: a new message lands in it and can be starred.
    const next = await received(BOB, 'after the clear');
    await run({ op: 'message.star', args: { chatId: BOB, messageId: next, star: true } });
  });

  it('a received message deleted (for the account: it cannot revoke it) is gone too', async () => {
    const id = await received(BOB, 'delete just me');
    await run({ op: 'message.delete', args: { chatId: BOB, messageId: id } });
    expect(phone.actions.at(-1)).toEqual({ type: 'delete', msgId: id });
    await expect(run({ op: 'message.star', args: { chatId: BOB, messageId: id, star: true } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('delete: the servers are told, and the chat`s messages are gone', async () => {
    const id = await received(ADA, 'delete me');
    await run({ op: 'chat.delete', args: { chatId: ADA } });
    expect(chatActions(ADA).at(-1)).toEqual({ type: 'chat-delete', chat: ADA });
    await expect(run({ op: 'message.star', args: { chatId: ADA, messageId: id, star: true } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
