import type { EngineCommand } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { pairedSessionForTests } from './harness.js';

/**
 * The peer's Groups operations on NOWEB: the unmodified Baileys sends its `w:g2` queries to the
 * fake server, which keeps the groups, applies WhatsApp's rules and announces each change as the
 * `w:gp2` notification the service sends; the `group.v2.*` events come from those.
 */
const paired = pairedSessionForTests();
const run = (command: EngineCommand) => paired.s.host.execute(command);
const failure = (command: EngineCommand) =>
  run(command).then(
    () => null,
    (error: unknown) => error,
  );

const ALICE = '15551250001';
const BOB = '15551250002';
const alice = `${ALICE}@c.us`;
const bob = `${BOB}@c.us`;
// A 1x1 PNG: Baileys turns any image into the 640x640 JPEG the service keeps.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

interface Group {
  id: string;
  subject: string;
  participants: { id: string; role: string }[];
  [field: string]: unknown;
}

describe('NOWEB groups: create, read, list', () => {
  it('creates a group with you as superadmin; group.v2.join comes from the server’s notification', async () => {
    const since = paired.s.events.length;
    const group = (await run({ op: 'group.create', args: { name: 'Crew', participants: [{ id: alice }, { id: bob }] } })) as Group;
    expect(group).toMatchObject({
      id: expect.stringMatching(/^120363\d{12}@g\.us$/),
      subject: 'Crew',
      membersCanSendMessages: true,
      participants: [
        { id: paired.phone.contactId, role: 'superadmin' },
        { id: alice, role: 'participant' },
        { id: bob, role: 'participant' },
      ],
    });
    const join = await paired.s.waitForEvent('group.v2.join', (p) => (p.group as Group).id === group.id, since);
    expect((join.payload.group as Group).subject).toBe('Crew');
    expect(await run({ op: 'group.get', args: { id: group.id } })).toMatchObject({ id: group.id, subject: 'Crew' });
    const list = (await run({ op: 'group.list' })) as Group[];
    expect(list.map((g) => g.id)).toContain(group.id);
    expect(await run({ op: 'group.refresh' })).toEqual({ success: true });
  });

  it('a group the account is not in is NOT_FOUND', async () => {
    expect(await failure({ op: 'group.get', args: { id: '120363999999999999@g.us' } })).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('NOWEB groups: changes and their events', () => {
  let id: string;
  const events = (since: number) => paired.s.events.slice(since).map((e) => e.envelope);

  it('subject, description and who may send: the server applies them, group.v2.update carries each', async () => {
    ({ id } = (await run({ op: 'group.create', args: { name: 'Ops', participants: [{ id: alice }] } })) as Group);
    const since = paired.s.events.length;
    expect(await run({ op: 'group.setSubject', args: { id, subject: 'Ops 2' } })).toEqual({ success: true });
    expect(await run({ op: 'group.setDescription', args: { id, description: 'on call' } })).toEqual({ success: true });
    expect(await run({ op: 'group.setSetting', args: { id, setting: 'messagesAdminOnly', adminsOnly: true } })).toEqual({ success: true });
    expect(await run({ op: 'group.setSetting', args: { id, setting: 'infoAdminOnly', adminsOnly: true } })).toEqual({ success: true });
    await paired.s.waitForEvent('group.v2.update', (p) => 'membersCanSendMessages' in (p.group as object), since);
    const updates = events(since)
      .filter((e) => e.event === 'group.v2.update')
      .map((e) => e.payload.group);
    expect(updates).toEqual([
      { id, subject: 'Ops 2' },
      { id, description: 'on call' },
      { id, membersCanSendMessages: false },
    ]);
    expect(await run({ op: 'group.settings', args: { id } })).toEqual({ infoAdminOnly: true, messagesAdminOnly: true });
    expect(await run({ op: 'group.get', args: { id } })).toMatchObject({ subject: 'Ops 2', description: 'on call', membersCanSendMessages: false });
  });

  it('add, promote, demote, remove: each answers the members changed; group.v2.participants carries each', async () => {
    const since = paired.s.events.length;
    const change = (action: 'add' | 'remove' | 'promote' | 'demote', members: string[]) =>
      run({ op: 'group.participants', args: { id, action, participants: members.map((member) => ({ id: member })) } });
    expect(await change('add', [bob])).toEqual([{ id: bob, role: 'participant' }]);
    expect(await change('promote', [bob])).toEqual([{ id: bob, role: 'admin' }]);
    expect(await change('demote', [bob])).toEqual([{ id: bob, role: 'participant' }]);
    expect(await change('remove', [alice])).toEqual([{ id: alice, role: 'left' }]);
    await paired.s.waitForEvent('group.v2.participants', (p) => p.type === 'leave', since);
    const changes = events(since)
      .filter((e) => e.event === 'group.v2.participants')
      .map((e) => [e.payload.type, e.payload.participants]);
    expect(changes).toEqual([
      ['join', [{ id: bob, role: 'participant' }]],
      ['promote', [{ id: bob, role: 'admin' }]],
      ['demote', [{ id: bob, role: 'participant' }]],
      ['leave', [{ id: alice, role: 'left' }]],
    ]);
    expect(((await run({ op: 'group.get', args: { id } })) as Group).participants).toEqual([
      { id: paired.phone.contactId, role: 'superadmin' },
      { id: bob, role: 'participant' },
    ]);
  });

  it('a change the server refuses for every member is INVALID naming body.participants', async () => {
    const error = await failure({ op: 'group.participants', args: { id, action: 'add', participants: [{ id: bob }] } });
    expect(error).toMatchObject({ code: 'INVALID', details: [{ path: 'body.participants', reason: expect.stringContaining('409') }] });
  });

  it('the invite link, and a revoke that replaces it (group.v2.update with the new link)', async () => {
    const link = (await run({ op: 'group.inviteCode', args: { id } })) as string;
    expect(link).toBe(`https://chat.whatsapp.com/${paired.fake.groupById(id)!.invite}`);
    const since = paired.s.events.length;
    const revoked = (await run({ op: 'group.revokeInvite', args: { id } })) as string;
    expect(revoked).not.toBe(link);
    expect(revoked).toBe(`https://chat.whatsapp.com/${paired.fake.groupById(id)!.invite}`);
    const update = await paired.s.waitForEvent('group.v2.update', (p) => 'invite' in (p.group as object), since);
    expect(update.payload.group).toEqual({ id, invite: revoked });
  });

  it('the picture: set (the server gets it), read (its address), removed', async () => {
    expect(await run({ op: 'group.picture', args: { id, refresh: false } })).toEqual({ url: null });
    expect(await run({ op: 'group.setPicture', args: { id, file: { mimetype: 'image/png', data: PNG } } })).toEqual({ success: true });
    const { url } = (await run({ op: 'group.picture', args: { id, refresh: true } })) as { url: string };
    expect(url).toMatch(/^https:\/\/pps\.whatsapp\.net\//);
    expect(await run({ op: 'group.deletePicture', args: { id } })).toEqual({ success: true });
    expect(await run({ op: 'group.picture', args: { id, refresh: true } })).toEqual({ url: null });
  });

  it('leave: group.v2.leave from the server’s notification; the group is then NOT_FOUND', async () => {
    const since = paired.s.events.length;
    expect(await run({ op: 'group.leave', args: { id } })).toEqual({ success: true });
    await paired.s.waitForEvent('group.v2.leave', (p) => (p.group as Group).id === id, since);
    expect(await failure({ op: 'group.get', args: { id } })).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('NOWEB groups: invites and what only admins may do', () => {
  it('join-info reads the group an invite leads to; join makes you a member, with group.v2.join', async () => {
    const group = paired.fake.group('120363000000000077', {
      subject: 'Open house',
      creator: ALICE,
      participants: [{ jid: ALICE, role: 'superadmin' }],
    });
    const info = (await run({ op: 'group.joinInfo', args: { code: group.invite } })) as Group;
    expect(info).toMatchObject({ id: group.id, subject: 'Open house', participants: [{ id: alice, role: 'superadmin' }] });
    const since = paired.s.events.length;
    expect(await run({ op: 'group.join', args: { code: group.invite } })).toEqual({ id: group.id });
    const join = await paired.s.waitForEvent('group.v2.join', (p) => (p.group as Group).id === group.id, since);
    expect((join.payload.group as Group).participants).toContainEqual({ id: paired.phone.contactId, role: 'participant' });
    expect(await failure({ op: 'group.joinInfo', args: { code: 'NoSuchInviteCode0000' } })).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a member who is not an admin is refused (WRONG_STATUS, 422) by the server', async () => {
    const id = '120363000000000077@g.us';
    const commands: EngineCommand[] = [
      { op: 'group.setSetting', args: { id, setting: 'messagesAdminOnly', adminsOnly: true } },
      { op: 'group.inviteCode', args: { id } },
      { op: 'group.participants', args: { id, action: 'add', participants: [{ id: bob }] } },
    ];
    for (const command of commands) {
      expect(await failure(command), command.op).toMatchObject({ code: 'WRONG_STATUS' });
    }
  });

  it('deleting a group is not something WhatsApp offers: NOT_SUPPORTED', async () => {
    expect(await failure({ op: 'group.delete', args: { id: '120363000000000077@g.us' } })).toMatchObject({ code: 'NOT_SUPPORTED' });
  });
});
