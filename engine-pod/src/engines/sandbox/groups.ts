import type {
  GroupInfo,
  GroupInfoUpdate,
  GroupParticipant,
  GroupParticipantsChange,
  GroupSecurity,
  GroupSetting,
  MeInfo,
  ParticipantsAction,
} from '@switchboard/protocol';
import { createHash } from 'node:crypto';
import type { CommandArgs } from '../../capabilities/chatting.js';
import { CommandError, invalidField } from '../../command-error.js';
import type { MediaFile } from '../../media/media-store.js';
import type { SandboxSide } from './sandbox-side.js';
import { simulateGroupLeave } from './simulations/groups.js';
import { DEFAULT_MEMBER, nowSeconds, sandboxGroupId, sandboxInviteLink } from './simulations/world-ids.js';

const INVITE = 'https://chat.whatsapp.com/';

/** What the sandbox keeps of a group beyond spec 2.8's record. */
interface GroupExtras {
  infoAdminOnly: boolean;
  /** Where the picture can be downloaded; null when there is none. */
  picture: string | null;
}

/**
 * The SANDBOX account's group operations, on the groups of its world (sandbox-world.ts) that the
 * `group-*` simulations also change. Each change emits the `group.v2.*` events a real engine
 * receives from the service for it. The simulated service holds the rules WhatsApp has: only
 * admins change a group's settings, members and invite link (and its info, when the group says
 * so), only its superadmin deletes it, and numbers starting with `000` are not on WhatsApp
 * (docs/sandbox.md), as invite codes starting with `000` lead nowhere.
 */
export class SandboxGroups {
  private readonly extras = new Map<string, GroupExtras>();
  /** Invite codes revoked: they lead nowhere any more. */
  private readonly revoked = new Set<string>();

  constructor(private readonly side: SandboxSide) {}

  async create(args: CommandArgs<'group.create'>): Promise<GroupInfo> {
    const me = this.side.requireWorking();
    const members = [...new Set(args.participants.map((participant) => participant.id))].filter((member) => member !== me.id);
    notOnWhatsApp(members, 'participants');
    const group: GroupInfo = {
      id: sandboxGroupId(),
      subject: args.name,
      description: '',
      invite: sandboxInviteLink(),
      membersCanAddNewMember: false,
      membersCanSendMessages: true,
      newMembersApprovalRequired: false,
      participants: [{ id: me.id, role: 'superadmin' }, ...members.map((id) => ({ id, role: 'participant' as const }))],
    };
    this.side.world.groups.set(group.id, group);
    const timestamp = nowSeconds();
    this.side.context.emit('group.v2.join', { group, timestamp, _data: notification(group.id, 'create', me.id, members, timestamp) });
    return group;
  }

  async list(): Promise<GroupInfo[]> {
    this.side.requireWorking();
    return [...this.side.world.groups.values()];
  }

  async get(id: string): Promise<GroupInfo> {
    this.side.requireWorking();
    return this.known(id);
  }

  /** The superadmin removes everyone, then leaves: the group is gone. */
  async delete(id: string): Promise<void> {
    const me = this.side.requireWorking();
    const group = this.known(id);
    if (roleOf(group, me) !== 'superadmin') throw notAllowed(group, 'only its superadmin can delete it');
    const others = group.participants.filter((member) => member.id !== me.id).map((member) => member.id);
    const timestamp = nowSeconds();
    if (others.length > 0) {
      const _data = notification(group.id, 'remove', me.id, others, timestamp);
      const participants = others.map((member) => ({ id: member, role: 'left' }));
      this.side.context.emit('group.v2.participants', { type: 'leave', group: { id: group.id }, participants, timestamp, _data });
    }
    this.side.world.groups.set(group.id, { ...group, participants: group.participants.filter((member) => member.id === me.id) });
    await this.leave(id);
  }

  async leave(id: string): Promise<void> {
    this.side.requireWorking();
    await simulateGroupLeave(this.side, { kind: 'group-leave', groupId: this.known(id).id, removed: false });
    this.extras.delete(id);
  }

