import { randomBytes } from 'node:crypto';
import { type BinaryNode, getAllBinaryNodeChildren, getBinaryNodeChild, getBinaryNodeChildren, jidDecode } from '@whiskeysockets/baileys';
import type { IqAnswer } from './iq-answers.js';
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
  /** The invite code (`https://chat.whatsapp.com/<code>`). */
  invite: string;
  /** The picture's id, as the client uploaded it; null when there is none. */
  picture: string | null;
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
    invite: inviteCode(),
    picture: null,
    ...fields,
  };
}

function inviteCode(): string {
  return randomBytes(16).toString('base64url').replace(/[-_]/g, 'A').slice(0, 22);
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

/** With when and by whom, as the service sends it (whatsmeow refuses a `subject` without `s_t`). */
export function subjectChange(subject: string, author?: string): BinaryNode {
  const attrs = { subject, s_t: String(Math.floor(Date.now() / 1000)), ...(author ? { s_o: userJid(author) } : {}) };
  return { tag: 'subject', attrs };
}

export function descriptionChange(description: string): BinaryNode {
  return { tag: 'description', attrs: { id: 'D2' }, content: [{ tag: 'body', attrs: {}, content: Buffer.from(description) }] };
}

/**
 * `announcement`: only admins may send; `not_announcement`: everyone may. With the setting's
 * version id, as the service sends it (whatsmeow refuses one without `v_id`).
 */
export function announceChange(announce: boolean): BinaryNode {
  return { tag: announce ? 'announcement' : 'not_announcement', attrs: { v_id: String(Date.now()) } };
}

export function createNotificationChild(group: FakeGroup): BinaryNode {
  return { tag: 'create', attrs: {}, content: [groupNode(group)] };
}

/** What answering a `w:g2` query needs of the rest of the fake. */
export interface GroupIqContext {
  /** The account that asks (its number), and where the server's `w:gp2` notifications for it go. */
  readonly phone: { readonly phone: string; group(group: string, author: string, change: BinaryNode): void } | null;
  group(jid: string): FakeGroup | undefined;
  /** Every group the server has. */
  allGroups(): FakeGroup[];
  addGroup(group: FakeGroup): void;
  /** Whether a phone number (digits) has an account. */
  isRegistered(phone: string): boolean;
}

/** A member's key in `participants`: the number of a phone jid, a LID as it is. */
function memberKey(jid: string): string {
  const decoded = jidDecode(jid);
  return decoded?.server === 's.whatsapp.net' ? decoded.user : jid;
}

const error = (code: string, text: string): IqAnswer => ({ error: { code, text } });

/**
 * The server's side of the group queries (`xmlns="w:g2"`) a client makes: metadata, the groups
 * it is in, and every change, with WhatsApp's rules (admins only for settings, members and the
 * invite, and for the info when the group is `locked`). A change is answered, applied, and
 * announced to the account's devices as the `w:gp2` notification the service sends.
 */
export function answerGroupIq(context: GroupIqContext, iq: BinaryNode): IqAnswer {
  const first = getAllBinaryNodeChildren(iq)[0];
  const phone = context.phone;
  const me = phone?.phone ?? '';
  if (iq.attrs.to === '@g.us') {
    if (first?.tag === 'participating') {
      const groups = context
        .allGroups()
        .filter((group) => group.participants.some((member) => memberKey(member.jid) === me))
        .map(groupNode);
      return { content: [{ tag: 'groups', attrs: {}, content: groups }] };
    }
    if (first?.tag === 'create' && phone) {
      const members = getBinaryNodeChildren(first, 'participant').map((participant) => memberKey(participant.attrs.jid ?? ''));
      const missing = members.filter((member) => !member.includes('@') && !context.isRegistered(member));
      const group = newGroup(`120363${String(Date.now()).slice(-8)}${String(Math.floor(Math.random() * 1e4)).padStart(4, '0')}`, {
        subject: first.attrs.subject ?? '',
        creator: me,
        participants: [{ jid: me, role: 'superadmin' }, ...members.filter((member) => !missing.includes(member)).map((jid) => ({ jid }))],
      });
      context.addGroup(group);
      phone.group(group.id, me, createNotificationChild(group));
      return { content: [groupNode(group)] };
    }
    if (first?.tag === 'leave' && phone) {
      const id = getBinaryNodeChild(first, 'group')?.attrs.id ?? '';
      const group = context.group(id.includes('@') ? id : `${id}@g.us`);
      if (!group || !isMember(group, me)) return error('404', 'item-not-found');
      group.participants = group.participants.filter((member) => memberKey(member.jid) !== me);
      phone.group(group.id, me, membersChange('leave', [me]));
      return { content: [{ tag: 'leave', attrs: {}, content: [{ tag: 'group', attrs: { id: group.id } }] }] };
    }
    if (first?.tag === 'invite') {
      const group = context.allGroups().find((candidate) => candidate.invite === first.attrs.code);
      if (!group) return error('406', 'not-acceptable');
      if (iq.attrs.type === 'get') return { content: [groupNode(group)] };
      if (phone && !isMember(group, me)) {
        group.participants.push({ jid: me });
        phone.group(group.id, group.creator, membersChange('add', [me]));
      }
      return { content: [{ tag: 'group', attrs: { jid: group.id } }] };
    }
    return null;
  }
  const group = context.group(iq.attrs.to ?? '');
  if (!group || !isMember(group, me)) return error('404', 'item-not-found');
  if (iq.attrs.type === 'get' && first?.tag === 'query') return { content: [groupNode(group)] };
  const admin = group.participants.some((member) => memberKey(member.jid) === me && member.role !== undefined);
  const notify = (change: BinaryNode) => phone?.group(group.id, me, change);
  // eslint-disable-next-line @typescript-eslint/switch-exhaustiveness-check -- any other query (a string, or none) falls to the default
  switch (first?.tag) {
    case 'subject':
    case 'description': {
      if (group.locked && !admin) return error('403', 'forbidden');
      if (first.tag === 'subject') {
        group.subject = Buffer.from(first.content as Uint8Array).toString('utf8');
        notify(subjectChange(group.subject, me));
      } else {
        const body = getBinaryNodeChild(first, 'body')?.content;
        group.description = body ? Buffer.from(body as Uint8Array).toString('utf8') : '';
        notify(descriptionChange(group.description));
      }
      return { content: [] };
    }
    case 'announcement':
    case 'not_announcement':
    case 'locked':
    case 'unlocked':
      if (!admin) return error('403', 'forbidden');
      if (first.tag === 'announcement' || first.tag === 'not_announcement') {
        group.announce = first.tag === 'announcement';
        notify(announceChange(group.announce));
      } else {
        group.locked = first.tag === 'locked';
        notify({ tag: first.tag, attrs: {} });
      }
      return { content: [] };
    case 'invite':
      if (!admin) return error('403', 'forbidden');
      if (iq.attrs.type === 'set') {
        group.invite = inviteCode();
        notify({ tag: 'invite', attrs: { code: group.invite } });
      }
      return { content: [{ tag: 'invite', attrs: { code: group.invite } }] };
    case 'add':
    case 'remove':
    case 'promote':
    case 'demote':
      if (!admin) return error('403', 'forbidden');
      return { content: [changeMembers(context, group, first, notify)] };
    default:
      return null;
  }
}

function isMember(group: FakeGroup, who: string): boolean {
  return group.participants.some((member) => memberKey(member.jid) === who);
}

/** Each member on its own, as the service answers: `error` 409 (already in), 404 (not in), 403 (not on WhatsApp). */
function changeMembers(context: GroupIqContext, group: FakeGroup, request: BinaryNode, notify: (change: BinaryNode) => void): BinaryNode {
  const action = request.tag as 'add' | 'remove' | 'promote' | 'demote';
  const changed: string[] = [];
  const answers = getBinaryNodeChildren(request, 'participant').map((participant) => {
    const jid = participant.attrs.jid ?? '';
    const key = memberKey(jid);
    const member = group.participants.find((candidate) => memberKey(candidate.jid) === key);
    let failure: string | null = null;
    if (action === 'add') {
      if (member) failure = '409';
      else if (!key.includes('@') && !context.isRegistered(key)) failure = '403';
      else group.participants.push({ jid: key });
    } else if (!member) {
      failure = '404';
    } else if (action === 'remove') {
      group.participants = group.participants.filter((candidate) => candidate !== member);
    } else {
      group.participants = group.participants.map((candidate) =>
        candidate === member ? (action === 'promote' ? { jid: candidate.jid, role: 'admin' } : { jid: candidate.jid }) : candidate,
      );
    }
    if (!failure) changed.push(key);
    return { tag: 'participant', attrs: { jid, ...(failure ? { error: failure } : {}) } };
  });
  if (changed.length > 0) notify(membersChange(action, changed));
  return { tag: action, attrs: {}, content: answers };
}

/** `w:profile:picture` aimed at a group: its members read it, admins (or anyone, unless `locked`) change it. */
export function answerGroupPicture(group: FakeGroup, asker: string, iq: BinaryNode): IqAnswer {
  if (iq.attrs.type === 'get') {
    if (!group.picture) return error('404', 'item-not-found');
    const url = `https://pps.whatsapp.net/v/t61/${group.id.split('@')[0]}_${group.picture}.jpg`;
    return { content: [{ tag: 'picture', attrs: { id: group.picture, type: 'image', url, direct_path: new URL(url).pathname } }] };
  }
  const admin = group.participants.some((member) => memberKey(member.jid) === asker && member.role !== undefined);
  if (!isMember(group, asker) || (group.locked && !admin)) return error('401', 'not-authorized');
  group.picture = getBinaryNodeChild(iq, 'picture') ? String(randomBytes(4).readUInt32BE()) : null;
  return { content: group.picture ? [{ tag: 'picture', attrs: { id: group.picture } }] : [] };
}
