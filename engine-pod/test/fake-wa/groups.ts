import type { BinaryNode } from '@whiskeysockets/baileys';
import { userJid } from './stanzas.js';

export interface FakeGroupMember {
  readonly jid: string;
  readonly role?: 'admin' | 'superadmin';
}

/** A group as the server describes it in `w:g2` answers and `create` notifications. */
export interface FakeGroup {
  readonly id: string;
  subject: string;
  description: string;
  creator: string;
  participants: FakeGroupMember[];
  announce: boolean;
  locked: boolean;
  membersCanAdd: boolean;
  approvalRequired: boolean;
}

export function newGroup(id: string, fields: Partial<Omit<FakeGroup, 'id'>> & { creator: string }): FakeGroup {
  return {
    id: id.includes('@') ? id : `${id}@g.us`,
    subject: 'Group',
    description: '',
    participants: [],
    announce: false,
    locked: false,
    membersCanAdd: false,
    approvalRequired: false,
    ...fields,
  };
}

export function groupNode(group: FakeGroup): BinaryNode {
  const t = String(Math.floor(Date.now() / 1000));
  const content: BinaryNode[] = [
    ...group.participants.map((p) => ({ tag: 'participant', attrs: { jid: userJid(p.jid), ...(p.role ? { type: p.role } : {}) } })),
    { tag: 'description', attrs: { id: 'D1', t }, content: [{ tag: 'body', attrs: {}, content: Buffer.from(group.description) }] },
    { tag: 'member_add_mode', attrs: {}, content: Buffer.from(group.membersCanAdd ? 'all_member_add' : 'admin_add') },
  ];
  if (group.announce) content.push({ tag: 'announcement', attrs: {} });
  if (group.locked) content.push({ tag: 'locked', attrs: {} });
  if (group.approvalRequired) {
    content.push({ tag: 'membership_approval_mode', attrs: {}, content: [{ tag: 'group_join', attrs: { state: 'on' } }] });
  }
  return {
    tag: 'group',
    attrs: {
      id: group.id.split('@')[0]!,
      subject: group.subject,
      s_t: t,
      s_o: userJid(group.creator),
      creation: t,
      creator: userJid(group.creator),
    },
    content,
  };
}

/** The child of a `w:gp2` notification for members joining, leaving or changing role. */
export function membersChange(action: 'add' | 'remove' | 'promote' | 'demote' | 'leave', members: readonly string[]): BinaryNode {
  return { tag: action, attrs: {}, content: members.map((jid) => ({ tag: 'participant', attrs: { jid: userJid(jid) } })) };
}

export function subjectChange(subject: string): BinaryNode {
  return { tag: 'subject', attrs: { subject } };
}

export function descriptionChange(description: string): BinaryNode {
  return { tag: 'description', attrs: { id: 'D2' }, content: [{ tag: 'body', attrs: {}, content: Buffer.from(description) }] };
}

/** `announcement`: only admins may send; `not_announcement`: everyone may. */
export function announceChange(announce: boolean): BinaryNode {
  return { tag: announce ? 'announcement' : 'not_announcement', attrs: {} };
}

export function createNotificationChild(group: FakeGroup): BinaryNode {
  return { tag: 'create', attrs: {}, content: [groupNode(group)] };
}
