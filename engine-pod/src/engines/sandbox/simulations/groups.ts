import type {
  GroupInfo,
  GroupInfoUpdate,
  GroupParticipant,
  GroupParticipantsChange,
  SimulateGroupJoin,
  SimulateGroupLeave,
  SimulateGroupParticipants,
  SimulateGroupUpdate,
} from '@switchboard/protocol';
import type { z } from 'zod';
import { CommandError, invalidField } from '../../../command-error.js';
import type { SandboxSide } from '../sandbox-side.js';
import type { SimulationResult } from './simulation.js';
import { DEFAULT_MEMBER, nowSeconds, sandboxGroupId, sandboxInviteLink } from './world-ids.js';

/**
 * You are added to a group: `group.v2.join` with the whole group, `group.v2.participants` (join,
 * your own id: spec 6.2 says it may duplicate) and the deprecated `group.join`, as WEBJS sends them.
 */
export async function simulateGroupJoin(side: SandboxSide, request: z.infer<typeof SimulateGroupJoin>): SimulationResult {
  const me = side.requireWorking();
  const id = request.groupId ?? sandboxGroupId();
  if (side.world.groups.has(id)) throw invalidField('groupId', `session '${side.context.session}' is in ${id} already`);
  const by = request.by ?? DEFAULT_MEMBER;
  const others = [...new Set(request.participants)].filter((member) => member !== by && member !== me.id);
  const group: GroupInfo = {
    id,
    subject: request.subject ?? 'Sandbox group',
    description: request.description ?? '',
    invite: sandboxInviteLink(),
    membersCanAddNewMember: request.membersCanAddNewMember ?? false,
    membersCanSendMessages: request.membersCanSendMessages ?? true,
    newMembersApprovalRequired: request.newMembersApprovalRequired ?? false,
    participants: [
      { id: by, role: request.role === 'superadmin' ? 'admin' : 'superadmin' },
      ...others.map((member) => ({ id: member, role: 'participant' as const })),
      { id: me.id, role: request.role },
    ],
  };
  side.world.groups.set(id, group);
  const timestamp = nowSeconds();
  const _data = notification(id, 'add', by, [me.id], timestamp);
  side.context.emit('group.v2.join', { group, timestamp, _data });
  const participants = [{ id: me.id, role: request.role }];
  side.context.emit('group.v2.participants', { type: 'join', group: { id }, participants, timestamp, _data });
  side.context.emit('group.join', _data);
  return { id };
}

/** You leave (or an admin removes you from) a group: `group.v2.leave`, its participants event and the deprecated `group.leave`. */
export async function simulateGroupLeave(side: SandboxSide, request: z.infer<typeof SimulateGroupLeave>): SimulationResult {
  const me = side.requireWorking();
  const group = knownGroup(side, request.groupId);
  const admin = adminOf(group);
  side.world.groups.delete(group.id);
  const timestamp = nowSeconds();
  const _data = notification(group.id, request.removed ? 'remove' : 'leave', request.removed ? admin : me.id, [me.id], timestamp);
  side.context.emit('group.v2.leave', { group: { id: group.id }, timestamp, _data });
  const participants = [{ id: me.id, role: 'left' }];
  side.context.emit('group.v2.participants', { type: 'leave', group: { id: group.id }, participants, timestamp, _data });
  side.context.emit('group.leave', _data);
  return { id: group.id };
}

/** The role a member has after each change (NOWEB's mapping). */
const ROLE_AFTER: Record<GroupParticipantsChange, GroupParticipant['role']> = {
  join: 'participant',
  leave: 'left',
  promote: 'admin',
  demote: 'participant',
};

/**
 * Other members join, leave, are promoted or demoted: `group.v2.participants` with only them,
 * and for joins and leaves the deprecated `group.join` / `group.leave`, as WEBJS sends them.
 */
export async function simulateGroupParticipants(side: SandboxSide, request: z.infer<typeof SimulateGroupParticipants>): SimulationResult {
  const me = side.requireWorking();
  const group = knownGroup(side, request.groupId);
  const members = [...new Set(request.participants)];
  if (members.includes(me.id)) throw invalidField('participants', 'your own account joins and leaves with group-join and group-leave');
  const inGroup = new Set(group.participants.map((member) => member.id));
  const wrong = members.filter((member) => (request.type === 'join' ? inGroup.has(member) : !inGroup.has(member)));
  if (wrong.length > 0) {
    throw invalidField('participants', `${wrong.join(', ')} ${request.type === 'join' ? 'are members already' : 'are not members'}`);
  }
  const role = ROLE_AFTER[request.type];
  const changed = members.map((id) => ({ id, role }));
  const kept = group.participants.filter((member) => !members.includes(member.id));
  side.world.groups.set(group.id, { ...group, participants: request.type === 'leave' ? kept : [...kept, ...changed] });
  const timestamp = nowSeconds();
  const author = adminOf(group);
  const action = request.type === 'join' ? 'add' : request.type === 'leave' ? 'remove' : request.type;
  const _data = notification(group.id, action, author, members, timestamp);
  side.context.emit('group.v2.participants', { type: request.type, group: { id: group.id }, participants: changed, timestamp, _data });
  if (request.type === 'join') side.context.emit('group.join', _data);
  if (request.type === 'leave') side.context.emit('group.leave', _data);
  return { id: group.id, participants: changed };
}

/** An admin changes the group's settings: `group.v2.update` with the id and what changed. */
export async function simulateGroupUpdate(side: SandboxSide, request: z.infer<typeof SimulateGroupUpdate>): SimulationResult {
  side.requireWorking();
  const group = knownGroup(side, request.groupId);
  const { kind: _kind, groupId: _groupId, invite, ...settings } = request;
  const change: GroupInfoUpdate = { id: group.id, ...settings, ...(invite ? { invite: sandboxInviteLink() } : {}) };
  side.world.groups.set(group.id, { ...group, ...change });
  const timestamp = nowSeconds();
  const author = adminOf(group);
  side.context.emit('group.v2.update', { group: change, timestamp, _data: notification(group.id, 'update', author, [], timestamp) });
  return { group: change };
}

/** Who makes changes the simulated group sees: its first admin. */
function adminOf(group: GroupInfo): string {
  return group.participants.find((member) => member.role === 'superadmin' || member.role === 'admin')?.id ?? DEFAULT_MEMBER;
}

function knownGroup(side: SandboxSide, id: string): GroupInfo {
  const group = side.world.groups.get(id);
  if (!group) {
    throw new CommandError('NOT_FOUND', `session '${side.context.session}' is not in group ${id}; simulate group-join first`, {
      session: side.context.session,
      groupId: id,
    });
  }
  return group;
}

/** The engine's own record of a group change (`_data`, and the deprecated events' payload). */
function notification(chatId: string, type: string, author: string, recipientIds: string[], timestamp: number) {
  return { engine: 'SANDBOX', chatId, type, author, recipientIds, timestamp };
}
