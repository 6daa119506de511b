import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePhone, FakeWaServer } from '../fake-wa/index.js';
import { buildGows, closeChecked, fakeServerDriver, type GowsDriver, pairWithFake } from './driver.js';

/**
 * The Groups operations of the Go engine (engines/gows/groups.go) over its RPC, against the fake
 * server: whatsmeow's `w:g2` queries, answered and applied by the fake with WhatsApp's rules.
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

describe('GOWS groups against the fake', () => {
  let id: string;

  it('creates a group (you its superadmin), reads it and lists it', async () => {
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
    expect(await gows.request<Group>('group', { id })).toMatchObject({ id, subject: 'Crew' });
    expect((await gows.request<Group[]>('groups', { refresh: true })).map((g) => g.id)).toContain(id);
  });

  it('changes the subject, the description and both settings; the server keeps them', async () => {
    await gows.request('setGroupSubject', { id, subject: 'Crew 2' });
    await gows.request('setGroupDescription', { id, description: 'on deck' });
    await gows.request('setGroupSetting', { id, setting: 'messagesAdminOnly', adminsOnly: true });
    await gows.request('setGroupSetting', { id, setting: 'infoAdminOnly', adminsOnly: true });
    const kept = fake.groupById(id)!;
    expect([kept.subject, kept.description, kept.announce, kept.locked]).toEqual(['Crew 2', 'on deck', true, true]);
    expect(await gows.request('groupSettings', { id })).toEqual({ infoAdminOnly: true, messagesAdminOnly: true });
    expect(await gows.request<Group>('group', { id })).toMatchObject({ subject: 'Crew 2', description: 'on deck', membersCanSendMessages: false });
  });

  it('promotes, demotes and removes members, each answered with its role now; a refusal of every member is BAD_REQUEST', async () => {
    expect(await gows.request('updateGroupParticipants', { id, action: 'promote', participants: [alice] })).toEqual([{ id: alice, role: 'admin' }]);
    expect(await gows.request('updateGroupParticipants', { id, action: 'demote', participants: [alice] })).toEqual([
      { id: alice, role: 'participant' },
    ]);
    expect(await gows.request('updateGroupParticipants', { id, action: 'remove', participants: [bob] })).toEqual([{ id: bob, role: 'left' }]);
    expect(await gows.failureCode('updateGroupParticipants', { id, action: 'add', participants: [alice] })).toBe('BAD_REQUEST');
    expect(fake.groupById(id)!.participants.map((member) => member.jid)).toEqual([phone.phone, ALICE]);
  });

  it('reads and revokes the invite link', async () => {
    const link = await gows.request<string>('groupInviteCode', { id });
    expect(link).toBe(`https://chat.whatsapp.com/${fake.groupById(id)!.invite}`);
    const revoked = await gows.request<string>('revokeGroupInvite', { id });
    expect(revoked).not.toBe(link);
    expect(revoked).toBe(`https://chat.whatsapp.com/${fake.groupById(id)!.invite}`);
  });

  it('reads the group an invite leads to and joins it; an unknown invite is NOT_FOUND', async () => {
    const open = fake.group('120363000000000088', { subject: 'Open', creator: ALICE, participants: [{ jid: ALICE, role: 'superadmin' }] });
    expect(await gows.request<Group>('groupJoinInfo', { code: open.invite })).toMatchObject({
      id: open.id,
      subject: 'Open',
      invite: `https://chat.whatsapp.com/${open.invite}`,
    });
    expect(await gows.request('joinGroup', { code: open.invite })).toBe(open.id);
    expect(fake.groupById(open.id)!.participants.map((member) => member.jid)).toContain(phone.phone);
    expect(await gows.failureCode('groupJoinInfo', { code: 'NoSuchInvite000' })).toBe('NOT_FOUND');
  });

  it('a member who is not an admin is refused (NOT_READY: WRONG_STATUS through the proxy)', async () => {
    expect(await gows.failureCode('setGroupSetting', { id: '120363000000000088@g.us', setting: 'messagesAdminOnly', adminsOnly: true })).toBe(
      'NOT_READY',
    );
  });

  it('leaves; the group is then NOT_FOUND', async () => {
    await gows.request('leaveGroup', { id });
    expect(await gows.failureCode('group', { id })).toBe('NOT_FOUND');
  });
});
