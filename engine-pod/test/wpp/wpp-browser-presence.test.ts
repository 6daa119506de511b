// Other accounts' presence on WPP through Chromium: WPPConnect and its wa-js, unmodified, subscribe
// to a chat's presence through WhatsApp Web's presence bridge on the fake WhatsApp Web, and report
// what its servers push (a contact online, typing, recording, offline; a group's member typing) as
// wa-js's `chat.presence_change`, which the engine makes `presence.update` (spec 6.3). What the
// servers were asked is checked on the fake's side; the rest through the API and the events.
import type { ChatPresences } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { expectValidEnvelopes } from '../webjs/harness.js';
import { pairedSuite, pairedWpp } from '../webjs/paired-webjs.js';

const ME = { id: '15550003030@c.us', pushName: 'WPP Presence Tests' };
const ADA = '15553030301@c.us';
const BOB = '15553030302@c.us';
const CY = '15553030303@c.us';
const GROUP = '120363030303030303@g.us';

describe('WPP presence through Chromium', () => {
  const session = pairedSuite(pairedWpp, 'wpp-presence', ME);
  const { events, payloads, run } = session;
  const updates = () => payloads('presence.update') as ChatPresences[];
  /** The next presence.update after `since`, once it came. */
  async function nextUpdate(since: number, what: string): Promise<ChatPresences> {
    await waitFor(() => updates().length > since, what);
    return updates()[since]!;
  }

  it('subscribe asks the servers for the chat’s presence; the presence they answer is presence.update', async () => {
    session.phone.presences.presence(ADA, 'available');
    const since = updates().length;
    expect(await run({ op: 'presence.subscribe', args: { chatId: ADA } })).toEqual({ success: true });
    expect(session.phone.presences.subscriptions).toContain(ADA);
    expect(await nextUpdate(since, 'Ada online')).toEqual({
      id: ADA,
      presences: [{ participant: ADA, lastKnownPresence: 'online', lastSeen: null }],
    });
  });

  it('a contact typing, recording, then going offline is one presence.update each, the last with when they were last seen', async () => {
    const since = updates().length;
    session.phone.presences.presence(ADA, 'composing');
    await nextUpdate(since, 'Ada typing');
    session.phone.presences.presence(ADA, 'recording');
    await nextUpdate(since + 1, 'Ada recording');
    session.phone.presences.presence(ADA, 'unavailable', { lastSeen: 1_780_000_000 });
    await nextUpdate(since + 2, 'Ada offline');
    expect(updates().slice(since)).toEqual([
      { id: ADA, presences: [{ participant: ADA, lastKnownPresence: 'typing', lastSeen: null }] },
      { id: ADA, presences: [{ participant: ADA, lastKnownPresence: 'recording', lastSeen: null }] },
      { id: ADA, presences: [{ participant: ADA, lastKnownPresence: 'offline', lastSeen: 1_780_000_000 }] },
    ]);
    expect(await run({ op: 'presence.get', args: { chatId: ADA } })).toEqual({
      id: ADA,
      presences: [{ participant: ADA, lastKnownPresence: 'offline', lastSeen: 1_780_000_000 }],
    });
    expectValidEnvelopes(events.map((event) => event.envelope));
  });

  it('a contact who hides when they were last seen goes offline with lastSeen null', async () => {
    await run({ op: 'presence.subscribe', args: { chatId: CY } });
    const since = updates().length;
    session.phone.presences.presence(CY, 'available');
    await nextUpdate(since, 'Cy online');
    session.phone.presences.presence(CY, 'unavailable', { lastSeen: null });
    expect(await nextUpdate(since + 1, 'Cy offline')).toEqual({
      id: CY,
      presences: [{ participant: CY, lastKnownPresence: 'offline', lastSeen: null }],
    });
  });

  it('in a group, each member’s chat state is the group’s presence.update, naming the members heard', async () => {
    await run({ op: 'presence.subscribe', args: { chatId: GROUP } });
    expect(session.phone.presences.subscriptions).toContain(GROUP);
    const since = updates().length;
    session.phone.presences.presence(GROUP, 'composing', { participant: BOB });
    expect(await nextUpdate(since, 'Bob typing in the group')).toEqual({
      id: GROUP,
      presences: [{ participant: BOB, lastKnownPresence: 'typing', lastSeen: null }],
    });
    session.phone.presences.presence(GROUP, 'recording', { participant: CY });
    expect(await nextUpdate(since + 1, 'Cy recording in the group')).toEqual({
      id: GROUP,
      presences: [
        { participant: BOB, lastKnownPresence: 'typing', lastSeen: null },
        { participant: CY, lastKnownPresence: 'recording', lastSeen: null },
      ],
    });
  });

  it('get of a chat not subscribed to subscribes first; list answers every chat subscribed to with what was heard', async () => {
    const before = session.phone.presences.subscriptions.length;
    expect(await run({ op: 'presence.get', args: { chatId: BOB } })).toEqual({ id: BOB, presences: [] });
    expect(session.phone.presences.subscriptions.slice(before)).toContain(BOB);
    const list = await run<ChatPresences[]>({ op: 'presence.list' });
    expect(list.map((chat) => chat.id).sort()).toEqual([ADA, BOB, CY, GROUP].sort());
    expect(list.find((chat) => chat.id === GROUP)?.presences.map((p) => [p.participant, p.lastKnownPresence])).toEqual([
      [BOB, 'typing'],
      [CY, 'recording'],
    ]);
  });

  it('a subscription WhatsApp refuses is ENGINE_ERROR naming the chat, and the chat is not listed', async () => {
    const refused = '15553030309@c.us';
    session.phone.presences.refused.add(refused);
    await expect(run({ op: 'presence.subscribe', args: { chatId: refused } })).rejects.toMatchObject({
      code: 'ENGINE_ERROR',
      message: expect.stringContaining(refused),
    });
    const list = await run<ChatPresences[]>({ op: 'presence.list' });
    expect(list.map((chat) => chat.id)).not.toContain(refused);
  });
});
