import type { GroupInfo, GroupParticipant, GroupParticipantRole, GroupParticipantsChange, GroupSecurity } from '@switchboard/protocol';
import type { CommandArgs } from '../../capabilities/chatting.js';
import type { GroupParticipantsArgs, GroupPictureArgs } from '../../capabilities/groups.js';
import { CommandError, invalidField } from '../../command-error.js';
import { groupInfo } from '../webjs/group-mapping.js';
import type { WebjsChat } from '../webjs/webjs-client.js';
import { wid } from '../webjs/webjs-ids.js';
import { pictureOf, type WppChatsClient } from './wpp-chats.js';
import type { WppPage } from './wpp-client.js';
import type { WppConnection } from './wpp-connection.js';
import { describeWppError } from './wpp-send-options.js';

type WppWid = string | { readonly _serialized: string };

/** A member change as WPPConnect's `onParticipantsChanged` reports it (wa-js's `group.participant_changed`). */
export interface WppParticipantsChange {
  readonly by?: string;
  readonly groupId: string;
  readonly action: 'add' | 'remove' | 'join' | 'leave' | 'promote' | 'demote';
  readonly who: readonly string[];
}

/** A notification message (WPPConnect's `onNotificationMessage`): group changes are `gp2`. */
export interface WppNotification {
  readonly type?: string;
  readonly subtype?: string;
  readonly body?: string;
  readonly t?: number;
  readonly id: string | { readonly _serialized: string; readonly remote: WppWid };
  readonly from?: WppWid;
  readonly author?: WppWid;
}

/** The slice of WPPConnect's client (its group layer) the group operations use. */
export interface WppGroupsClient extends Pick<WppChatsClient, 'getProfilePicFromServer'> {
  readonly page: WppPage;
  createGroup(name: string, contacts: string[]): Promise<{ gid: WppWid }>;
  leaveGroup(groupId: string): Promise<unknown>;
  getGroupInfoFromInviteLink(code: string): Promise<WppInviteInfo>;
  joinGroup(code: string): Promise<{ id: string }>;
  addParticipant(groupId: string, ids: string[]): Promise<Record<string, { code: number; message?: string }>>;
  removeParticipant(groupId: string, ids: string[]): Promise<unknown>;
  promoteParticipant(groupId: string, ids: string[]): Promise<unknown>;
  demoteParticipant(groupId: string, ids: string[]): Promise<unknown>;
  setGroupSubject(groupId: string, subject: string): Promise<unknown>;
  setGroupDescription(groupId: string, description: string): Promise<unknown>;
  setGroupProperty(groupId: string, property: 'announcement' | 'restrict', value: boolean): Promise<unknown>;
  getGroupInviteLink(groupId: string): Promise<string>;
  /** A `data:` URL: wa-js crops it to WhatsApp's sizes in the page. */
  setGroupIcon(groupId: string, base64: string): Promise<{ status?: number }>;
  removeGroupIcon(groupId: string): Promise<boolean>;
  revokeGroupInviteLink(groupId: string): Promise<string>;
  onParticipantsChanged(callback: (change: WppParticipantsChange) => void): unknown;
  onNotificationMessage(callback: (message: WppNotification) => void): unknown;
}

/** What `queryGroupInvite` answers: the group's metadata, members' ids serialized. */
export interface WppInviteInfo {
  readonly id: string;
  readonly subject?: string;
  readonly desc?: string;
  readonly announce?: boolean;
  readonly restrict?: boolean;
  readonly participants?: readonly { readonly id: string; readonly isAdmin?: boolean; readonly isSuperAdmin?: boolean }[];
}

/** What each member change leaves a member as; a member who left keeps `left` (spec 2.8). */
const CHANGES: Record<WppParticipantsChange['action'], { type: GroupParticipantsChange; role: GroupParticipantRole }> = {
  add: { type: 'join', role: 'participant' },
  join: { type: 'join', role: 'participant' },
  remove: { type: 'leave', role: 'left' },
  leave: { type: 'leave', role: 'left' },
  promote: { type: 'promote', role: 'admin' },
  demote: { type: 'demote', role: 'participant' },
};

