import type { GroupInfo, GroupParticipant, GroupSecurity, ParticipantsAction } from '@switchboard/protocol';
import type { CommandArgs } from '../../capabilities/chatting.js';
import type { GroupParticipantsArgs, GroupPictureArgs } from '../../capabilities/groups.js';
import { CommandError, invalidField } from '../../command-error.js';
import type { WebjsDeps } from './deps.js';
import { groupInfo } from './group-mapping.js';
import type { WebjsGroupChatHandle } from './webjs-client.js';
import { isGroupId, wid } from './webjs-ids.js';

/** The role each change leaves a member in. */
const ROLE_AFTER: Record<ParticipantsAction, GroupParticipant['role']> = {
  add: 'participant',
  remove: 'left',
  promote: 'admin',
  demote: 'participant',
};

const INVITE_LINK = 'https://chat.whatsapp.com/';

/**
 * The peer's Groups operations on WEBJS: `Client.createGroup`, `getInviteInfo`, `acceptInvite`
 * and `GroupChat`'s methods. The changes come back as the library's group notifications, which
 * the engine emits as `group.v2.*` whoever made them. whatsapp-web.js cannot end a group for
 * everyone: no `deleteGroup` (422 from the catalog).
 */
export class WebjsGroups {
  constructor(private readonly deps: WebjsDeps) {}

  /** The library answers an error as a string instead of throwing. */
  async createGroup(args: CommandArgs<'group.create'>): Promise<GroupInfo> {
    const members = args.participants.map((participant) => participant.id);
    const created = await this.deps.client().createGroup(args.name, members).catch(this.deps.engineError('create the group'));
    if (typeof created === 'string') throw new CommandError('ENGINE_ERROR', `WEBJS could not create the group: ${created}`);
    return this.group(wid(created.gid));
  }

  async groups(): Promise<GroupInfo[]> {
    const chats = await this.deps.client().getChats().catch(this.deps.engineError('list the groups'));
    return chats.filter((chat) => chat.isGroup).map(groupInfo);
  }

  async group(id: string): Promise<GroupInfo> {
    return groupInfo(await this.groupChat(id));
  }

  async leaveGroup(id: string): Promise<void> {
    const chat = await this.groupChat(id);
    await chat.leave().catch(this.deps.engineError(`leave ${id}`));
  }

  /** `queryGroupInvite`'s answer is the group's metadata, as a group chat carries it. */
  async groupJoinInfo(code: string): Promise<GroupInfo> {
    const info = await this.deps
      .client()
      .getInviteInfo(code)
      .catch(this.deps.engineError(`read the invite ${code}`));
    if (!info?.id) throw new CommandError('NOT_FOUND', `WhatsApp knows no invite ${code}`, { code });
    return groupInfo({ id: info.id, isGroup: true, groupMetadata: info });
  }

  async joinGroup(code: string): Promise<string> {
    return this.deps
      .client()
      .acceptInvite(code)
      .catch(this.deps.engineError(`join by the invite ${code}`));
  }

  async groupPicture({ id }: CommandArgs<'group.picture'>): Promise<string | null> {
    const url = await this.deps
      .client()
      .getProfilePicUrl(id)
      .catch(this.deps.engineError(`read the picture of ${id}`));
    return url ?? null;
  }

  async setGroupPicture(args: GroupPictureArgs): Promise<void> {
    const chat = await this.groupChat(args.id);
    const { MessageMedia } = await this.deps.content();
    const picture = new MessageMedia(args.file.mimetype, args.file.data.toString('base64'), args.file.filename, args.file.data.length);
    this.adminOnly(await chat.setPicture(picture).catch(this.deps.engineError(`set the picture of ${args.id}`)), args.id, 'change its picture');
  }

  async deleteGroupPicture(id: string): Promise<void> {
    const chat = await this.groupChat(id);
    this.adminOnly(await chat.deletePicture().catch(this.deps.engineError(`delete the picture of ${id}`)), id, 'remove its picture');
  }

