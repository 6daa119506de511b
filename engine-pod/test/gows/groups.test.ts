import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePhone, FakeWaServer, membersChange } from '../fake-wa/index.js';
import { buildGows, closeChecked, fakeServerDriver, type GowsDriver, pairWithFake } from './driver.js';

/**
 * The Groups operations of the Go engine (engines/gows/internal/engine/groups.go) over its RPC, against the fake
 * server: whatsmeow's `w:g2` queries, answered and applied by the fake with WhatsApp's rules, and
 * the `group.v2.*` events from the `w:g2` notifications the fake announces each change with (the
 * driver parses every payload against the protocol's schema; closeChecked fails on any that does not).
 */
const ALICE = '15551260001';
const BOB = '15551260002';
const alice = `${ALICE}@c.us`;
const bob = `${BOB}@c.us`;
let fake: FakeWaServer;
let gows: GowsDriver;
let phone: FakePhone;

beforeAll(async () => {
  let binary: string;
  [fake, binary] = await Promise.all([FakeWaServer.start({ signal: true }), buildGows()]);
  gows = fakeServerDriver(binary, fake, 'gows-groups');
  phone = await pairWithFake(gows, fake, 'gows-groups');
}, 180_000);

afterAll(() => closeChecked(gows, fake));

interface Group {
  id: string;
  participants: { id: string; role: string }[];
  [field: string]: unknown;
}

/** The payloads of one event past `since`, in order. */
const payloads = (event: string, since: number) =>
  gows.notifications
    .slice(since)
    .filter((n) => n.method === 'event' && n.params.event === event)
    .map((n) => n.params.payload as Record<string, unknown>);

describe('GOWS groups against the fake', () => {
  let id: string;

  it('creates a group (you its superadmin), reads it and lists it; group.v2.join comes from the server’s notification', async () => {
    const since = gows.notifications.length;
    const group = await gows.request<Group>('createGroup', { name: 'Crew', participants: [{ id: alice }, { id: bob }] });
    id = group.id;
    expect(group).toEqual({
      id: expect.stringMatching(/^120363\d{12}@g\.us$/),
      subject: 'Crew',
      description: '',
      membersCanAddNewMember: false,
      membersCanSendMessages: true,
      newMembersApprovalRequired: false,
      participants: expect.arrayContaining([
        { id: phone.contactId, role: 'superadmin' },
        { id: alice, role: 'participant' },
        { id: bob, role: 'participant' },
      ]),
    });
    const join = await gows.event('group.v2.join', (p) => (p.group as Group).id === id, since);
    expect(join.group).toMatchObject({ subject: 'Crew', participants: expect.arrayContaining([{ id: phone.contactId, role: 'superadmin' }]) });
    expect(await gows.request<Group>('group', { id })).toMatchObject({ id, subject: 'Crew' });
    expect((await gows.request<Group[]>('groups', { refresh: true })).map((g) => g.id)).toContain(id);
  });

  it('changes the subject, the description and both settings; the server keeps them; group.v2.update carries each', async () => {
    const since = gows.notifications.length;
    await gows.request('setGroupSubject', { id, subject: 'Crew 2' });
    await gows.request('setGroupDescription', { id, description: 'on deck' });
    await gows.request('setGroupSetting', { id, setting: 'messagesAdminOnly', adminsOnly: true });
    await gows.request('setGroupSetting', { id, setting: 'infoAdminOnly', adminsOnly: true });
    const kept = fake.groupById(id)!;
    expect([kept.subject, kept.description, kept.announce, kept.locked]).toEqual(['Crew 2', 'on deck', true, true]);
    expect(await gows.request('groupSettings', { id })).toEqual({ infoAdminOnly: true, messagesAdminOnly: true });
    await gows.event('group.v2.update', (p) => 'membersCanSendMessages' in (p.group as object), since);
    // Who may edit the info is not a field of the group record: no update for it, as on NOWEB.
    expect(payloads('group.v2.update', since).map((p) => p.group)).toEqual([
      { id, subject: 'Crew 2' },
      { id, description: 'on deck' },
      { id, membersCanSendMessages: false },
    ]);
    expect(await gows.request<Group>('group', { id })).toMatchObject({ subject: 'Crew 2', description: 'on deck', membersCanSendMessages: false });
  });

  it('promotes, demotes and removes members, each answered with its role now, group.v2.participants for each; a refusal of every member is INVALID', async () => {
    const since = gows.notifications.length;
    expect(await gows.request('updateGroupParticipants', { id, action: 'promote', participants: [alice] })).toEqual([{ id: alice, role: 'admin' }]);
    expect(await gows.request('updateGroupParticipants', { id, action: 'demote', participants: [alice] })).toEqual([
      { id: alice, role: 'participant' },
    ]);
    expect(await gows.request('updateGroupParticipants', { id, action: 'remove', participants: [bob] })).toEqual([{ id: bob, role: 'left' }]);
    expect(await gows.failureCode('updateGroupParticipants', { id, action: 'add', participants: [alice] })).toBe('INVALID');
    expect(fake.groupById(id)!.participants.map((member) => member.jid)).toEqual([phone.phone, ALICE]);
    await gows.event('group.v2.participants', (p) => p.type === 'leave', since);
    expect(payloads('group.v2.participants', since).map((p) => [p.type, p.group, p.participants])).toEqual([
      ['promote', { id }, [{ id: alice, role: 'admin' }]],
      ['demote', { id }, [{ id: alice, role: 'participant' }]],
      ['leave', { id }, [{ id: bob, role: 'left' }]],
    ]);
    expect(payloads('group.v2.leave', since)).toEqual([]);
  });

  it('reads and revokes the invite link; group.v2.update carries the new one', async () => {
    const link = await gows.request<string>('groupInviteCode', { id });
    expect(link).toBe(`https://chat.whatsapp.com/${fake.groupById(id)!.invite}`);
    const since = gows.notifications.length;
    const revoked = await gows.request<string>('revokeGroupInvite', { id });
    expect(revoked).not.toBe(link);
    expect(revoked).toBe(`https://chat.whatsapp.com/${fake.groupById(id)!.invite}`);
    expect((await gows.event('group.v2.update', (p) => 'invite' in (p.group as object), since)).group).toEqual({ id, invite: revoked });
  });

  it('reads the group an invite leads to and joins it (group.v2.participants, then group.v2.join); an unknown invite is NOT_FOUND', async () => {
    const open = fake.group('120363000000000088', { subject: 'Open', creator: ALICE, participants: [{ jid: ALICE, role: 'superadmin' }] });
    expect(await gows.request<Group>('groupJoinInfo', { code: open.invite })).toMatchObject({
      id: open.id,
      subject: 'Open',
      invite: `https://chat.whatsapp.com/${open.invite}`,
    });
    const since = gows.notifications.length;
    expect(await gows.request('joinGroup', { code: open.invite })).toBe(open.id);
    const join = await gows.event('group.v2.join', (p) => (p.group as Group).id === open.id, since);
    expect((join.group as Group).participants).toContainEqual({ id: phone.contactId, role: 'participant' });
    expect(payloads('group.v2.participants', since).map((p) => [p.type, p.group, p.participants])).toEqual([
      ['join', { id: open.id }, [{ id: phone.contactId, role: 'participant' }]],
    ]);
    expect(fake.groupById(open.id)!.participants.map((member) => member.jid)).toContain(phone.phone);
    expect(await gows.failureCode('groupJoinInfo', { code: 'NoSuchInvite000' })).toBe('NOT_FOUND');
  });

  it('a member who is not an admin is refused (WRONG_STATUS)', async () => {
    expect(await gows.failureCode('setGroupSetting', { id: '120363000000000088@g.us', setting: 'messagesAdminOnly', adminsOnly: true })).toBe(
      'WRONG_STATUS',
    );
  });

  it('leaves (group.v2.participants, then group.v2.leave); the group is then NOT_FOUND', async () => {
    const since = gows.notifications.length;
    await gows.request('leaveGroup', { id });
    expect((await gows.event('group.v2.leave', (p) => (p.group as Group).id === id, since)).group).toEqual({ id });
    expect(payloads('group.v2.participants', since).map((p) => [p.type, p.participants])).toEqual([
      ['leave', [{ id: phone.contactId, role: 'left' }]],
    ]);
    expect(await gows.failureCode('group', { id })).toBe('NOT_FOUND');
  });
});