const ROLE_AFTER: Record<GroupParticipantsArgs['action'], GroupParticipant['role']> = {
  add: 'participant',
  remove: 'left',
  promote: 'admin',
  demote: 'participant',
};

/**
 * The peer's Groups operations on WPP, through WPPConnect's group layer (wa-js's `WPP.group`):
 * create, read, members, subject, description, settings, invite links, join and leave. Every
 * change comes back as wa-js's group events (`group.participant_changed`, the `gp2` notification
 * messages), emitted as `group.v2.*` whoever made it. Pictures are read from the server as a
 * contact's are (WPPConnect's `getProfilePicFromServer`, wa-js's `WPP.contact.getProfilePictureUrl`
 * on the group's id), set (wa-js crops them to WhatsApp's JPEG sizes in the page) and removed.
 * wa-js cannot end a group for everyone.
 */
export class WppGroups {
  constructor(private readonly connection: WppConnection) {}

  /** The group events of a new client, before it signs in. */
  listen(client: WppGroupsClient): void {
    client.onParticipantsChanged((change) => void this.participantsChanged(client, change));
    client.onNotificationMessage((message) => this.notified(message));
  }

  async createGroup(args: CommandArgs<'group.create'>): Promise<GroupInfo> {
    const members = args.participants.map((participant) => participant.id);
    const created = await this.client()
      .createGroup(args.name, members)
      .catch((error: unknown) => {
        // wa-js looks each member up first and makes no group when one has no account.
        if (/participant not exists/i.test(describeWppError(error)))
          throw invalidField('participants', `a member has no WhatsApp account (${describeWppError(error)})`);
        return this.refused('create the group', error, null);
      });
    return this.group(wid(created.gid) ?? '');
  }

  async groups(): Promise<GroupInfo[]> {
    return (await this.read(this.client(), null)).map(groupInfo);
  }

  async group(id: string): Promise<GroupInfo> {
    const [chat] = await this.read(this.client(), [id]);
    return groupInfo(chat!);
  }

  async leaveGroup(id: string): Promise<void> {
    await this.client()
      .leaveGroup(id)
      .catch((error: unknown) => this.refused(`leave ${id}`, error, id));
  }

  async groupJoinInfo(code: string): Promise<GroupInfo> {
    const info = await this.client()
      .getGroupInfoFromInviteLink(code)
      .catch((error: unknown) => {
        if (/invalid invite code/i.test(describeWppError(error))) throw new CommandError('NOT_FOUND', `WhatsApp knows no invite ${code}`, { code });
        return this.refused(`read the invite ${code}`, error, null);
      });
    return groupInfo({ id: info.id, isGroup: true, groupMetadata: info });
  }

  async joinGroup(code: string): Promise<string> {
    const joined = await this.client()
      .joinGroup(code)
      .catch((error: unknown) => this.refused(`join by the invite ${code}`, error, null));
    return joined.id;
  }

  /** Asked of the server each time, as WEBJS does; null when the group has no picture. */
  groupPicture({ id }: CommandArgs<'group.picture'>): Promise<string | null> {
    return pictureOf(this.client(), id);
  }

  async setGroupPicture(args: GroupPictureArgs): Promise<void> {
    const picture = `data:${args.file.mimetype};base64,${args.file.data.toString('base64')}`;
    const set = await this.client()
      .setGroupIcon(args.id, picture)
      .catch((error: unknown) => this.refused(`set the picture of ${args.id}`, error, args.id));
    if (set.status !== undefined && set.status !== 200)
      throw new CommandError('WRONG_STATUS', `WhatsApp allows only admins of ${args.id} to change its picture`, { id: args.id });
  }