  async setGroupSubject(args: CommandArgs<'group.setSubject'>): Promise<void> {
    const chat = await this.groupChat(args.id);
    this.adminOnly(await chat.setSubject(args.subject).catch(this.deps.engineError(`rename ${args.id}`)), args.id, 'change its subject');
  }

  async setGroupDescription(args: CommandArgs<'group.setDescription'>): Promise<void> {
    const chat = await this.groupChat(args.id);
    const done = await chat.setDescription(args.description).catch(this.deps.engineError(`describe ${args.id}`));
    this.adminOnly(done, args.id, 'change its description');
  }

  /** `restrict`: only admins edit the info; `announce`: only admins send. */
  async groupSettings(id: string): Promise<GroupSecurity> {
    const meta = (await this.groupChat(id)).groupMetadata ?? {};
    return { infoAdminOnly: Boolean(meta.restrict), messagesAdminOnly: Boolean(meta.announce) };
  }

  async setGroupSetting(args: CommandArgs<'group.setSetting'>): Promise<void> {
    const chat = await this.groupChat(args.id);
    const set = args.setting === 'infoAdminOnly' ? chat.setInfoAdminsOnly(args.adminsOnly) : chat.setMessagesAdminsOnly(args.adminsOnly);
    this.adminOnly(await set.catch(this.deps.engineError(`change the settings of ${args.id}`)), args.id, 'change its settings');
  }

  async groupInviteCode(id: string): Promise<string> {
    const chat = await this.groupChat(id);
    const code = await chat.getInviteCode().catch(this.deps.engineError(`read the invite of ${id}`));
    if (!code) throw new CommandError('WRONG_STATUS', `only admins of ${id} can read its invite link`, { id });
    return `${INVITE_LINK}${code}`;
  }

  async revokeGroupInvite(id: string): Promise<string> {
    const chat = await this.groupChat(id);
    const code = await chat.revokeInvite().catch(this.deps.engineError(`revoke the invite of ${id}`));
    return `${INVITE_LINK}${code}`;
  }

  /**
   * Adding answers each member on its own (200 added); the members the service refused are a
   * 400 naming them when none was added, and left out when some were. The other changes answer
   * for all at once.
   */
  async updateGroupParticipants(args: GroupParticipantsArgs): Promise<GroupParticipant[]> {
    const chat = await this.groupChat(args.id);
    const ids = [...args.participants];
    const doing = this.deps.engineError(`${args.action} members of ${args.id}`);
    const role = ROLE_AFTER[args.action];
    if (args.action !== 'add') {
      const change = {
        remove: () => chat.removeParticipants(ids),
        promote: () => chat.promoteParticipants(ids),
        demote: () => chat.demoteParticipants(ids),
      };
      await change[args.action]().catch(doing);
      return ids.map((id) => ({ id, role }));
    }
    const results = await chat.addParticipants(ids, { autoSendInviteV4: false }).catch(doing);
    if (typeof results === 'string') throw new CommandError('ENGINE_ERROR', `WEBJS could not add members to ${args.id}: ${results}`);
    const added = ids.filter((id) => results[id]?.code === 200);
    if (added.length === 0) {
      const refused = ids.map((id) => `${id}: ${results[id]?.code ?? '?'} ${results[id]?.message ?? ''}`.trim()).join(', ');
      throw invalidField('participants', `the service refused every member (${refused})`);
    }
    return added.map((id) => ({ id, role }));
  }

  private async groupChat(id: string): Promise<WebjsGroupChatHandle> {
    const chat = await this.deps
      .client()
      .getChatById(id)
      .catch(this.deps.engineError(`find group ${id}`));
    if (!chat.isGroup || !isGroupId(wid(chat.id))) throw new CommandError('NOT_FOUND', `WEBJS found no group ${id}`, { id });
    return chat as WebjsGroupChatHandle;
  }

  /** The library answers false when the service refused: you are not an admin. */
  private adminOnly(done: boolean, id: string, what: string): void {
    if (!done) throw new CommandError('WRONG_STATUS', `WhatsApp allows only admins of ${id} to ${what}`, { id });
  }
}
