import type { GroupInfo, GroupInfoUpdate, GroupParticipantRole, GroupParticipantsChange, GroupV2ParticipantsPayload } from '@switchboard/protocol';
import type { WebjsChat, WebjsGroupNotification } from './webjs-client.js';
import { wid } from './webjs-ids.js';

/*
 * Pure functions from whatsapp-web.js group notifications (gp2 messages) and group chats to the
 * `group.v2.*` payloads of spec 6.2 and the group record of spec 2.8.
 */

/** What a member is after each change; a member who left keeps `left` (spec 2.8). */
const ROLE_AFTER: Record<GroupParticipantsChange, GroupParticipantRole> = {
  join: 'participant',
  leave: 'left',
  promote: 'admin',
  demote: 'participant',
};

/** The notification as plain data: `_data` of the group events, and the deprecated payloads. */
export function notificationData(notification: WebjsGroupNotification): Record<string, unknown> {
  return {
    id: notification.id,
    chatId: notification.chatId,
    author: notification.author ?? null,
    recipientIds: notification.recipientIds.map((id) => wid(id)),
    type: notification.type,
    body: notification.body,
    timestamp: notification.timestamp,
  };
}

/**
 * The members a notification is about: the added, removed, promoted ... ones. Who joined by
 * invite link or left on their own may be named only as the author.
 */
export function members(notification: WebjsGroupNotification): string[] {
  const ids = notification.recipientIds.map((id) => wid(id));
  return ids.length > 0 || !notification.author ? ids : [notification.author];
}

export function participantsPayload(notification: WebjsGroupNotification, type: GroupParticipantsChange): GroupV2ParticipantsPayload {
  return {
    type,
    group: { id: notification.chatId },
    participants: members(notification).map((id) => ({ id, role: ROLE_AFTER[type] })),
    timestamp: notification.timestamp,
    _data: notificationData(notification),
  };
}

/**
 * Spec 2.8 from the group chat. The invite link is left out: reading it needs admin rights and
 * a call to the server, and the record marks it optional for that reason.
 */
export function groupInfo(chat: WebjsChat): GroupInfo {
  const meta = chat.groupMetadata ?? {};
  return {
    id: wid(chat.id),
    subject: meta.subject ?? chat.name ?? '',
    description: meta.desc ?? '',
    membersCanAddNewMember: meta.memberAddMode === 'all_member_add',
    membersCanSendMessages: !meta.announce,
    newMembersApprovalRequired: Boolean(meta.membershipApprovalMode),
    participants: (meta.participants ?? []).map((member) => ({
      id: wid(member.id),
      role: member.isSuperAdmin ? 'superadmin' : member.isAdmin ? 'admin' : 'participant',
    })),
  };
}

/**
 * The fields a `group_update` notification changed. The library puts the new subject or
 * description in `body`; for the other subtypes (picture, announce, restrict ...) it carries no
 * new value, so only the id goes out and `_data` tells what happened.
 */
export function groupUpdate(notification: WebjsGroupNotification): GroupInfoUpdate {
  const group: GroupInfoUpdate = { id: notification.chatId };
  if (notification.type === 'subject') group.subject = notification.body;
  if (notification.type === 'description') group.description = notification.body;
  return group;
}