  async deleteGroupPicture(id: string): Promise<void> {
    const removed = await this.client()
      .removeGroupIcon(id)
      .catch((error: unknown) => this.refused(`delete the picture of ${id}`, error, id));
    if (!removed) throw new CommandError('WRONG_STATUS', `WhatsApp allows only admins of ${id} to remove its picture`, { id });
  }

  async setGroupSubject(args: CommandArgs<'group.setSubject'>): Promise<void> {
    await this.client()
      .setGroupSubject(args.id, args.subject)
      .catch((error: unknown) => this.refused(`rename ${args.id}`, error, args.id));
  }

  async setGroupDescription(args: CommandArgs<'group.setDescription'>): Promise<void> {
    await this.client()
      .setGroupDescription(args.id, args.description)
      .catch((error: unknown) => this.refused(`describe ${args.id}`, error, args.id));
  }

  /** `restrict`: only admins edit the info; `announce`: only admins send. */
  async groupSettings(id: string): Promise<GroupSecurity> {
    const meta = (await this.read(this.client(), [id]))[0]?.groupMetadata ?? {};
    return { infoAdminOnly: Boolean(meta.restrict), messagesAdminOnly: Boolean(meta.announce) };
  }

  async setGroupSetting(args: CommandArgs<'group.setSetting'>): Promise<void> {
    const property = args.setting === 'infoAdminOnly' ? 'restrict' : 'announcement';
    await this.client()
      .setGroupProperty(args.id, property, args.adminsOnly)
      .catch((error: unknown) => this.refused(`change the settings of ${args.id}`, error, args.id));
  }

  async groupInviteCode(id: string): Promise<string> {
    return this.client()
      .getGroupInviteLink(id)
      .catch((error: unknown) => this.refused(`read the invite of ${id}`, error, id));
  }

  async revokeGroupInvite(id: string): Promise<string> {
    return this.client()
      .revokeGroupInviteLink(id)
      .catch((error: unknown) => this.refused(`revoke the invite of ${id}`, error, id));
  }

  /**
   * Adding answers each member's code (200 added); the members the service refused are a 400
   * naming them when none was added, and left out when some were. The other changes answer for
   * all at once.
   */
  async updateGroupParticipants(args: GroupParticipantsArgs): Promise<GroupParticipant[]> {
    const client = this.client();
    const ids = [...args.participants];
    const role = ROLE_AFTER[args.action];
    const doing = (error: unknown) => this.refused(`${args.action} members of ${args.id}`, error, args.id);
    if (args.action !== 'add') {
      const change = {
        remove: () => client.removeParticipant(args.id, ids),
        promote: () => client.promoteParticipant(args.id, ids),
        demote: () => client.demoteParticipant(args.id, ids),
      };
      await change[args.action]().catch(doing);
      return ids.map((id) => ({ id, role }));
    }
    const results = await client.addParticipant(args.id, ids).catch(doing);
    const added = ids.filter((id) => results[id]?.code === 200);
    if (added.length === 0) {
      const refused = ids.map((id) => `${id}: ${results[id]?.code ?? '?'} ${results[id]?.message ?? ''}`.trim()).join(', ');
      throw invalidField('participants', `the service refused every member (${refused})`);
    }
    return added.map((id) => ({ id, role }));
  }

  private client(): WppGroupsClient {
    return this.connection.workingClient();
  }