  async joinInfo(code: string): Promise<GroupInfo> {
    this.side.requireWorking();
    const mine = [...this.side.world.groups.values()].find((group) => group.invite === INVITE + code);
    if (mine) return mine;
    if (code.startsWith('000') || this.revoked.has(code)) {
      throw new CommandError('NOT_FOUND', `invite code ${code} leads to no group: it is not valid or was revoked`, { code });
    }
    return {
      id: groupIdOf(code),
      subject: 'Sandbox group',
      description: '',
      invite: INVITE + code,
      membersCanAddNewMember: false,
      membersCanSendMessages: true,
      newMembersApprovalRequired: false,
      participants: [{ id: DEFAULT_MEMBER, role: 'superadmin' }],
    };
  }

  /** Joining a group you are in changes nothing. */
  async join(code: string): Promise<string> {
    const me = this.side.requireWorking();
    const found = await this.joinInfo(code);
    if (this.side.world.groups.has(found.id)) return found.id;
    const group: GroupInfo = { ...found, participants: [...found.participants, { id: me.id, role: 'participant' }] };
    this.side.world.groups.set(group.id, group);
    const timestamp = nowSeconds();
    const _data = notification(group.id, 'invite', me.id, [me.id], timestamp);
    this.side.context.emit('group.v2.join', { group, timestamp, _data });
    const participants = [{ id: me.id, role: 'participant' }];
    this.side.context.emit('group.v2.participants', { type: 'join', group: { id: group.id }, participants, timestamp, _data });
    return group.id;
  }

  async picture(id: string): Promise<string | null> {
    this.side.requireWorking();
    return this.extrasOf(this.known(id)).picture;
  }

  /** A picture has no field in the group record: no `group.v2.update`, as from the engines. */
  async setPicture(id: string, picture: MediaFile): Promise<void> {
    const group = this.editableInfo(id);
    const stored = await this.side.context.saveMedia(picture);
    this.extrasOf(group).picture = stored?.url ?? null;
  }

  async deletePicture(id: string): Promise<void> {
    this.extrasOf(this.editableInfo(id)).picture = null;
  }

  async setSubject(id: string, subject: string): Promise<void> {
    this.update(this.editableInfo(id), { subject });
  }

  async setDescription(id: string, description: string): Promise<void> {
    this.update(this.editableInfo(id), { description });
  }

  async settings(id: string): Promise<GroupSecurity> {
    this.side.requireWorking();
    const group = this.known(id);
    return { infoAdminOnly: this.extrasOf(group).infoAdminOnly, messagesAdminOnly: !group.membersCanSendMessages };
  }

  /**
   * Who may send is `membersCanSendMessages` of the record (a `group.v2.update`); who may edit the
   * info has no field there, so it changes without one, as NOWEB reports it.
   */
  async setSetting(id: string, setting: GroupSetting, adminsOnly: boolean): Promise<void> {
    const group = this.asAdmin(id);
    if (setting === 'infoAdminOnly') this.extrasOf(group).infoAdminOnly = adminsOnly;
    else this.update(group, { membersCanSendMessages: !adminsOnly });
  }

  async inviteCode(id: string): Promise<string> {
    const group = this.asAdmin(id);
    if (group.invite) return group.invite;
    const invite = sandboxInviteLink();
    this.side.world.groups.set(group.id, { ...group, invite });
    return invite;
  }

  async revokeInvite(id: string): Promise<string> {
    const group = this.asAdmin(id);
    if (group.invite) this.revoked.add(group.invite.slice(INVITE.length));
    const invite = sandboxInviteLink();
    this.update(group, { invite });
    return invite;
  }

