import { GroupInfo, GroupParticipant } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { structures } from './library-shapes.js';
import { webjsSession } from './harness.js';

// The peer's Groups operations on WEBJS: Client.createGroup, getInviteInfo, acceptInvite and
// GroupChat's methods, the scripted client answering as the library does.

const GROUP = '120363040000000001@g.us';
const ADA = '15550001111@c.us';
const NOBODY = '15559990000@c.us';
const PNG = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64');

async function working() {
  const s = webjsSession();
  await s.working();
  s.client.registered.add(ADA);
  const run = <T>(command: Parameters<typeof s.host.execute>[0]) => s.host.execute(command) as Promise<T>;
  /** The arguments of the last call named exactly `call`. */
  const argsOf = (call: string) => s.client.args[s.client.calls.lastIndexOf(call)];
  return { ...s, run, argsOf };
}

describe('WEBJS groups', () => {
  it('create: Client.createGroup with the members, answered with the new group as spec 2.8 has it', async () => {
    const s = await working();
    const group = await s.run<GroupInfo>({ op: 'group.create', args: { name: 'Project team', participants: [{ id: ADA }] } });
    expect(s.argsOf('createGroup')).toEqual(['Project team', [ADA]]);
    expect(GroupInfo.parse(group)).toMatchObject({ id: '120363040000000099@g.us' });
  });

  it('list and get: the group chats of getChats, and one by getChatById; a direct chat is no group', async () => {
    const s = await working();
    s.client.chatIds.push('15551234567@c.us', GROUP);
    const groups = await s.run<GroupInfo[]>({ op: 'group.list' });
    expect(groups.map((group) => GroupInfo.parse(group).id)).toEqual([GROUP]);
    expect(GroupInfo.parse(await s.run({ op: 'group.get', args: { id: GROUP } }))).toMatchObject({
      subject: 'Switchboard testers',
      participants: [
        { id: '15551112222@c.us', role: 'superadmin' },
        { id: '15550000000@c.us', role: 'participant' },
      ],
    });
  });

  it('subject, description, settings, picture, leave: GroupChat’s methods with their arguments', async () => {
    const s = await working();
    await s.run({ op: 'group.setSubject', args: { id: GROUP, subject: 'New name' } });
    await s.run({ op: 'group.setDescription', args: { id: GROUP, description: 'About us' } });
    await s.run({ op: 'group.setSetting', args: { id: GROUP, setting: 'messagesAdminOnly', adminsOnly: true } });
    await s.run({ op: 'group.setSetting', args: { id: GROUP, setting: 'infoAdminOnly', adminsOnly: false } });
    await s.run({ op: 'group.setPicture', args: { id: GROUP, file: { mimetype: 'image/png', filename: null, data: PNG } } });
    await s.run({ op: 'group.deletePicture', args: { id: GROUP } });
    await s.run({ op: 'group.leave', args: { id: GROUP } });
    expect(s.argsOf(`setSubject ${GROUP}`)).toEqual(['New name']);
    expect(s.argsOf(`setDescription ${GROUP}`)).toEqual(['About us']);
    expect(s.argsOf(`setMessagesAdminsOnly ${GROUP}`)).toEqual([true]);
    expect(s.argsOf(`setInfoAdminsOnly ${GROUP}`)).toEqual([false]);
    const [picture] = s.argsOf(`setPicture ${GROUP}`)!;
    expect(picture).toBeInstanceOf(structures.MessageMedia);
    expect(picture).toMatchObject({ mimetype: 'image/png', data: PNG });
    expect(s.client.calls).toEqual(expect.arrayContaining([`deletePicture ${GROUP}`, `leave ${GROUP}`]));
    expect(await s.run({ op: 'group.settings', args: { id: GROUP } })).toEqual({ infoAdminOnly: true, messagesAdminOnly: false });
  });

  it('a change the service refuses (not an admin) is WRONG_STATUS', async () => {
    const s = await working();
    s.client.admin = false;
    await expect(s.run({ op: 'group.setSubject', args: { id: GROUP, subject: 'x' } })).rejects.toMatchObject({ code: 'WRONG_STATUS' });
    await expect(s.run({ op: 'group.inviteCode', args: { id: GROUP } })).rejects.toMatchObject({ code: 'WRONG_STATUS' });
  });

  it('invite link, revoke, join info, join: getInviteCode, revokeInvite, getInviteInfo, acceptInvite', async () => {
    const s = await working();
    expect(await s.run({ op: 'group.inviteCode', args: { id: GROUP } })).toBe('https://chat.whatsapp.com/AbCdEfGhIjK0123');
    expect(await s.run({ op: 'group.revokeInvite', args: { id: GROUP } })).toBe('https://chat.whatsapp.com/NeWcOdE456789');
    s.client.invites.set('JoInMe123', GROUP);
    expect(GroupInfo.parse(await s.run({ op: 'group.joinInfo', args: { code: 'JoInMe123' } }))).toMatchObject({ id: GROUP });
    expect(await s.run({ op: 'group.join', args: { code: 'JoInMe123' } })).toEqual({ id: GROUP });
    expect(s.argsOf('acceptInvite')).toEqual(['JoInMe123']);
  });

  it('participants: add answers those the service added, remove/promote/demote all named; nobody added is a 400', async () => {
    const s = await working();
    const added = await s.run<GroupParticipant[]>({
      op: 'group.participants',
      args: { id: GROUP, action: 'add', participants: [{ id: ADA }, { id: NOBODY }] },
    });
    expect(added.map((p) => GroupParticipant.parse(p))).toEqual([{ id: ADA, role: 'participant' }]);
    expect(s.argsOf(`addParticipants ${GROUP}`)).toEqual([[ADA, NOBODY], { autoSendInviteV4: false }]);
    expect(await s.run({ op: 'group.participants', args: { id: GROUP, action: 'promote', participants: [{ id: ADA }] } })).toEqual([
      { id: ADA, role: 'admin' },
    ]);
    expect(await s.run({ op: 'group.participants', args: { id: GROUP, action: 'demote', participants: [{ id: ADA }] } })).toEqual([
      { id: ADA, role: 'participant' },
    ]);
    expect(await s.run({ op: 'group.participants', args: { id: GROUP, action: 'remove', participants: [{ id: ADA }] } })).toEqual([
      { id: ADA, role: 'left' },
    ]);
    expect(s.argsOf(`removeParticipants ${GROUP}`)).toEqual([[ADA]]);
    await expect(s.run({ op: 'group.participants', args: { id: GROUP, action: 'add', participants: [{ id: NOBODY }] } })).rejects.toMatchObject({
      code: 'INVALID',
    });
  });
});
