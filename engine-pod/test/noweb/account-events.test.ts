import { beforeAll, describe, expect, it } from 'vitest';
import {
  announceChange,
  createNotificationChild,
  descriptionChange,
  type FakePhone,
  type FakeWaServer,
  membersChange,
  subjectChange,
} from '../fake-wa/index.js';
import { type NowebSession, pairedSessionForTests } from './harness.js';

const paired = pairedSessionForTests();
let fake: FakeWaServer;
let s: NowebSession;
let phone: FakePhone;
const BOB = '15551240001';
const bob = `${BOB}@c.us`;
const GROUP = '120363000000000042@g.us';

beforeAll(() => {
  ({ fake, s, phone } = paired);
});

describe('NOWEB presence.update (spec 2.7)', () => {
  it('maps online, offline with last seen, typing and recording', async () => {
    const since = s.events.length;
    phone.presence(BOB, 'available');
    phone.presence(BOB, 'unavailable', { lastSeen: 1_795_000_000 });
    phone.presence(BOB, 'composing');
    phone.presence(BOB, 'recording');
    await s.waitForEvent('presence.update', (p) => JSON.stringify(p).includes('recording'), since);
    const presences = s.events
      .slice(since)
      .filter((e) => e.envelope.event === 'presence.update')
      .map((e) => e.envelope.payload);
    expect(presences).toEqual([
      { id: bob, presences: [{ participant: bob, lastKnownPresence: 'online', lastSeen: null }] },
      { id: bob, presences: [{ participant: bob, lastKnownPresence: 'offline', lastSeen: 1_795_000_000 }] },
      { id: bob, presences: [{ participant: bob, lastKnownPresence: 'typing', lastSeen: null }] },
      { id: bob, presences: [{ participant: bob, lastKnownPresence: 'recording', lastSeen: null }] },
    ]);
  });

  it('reports a group member typing under the group id', async () => {
    const since = s.events.length;
    phone.presence(GROUP, 'composing', { participant: BOB });
    const update = await s.waitForEvent('presence.update', (p) => p.id === GROUP, since);
    expect(update.payload).toEqual({ id: GROUP, presences: [{ participant: bob, lastKnownPresence: 'typing', lastSeen: null }] });
  });
});

describe('NOWEB calls (spec 6.2 call.*)', () => {
  it('emits call.received for an offer, call.accepted and call.rejected as the call goes on', async () => {
    const since = s.events.length;
    const id = phone.call(BOB, 'offer', { video: true });
    const received = await s.waitForEvent('call.received', (p) => p.id === id, since);
    expect(received.payload).toMatchObject({ id, from: bob, isVideo: true, isGroup: false });
    phone.call(BOB, 'accept', { id });
    await s.waitForEvent('call.accepted', (p) => p.id === id, since);
    const other = phone.call(BOB, 'offer');
    phone.call(BOB, 'reject', { id: other });
    const rejected = await s.waitForEvent('call.rejected', (p) => p.id === other, since);
    expect(rejected.payload).toMatchObject({ from: bob, isVideo: false });
  });
});

describe('NOWEB groups (spec 2.8, 6.2 group.v2.*)', () => {
  it('emits group.v2.join with the whole group when the account is added', async () => {
    fake.group(GROUP, {
      subject: 'Team',
      description: 'our team',
      creator: BOB,
      participants: [{ jid: BOB, role: 'superadmin' }, { jid: phone.phone }],
      membersCanAdd: true,
    });
    const since = s.events.length;
    phone.group(GROUP, BOB, membersChange('add', [phone.phone]));
    const join = await s.waitForEvent('group.v2.join', () => true, since);
    expect(join.payload.group).toEqual({
      id: GROUP,
      subject: 'Team',
      description: 'our team',
      membersCanAddNewMember: true,
      membersCanSendMessages: true,
      newMembersApprovalRequired: false,
      participants: [
        { id: bob, role: 'superadmin' },
        { id: phone.contactId, role: 'participant' },
      ],
    });
    const participants = await s.waitForEvent('group.v2.participants', () => true, since);
    expect(participants.payload).toMatchObject({ type: 'join', group: { id: GROUP }, participants: [{ id: phone.contactId, role: 'participant' }] });
  });

  it('emits group.v2.join for a group created with the account in it', async () => {
    const group = fake.group('120363000000000043', {
      subject: 'New',
      creator: BOB,
      participants: [{ jid: BOB, role: 'superadmin' }, { jid: phone.phone }],
    });
    const since = s.events.length;
    phone.group(group.id, BOB, createNotificationChild(group));
    const join = await s.waitForEvent('group.v2.join', () => true, since);
    expect(join.payload.group).toMatchObject({ id: group.id, subject: 'New' });
  });

  it('emits group.v2.participants for promote, demote and leave, with the roles of spec 2.8', async () => {
    const carol = '15551240002';
    const since = s.events.length;
    phone.group(GROUP, BOB, membersChange('promote', [carol]));
    phone.group(GROUP, BOB, membersChange('demote', [carol]));
    phone.group(GROUP, BOB, membersChange('remove', [carol]));
    await s.waitForEvent('group.v2.participants', (p) => p.type === 'leave', since);
    const changes = s.payloads<{ type: string; participants: unknown[] }>('group.v2.participants').slice(-3);
    expect(changes.map((c) => [c.type, c.participants])).toEqual([
      ['promote', [{ id: `${carol}@c.us`, role: 'admin' }]],
      ['demote', [{ id: `${carol}@c.us`, role: 'participant' }]],
      ['leave', [{ id: `${carol}@c.us`, role: 'left' }]],
    ]);
  });

  it('emits group.v2.update with the changed fields only', async () => {
    const since = s.events.length;
    phone.group(GROUP, BOB, subjectChange('Renamed'));
    phone.group(GROUP, BOB, descriptionChange('new words'));
    phone.group(GROUP, BOB, announceChange(true));
    await s.waitForEvent('group.v2.update', (p) => 'membersCanSendMessages' in (p.group as object), since);
    const updates = s
      .payloads<{ group: unknown }>('group.v2.update')
      .slice(-3)
      .map((p) => p.group);
    expect(updates).toEqual([
      { id: GROUP, subject: 'Renamed' },
      { id: GROUP, description: 'new words' },
      { id: GROUP, membersCanSendMessages: false },
    ]);
  });

  it('emits group.v2.update with every field when the server says the groups changed', async () => {
    const since = s.events.length;
    phone.groupsDirty();
    const update = await s.waitForEvent('group.v2.update', (p) => 'participants' in (p.group as object), since);
    expect(update.payload.group).toMatchObject({ id: GROUP, subject: 'Team', membersCanAddNewMember: true });
  });

  it('emits group.v2.leave when the account is removed', async () => {
    const since = s.events.length;
    phone.group(GROUP, BOB, membersChange('remove', [phone.phone]));
    const leave = await s.waitForEvent('group.v2.leave', () => true, since);
    expect(leave.payload).toMatchObject({ group: { id: GROUP } });
  });
});