  async participants(id: string, action: ParticipantsAction, participants: readonly string[]): Promise<GroupParticipant[]> {
    const me = this.side.requireWorking();
    const group = this.asAdmin(id);
    const members = [...new Set(participants)];
    if (members.includes(me.id)) throw invalidField('participants', 'your own account leaves with POST /api/{session}/groups/{id}/leave');
    const inGroup = new Set(group.participants.map((member) => member.id));
    const wrong = members.filter((member) => (action === 'add' ? inGroup.has(member) : !inGroup.has(member)));
    if (wrong.length > 0) throw invalidField('participants', `${wrong.join(', ')} ${action === 'add' ? 'are members already' : 'are not members'}`);
    if (action === 'add') notOnWhatsApp(members, 'participants');
    const superadmin = group.participants.find((member) => member.role === 'superadmin' && members.includes(member.id));
    if (superadmin && action !== 'promote') throw invalidField('participants', `${superadmin.id} is the group's superadmin`);
    const role = ROLE_AFTER[action];
    const changed = members.map((member) => ({ id: member, role }));
    const kept = group.participants.filter((member) => !members.includes(member.id));
    const after =
      action === 'remove' ? kept : action === 'add' ? [...group.participants, ...changed] : group.participants.map(withRole(members, role));
    this.side.world.groups.set(group.id, { ...group, participants: after });
    const timestamp = nowSeconds();
    const _data = notification(group.id, action, me.id, members, timestamp);
    this.side.context.emit('group.v2.participants', { type: CHANGE[action], group: { id: group.id }, participants: changed, timestamp, _data });
    return changed;
  }

  private known(id: string): GroupInfo {
    const group = this.side.world.groups.get(id);
    if (!group) {
      throw new CommandError('NOT_FOUND', `session '${this.side.context.session}' is not in group ${id}`, {
        session: this.side.context.session,
        id,
      });
    }
    return group;
  }

  private extrasOf(group: GroupInfo): GroupExtras {
    let extras = this.extras.get(group.id);
    if (!extras) this.extras.set(group.id, (extras = { infoAdminOnly: false, picture: null }));
    return extras;
  }

  private asAdmin(id: string): GroupInfo {
    const me = this.side.requireWorking();
    const group = this.known(id);
    if (!isAdmin(roleOf(group, me))) throw notAllowed(group, 'only its admins can');
    return group;
  }

  /** Subject, description and picture: every member may change them unless the group limits it to admins. */
  private editableInfo(id: string): GroupInfo {
    const me = this.side.requireWorking();
    const group = this.known(id);
    if (this.extrasOf(group).infoAdminOnly && !isAdmin(roleOf(group, me))) throw notAllowed(group, 'only its admins can edit its info');
    return group;
  }

  private update(group: GroupInfo, change: Omit<GroupInfoUpdate, 'id'>): void {
    this.side.world.groups.set(group.id, { ...group, ...change });
    const timestamp = nowSeconds();
    const me = this.side.requireWorking();
    this.side.context.emit('group.v2.update', {
      group: { id: group.id, ...change },
      timestamp,
      _data: notification(group.id, 'update', me.id, [], timestamp),
    });
  }
}

const ROLE_AFTER: Record<ParticipantsAction, GroupParticipant['role']> = {
  add: 'participant',
  remove: 'left',
  promote: 'admin',
  demote: 'participant',
};
const CHANGE: Record<ParticipantsAction, GroupParticipantsChange> = { add: 'join', remove: 'leave', promote: 'promote', demote: 'demote' };

function withRole(members: readonly string[], role: GroupParticipant['role']) {
  return (member: GroupParticipant): GroupParticipant => (members.includes(member.id) ? { id: member.id, role } : member);
}

function roleOf(group: GroupInfo, me: MeInfo): GroupParticipant['role'] {
  return group.participants.find((member) => member.id === me.id)?.role ?? 'left';
}

const isAdmin = (role: GroupParticipant['role']) => role === 'admin' || role === 'superadmin';

function notAllowed(group: GroupInfo, why: string): CommandError {
  return new CommandError('WRONG_STATUS', `you are not allowed to do this in group ${group.id}: ${why}`, { id: group.id });
}

/** Numbers starting with `000` are not on the simulated WhatsApp (directory.ts). */
function notOnWhatsApp(members: readonly string[], field: string): void {
  const missing = members.filter((member) => member.startsWith('000'));
  if (missing.length > 0) throw invalidField(field, `${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not on WhatsApp`);
}

/** The group an invite code names on the simulated service: the same code, the same group. */
function groupIdOf(code: string): string {
  const digits = Array.from(createHash('sha256').update(code).digest().subarray(0, 12), (byte) => byte % 10).join('');
  return `120363${digits}@g.us`;
}

/** The engine's own record of a group change (`_data`). */
function notification(chatId: string, type: string, author: string, recipientIds: readonly string[], timestamp: number) {
  return { engine: 'SANDBOX', chatId, type, author, recipientIds, timestamp };
}
