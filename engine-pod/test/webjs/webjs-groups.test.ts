import { GroupInfo, GroupParticipant } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { webjsSession } from './harness.js';

// The peer's Groups operations on WEBJS: Client.createGroup, getChats and GroupChat's participant
// methods, the scripted client answering as the library does. Settings, pictures, invites and
// joining run through Chromium (browser-groups.test.ts).

const GROUP = '120363040000000001@g.us';
const ADA = '15550001111@c.us';
const NOBODY = '15559990000@c.us';

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