describe("NOWEB relays the library's LID mappings, which the history's LID map learns (the interface has no LID event)", () => {
  it('an address book entry the phone syncs with a linked id: engine.event lid-mapping.update with the pair', async () => {
    const since = s.events.length;
    await phone.addressBookEntry('15551250001', { fullName: 'Dora', lid: '245120000000099' });
    const relayed = await s.waitForEvent('engine.event', (p) => p.event === 'lid-mapping.update', since);
    expect(relayed.payload.data).toEqual({ lid: '245120000000099@lid', pn: '15551250001@s.whatsapp.net' });
  });
});

describe('NOWEB relays chats deleted on the phone, which the history forgets (the interface has no chat-deleted event)', () => {
  it('a chat deleted on the phone: engine.event chats.delete with its address', async () => {
    const since = s.events.length;
    await phone.deleteChat(BOB);
    const relayed = await s.waitForEvent('engine.event', (p) => p.event === 'chats.delete', since);
    expect(relayed.payload.data).toEqual({ items: [`${BOB}@s.whatsapp.net`] });
  });
});

describe('NOWEB labels and archive (spec 2.9, 6.2 label.*, chat.archive)', () => {
  it('emits label.upsert, label.chat.added with the label, label.chat.deleted and label.deleted', async () => {
    const since = s.events.length;
    await phone.label({ id: '7', name: 'Lead', color: 1 });
    const upsert = await s.waitForEvent('label.upsert', () => true, since);
    expect(upsert.payload).toEqual({ id: '7', name: 'Lead', color: 1, colorHex: '#64c4ff' });
    await phone.labelChat('7', BOB, true);
    const added = await s.waitForEvent('label.chat.added', () => true, since);
    expect(added.payload).toEqual({ labelId: '7', chatId: bob, label: upsert.payload });
    await phone.labelChat('7', BOB, false);
    await s.waitForEvent('label.chat.deleted', (p) => p.labelId === '7', since);
    await phone.label({ id: '7', name: 'Lead', color: 1, deleted: true });
    const deleted = await s.waitForEvent('label.deleted', () => true, since);
    expect(deleted.payload).toEqual({ id: '7', name: '', color: 1, colorHex: '#64c4ff' });
  });

  it('emits chat.archive when a chat is archived and unarchived on the phone', async () => {
    const since = s.events.length;
    await phone.archive(BOB, true);
    await s.waitForEvent('chat.archive', (p) => p.archived === true, since);
    await phone.archive(BOB, false);
    const unarchived = await s.waitForEvent('chat.archive', (p) => p.archived === false, since);
    expect(unarchived.payload).toMatchObject({ id: bob, archived: false });
  });
});

describe('NOWEB engine.event', () => {
  it('relays library events untranslated, never the credentials', async () => {
    const since = s.events.length;
    phone.text(BOB, 'for the record');
    const relayed = await s.waitForEvent('engine.event', (p) => p.event === 'messages.upsert', since);
    expect(JSON.stringify(relayed.payload)).toContain('for the record');
    expect(s.payloads<{ event: string }>('engine.event').some((p) => p.event === 'creds.update')).toBe(false);
    expect(s.events.some((e) => e.json.includes('"private"'))).toBe(false);
  });
});
