import type { GroupInfo, GroupParticipant, GroupSecurity } from '@switchboard/protocol';
import type { MediaFile } from '../media/media-store.js';
import type { CommandArgs } from './chatting.js';

/** A group picture, already downloaded or decoded by the host (media/resolve-file.ts). */
export type GroupPictureArgs = Omit<CommandArgs<'group.setPicture'>, 'file'> & { readonly file: MediaFile };
/** The members as ids. */
export type GroupParticipantsArgs = Omit<CommandArgs<'group.participants'>, 'participants'> & { readonly participants: readonly string[] };

/**
 * The account's groups (the peer's Groups operations), for engines whose messaging service lets
 * a linked device manage them. Each method is optional: an engine without it answers 422
 * NOT_SUPPORTED naming itself (dispatch/groups.ts). All of them need WORKING. Groups travel as
 * spec 2.8's record; the changes each makes arrive as the `group.v2.*` events the engine emits
 * for any change, whoever made it. One argument each, so GOWS's proxy forwards them as they are.
 */
export interface GroupManagement {
  /** A new group with you as its superadmin, as its record. */
  createGroup?(args: CommandArgs<'group.create'>): Promise<GroupInfo>;
  /** The groups you are in; `refresh` asks the service rather than the engine's copy. */
  groups?(refresh: boolean): Promise<GroupInfo[]>;
  group?(id: string): Promise<GroupInfo>;
  /** Ends the group for everyone (its superadmin only). */
  deleteGroup?(id: string): Promise<void>;
  leaveGroup?(id: string): Promise<void>;
  /** The group an invite code leads to, without joining it. */
  groupJoinInfo?(code: string): Promise<GroupInfo>;
  /** Joins by invite code; the group's id. */
  joinGroup?(code: string): Promise<string>;
  /** Where the group's picture can be downloaded; null when it has none. */
  groupPicture?(args: CommandArgs<'group.picture'>): Promise<string | null>;
  setGroupPicture?(args: GroupPictureArgs): Promise<void>;
  deleteGroupPicture?(id: string): Promise<void>;
  setGroupSubject?(args: CommandArgs<'group.setSubject'>): Promise<void>;
  setGroupDescription?(args: CommandArgs<'group.setDescription'>): Promise<void>;
  groupSettings?(id: string): Promise<GroupSecurity>;
  setGroupSetting?(args: CommandArgs<'group.setSetting'>): Promise<void>;
  /** The invite link, `https://chat.whatsapp.com/<code>`. */
  groupInviteCode?(id: string): Promise<string>;
  /** Invalidates the invite link; the new one. */
  revokeGroupInvite?(id: string): Promise<string>;
  /** Adds, removes, promotes or demotes members; each with the role it has now. */
  updateGroupParticipants?(args: GroupParticipantsArgs): Promise<GroupParticipant[]>;
}