  /**
   * The groups as WhatsApp Web has them (wa-js's `group.ensureGroup`, or `getAllGroups`, which
   * asks the server), in whatsapp-web.js's chat shape so that WEBJS's mapping reads them.
   */
  private async read(client: WppGroupsClient, ids: readonly string[] | null): Promise<WebjsChat[]> {
    return client.page
      .evaluate(async (wanted: readonly string[] | null) => {
        const { WPP } = globalThis as unknown as WppGroupPage;
        const chats = wanted === null ? await WPP.group.getAllGroups() : await Promise.all(wanted.map((id) => WPP.group.ensureGroup(id)));
        return chats
          .filter((chat): chat is WppGroupChat => Boolean(chat?.groupMetadata))
          .map((chat) => {
            const meta = chat.groupMetadata!;
            return {
              id: chat.id._serialized,
              name: chat.name,
              isGroup: true,
              groupMetadata: {
                subject: meta.subject,
                desc: meta.desc,
                announce: Boolean(meta.announce),
                restrict: Boolean(meta.restrict),
                memberAddMode: meta.memberAddMode,
                membershipApprovalMode: Boolean(meta.membershipApprovalMode),
                participants: meta.participants.getModelsArray().map((member) => ({
                  id: member.id._serialized,
                  isAdmin: Boolean(member.isAdmin),
                  isSuperAdmin: Boolean(member.isSuperAdmin),
                })),
              },
            };
          });
      }, ids)
      .catch((error: unknown) => this.refused(ids ? `find group ${ids.join(', ')}` : 'list the groups', error, ids?.[0] ?? null));
  }

  /** wa-js's refusals as the command's: a group it does not know is NOT_FOUND, a right the account lacks WRONG_STATUS. */
  private refused(what: string, error: unknown, id: string | null): never {
    const message = describeWppError(error);
    if (id && /chat_not_found|not_a_group|not found|item-not-found/i.test(message))
      throw new CommandError('NOT_FOUND', `WhatsApp Web has no group ${id}`, { id });
    if (id && /not admin|not allowed|not-authorized/i.test(message))
      throw new CommandError('WRONG_STATUS', `WhatsApp Web could not ${what}: only its admins may (${message})`, { id });
    throw new CommandError('ENGINE_ERROR', `WhatsApp Web could not ${what}: ${message}`);
  }

  /** A member change, whoever made it; the account's own joining or leaving is group.v2.join or .leave too. */
  private async participantsChanged(client: WppGroupsClient, change: WppParticipantsChange): Promise<void> {
    const { context } = this.connection;
    const { type, role } = CHANGES[change.action];
    const timestamp = Math.floor(Date.now() / 1000);
    const _data = { ...change };
    const group = { id: change.groupId };
    context.emit('group.v2.participants', { type, group, participants: change.who.map((id) => ({ id, role })), timestamp, _data });
    if (!change.who.includes(this.connection.meId())) return;
    if (type === 'leave') context.emit('group.v2.leave', { group, timestamp, _data });
    if (type !== 'join') return;
    const [chat] = await this.read(client, [change.groupId]).catch(() => []);
    if (chat) context.emit('group.v2.join', { group: groupInfo(chat), timestamp, _data });
  }

  /** A `gp2` notification of a new subject or description: the body carries it. */
  private notified(message: WppNotification): void {
    if (message.type !== 'gp2' || (message.subtype !== 'subject' && message.subtype !== 'description')) return;
    const id = typeof message.id === 'string' ? null : wid(message.id.remote);
    const groupId = id ?? wid(message.from ?? null);
    if (!groupId) return;
    const body = message.body ?? '';
    this.connection.context.emit('group.v2.update', {
      group: { id: groupId, ...(message.subtype === 'subject' ? { subject: body } : { description: body }) },
      timestamp: message.t ?? Math.floor(Date.now() / 1000),
      _data: { ...message },
    });
  }
}

/** What the group reads use of wa-js in the page (`window.WPP`). */
interface WppGroupPage {
  WPP: {
    group: {
      getAllGroups(): Promise<(WppGroupChat | undefined)[]>;
      ensureGroup(id: string): Promise<WppGroupChat>;
    };
  };
}

interface WppGroupChat {
  id: { _serialized: string };
  name?: string;
  groupMetadata?: {
    subject?: string;
    desc?: string;
    announce?: boolean;
    restrict?: boolean;
    memberAddMode?: string;
    membershipApprovalMode?: boolean;
    participants: { getModelsArray(): { id: { _serialized: string }; isAdmin?: boolean; isSuperAdmin?: boolean }[] };
  };
}