describe('GOWS group events from changes made elsewhere', () => {
  const id = '120363000000000089@g.us';

  it('added by another member: group.v2.participants, then group.v2.join with the group read from the server', async () => {
    const group = fake.group(id, { subject: 'Elsewhere', creator: ALICE, participants: [{ jid: ALICE, role: 'superadmin' }] });
    group.participants.push({ jid: phone.phone });
    const since = gows.notifications.length;
    phone.group(id, ALICE, membersChange('add', [phone.phone]));
    const join = await gows.event('group.v2.join', (p) => (p.group as Group).id === id, since);
    expect(join.group).toMatchObject({
      subject: 'Elsewhere',
      participants: [
        { id: alice, role: 'superadmin' },
        { id: phone.contactId, role: 'participant' },
      ],
    });
    expect(payloads('group.v2.participants', since).map((p) => [p.type, p.participants])).toEqual([
      ['join', [{ id: phone.contactId, role: 'participant' }]],
    ]);
  });

  it('who may add members and whether admins approve them: group.v2.update for each', async () => {
    const since = gows.notifications.length;
    phone.group(id, ALICE, { tag: 'member_add_mode', attrs: {}, content: Buffer.from('all_member_add') });
    phone.group(id, ALICE, { tag: 'membership_approval_mode', attrs: {}, content: [{ tag: 'group_join', attrs: { state: 'on' } }] });
    await gows.event('group.v2.update', (p) => 'newMembersApprovalRequired' in (p.group as object), since);
    expect(payloads('group.v2.update', since).map((p) => p.group)).toEqual([
      { id, membersCanAddNewMember: true },
      { id, newMembersApprovalRequired: true },
    ]);
  });

  it('removed by an admin: group.v2.participants, then group.v2.leave', async () => {
    const since = gows.notifications.length;
    phone.group(id, ALICE, membersChange('remove', [phone.phone]));
    expect((await gows.event('group.v2.leave', (p) => (p.group as Group).id === id, since)).group).toEqual({ id });
    expect(payloads('group.v2.participants', since).map((p) => [p.type, p.participants])).toEqual([
      ['leave', [{ id: phone.contactId, role: 'left' }]],
    ]);
  });
});
