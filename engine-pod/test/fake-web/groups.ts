import { randomBytes } from 'node:crypto';

/** A member of a group as WhatsApp Web's group metadata has it. */
interface Member {
  isAdmin: boolean;
  isSuperAdmin: boolean;
}

/** A group as the server keeps it. */
export interface FakeWebGroup {
  readonly id: string;
  subject: string;
  desc: string;
  descId: string | null;
  readonly owner: string;
  readonly creation: number;
  inviteCode: string;
  /** Only admins send messages. */
  announce: boolean;
  /** Only admins edit the group's info (subject, description, picture, settings) and pin messages. */
  restrict: boolean;
  readonly participants: Map<string, Member>;
}

/** A private invitation to a group (invite v4) the page sent to someone it could not add. */
export interface FakeWebGroupInviteV4 {
  readonly to: string;
  readonly group: string;
  readonly subject: string;
  readonly code: string;
  readonly expiration: number;
}

/** What the groups side needs of the phone: its account, and a way to reach its pages. */
interface GroupsPhone {
  readonly contactId: string;
  /** A message to the pages signed in to the account. */
  push(message: Record<string, unknown>): void;
  /** A group notification (a `gp2` message) in the group's chat. */
  notify(group: string, fields: { subtype: string; author: string; recipients?: string[]; body?: string }): void;
  /** Numbers the service does not know (a check answers "no WhatsApp account"). */
  readonly unregistered: ReadonlySet<string>;
}

const code = () => randomBytes(16).toString('base64url').slice(0, 22);
const now = () => Math.floor(Date.now() / 1000);

/**
 * The groups of one account as WhatsApp's servers keep them: the page asks (create, read, change
 * members, subject, description, settings, invite, join by invite, leave) and is told every change
 * as the group's new metadata and a `gp2` notification, as WhatsApp Web is. The test side plays
 * the other members (`join`, `leave`, `addMe`, `removeMe`, `setting`) and other accounts' groups
 * (`elsewhere`), and reads the state (`get`).
 */
export class FakeWebGroups {
  private readonly groups = new Map<string, FakeWebGroup>();
  /** Contacts whose privacy lets others add them to groups only by a private invitation. */
  readonly addOnlyByInvite = new Set<string>();
  /** The private invitations the page sent, in order. */
  readonly invitesV4: FakeWebGroupInviteV4[] = [];

  constructor(private readonly phone: GroupsPhone) {}

  /** A group as the server has it now. */
  get(id: string): FakeWebGroup | undefined {
    return this.groups.get(id);
  }

  /** Another member made a group with this account in it: the page learns of it and is told it was added. */
  addMe(subject: string, owner: string, others: readonly string[] = []): string {
    const group = this.make(subject, owner, [this.phone.contactId, ...others]);
    this.changed(group, { subtype: 'add', author: owner, recipients: [this.phone.contactId] });
    return group.id;
  }

  /** Another account's group the account is not in (yet): it may join by its invite (`get(id).inviteCode`). */
  elsewhere(subject: string, owner: string, others: readonly string[] = []): string {
    return this.make(subject, owner, others).id;
  }

  /** An admin changes a setting of the group on their phone; the page learns of it. */
  setting(id: string, by: string, setting: { announce?: boolean; restrict?: boolean }): void {
    const group = this.group(id);
    Object.assign(group, setting);
    for (const [name, value] of Object.entries(setting)) this.changed(group, { subtype: name, author: by, body: value ? 'on' : 'off' });
  }

  /** Whether the account may edit the group's info now (an admin, or anyone while `restrict` is off). */
  mayEditInfo(id: string): boolean {
    const group = this.group(id);
    return !group.restrict || Boolean(group.participants.get(this.phone.contactId)?.isAdmin);
  }

  /** An admin removed this account from the group. */
  removeMe(id: string, by: string): void {
    const group = this.group(id);
    group.participants.delete(this.phone.contactId);
    this.changed(group, { subtype: 'remove', author: by, recipients: [this.phone.contactId] });
  }

  /** A contact joins the group by its invite link. */
  join(id: string, member: string): void {
    const group = this.group(id);
    group.participants.set(member, { isAdmin: false, isSuperAdmin: false });
    this.changed(group, { subtype: 'invite', author: member, recipients: [member] });
  }

  /** A member leaves the group on their own. */
  leave(id: string, member: string): void {
    const group = this.group(id);
    group.participants.delete(member);
    this.changed(group, { subtype: 'leave', author: member, recipients: [member] });
  }

  /** A page's request about groups (`group-*`); answers what the page is told back. */
  fromPage(message: { type: string; [key: string]: unknown }): unknown {
    const me = this.phone.contactId;
    switch (message.type) {
      case 'group-create': {
        const wanted = (message.participants as string[]).filter((id) => !this.phone.unregistered.has(id));
        const group = this.make(
          String(message.subject),
          me,
          [me, ...wanted].filter((id) => !this.addOnlyByInvite.has(id)),
        );
        this.phone.push({ type: 'group', metadata: this.metadata(group) });
        // Those who may be added only by invitation are not: WhatsApp answers 403 with a code for each.
        const invitable = wanted.filter((id) => this.addOnlyByInvite.has(id)).map((id) => ({ id, code: code(), expiration: now() + 7 * 24 * 3600 }));
        return { metadata: this.metadata(group), invitable };
      }
      case 'group-invite-v4':
        this.invitesV4.push({
          to: String(message.to),
          group: String(message.group),
          subject: String(message.subject),
          code: String(message.code),
          expiration: Number(message.expiration),
        });
        return undefined;
      case 'group-list':
        return [...this.groups.values()].filter((group) => group.participants.has(me)).map((group) => this.metadata(group));
      case 'group-get':
        return this.metadata(this.group(String(message.id)));
      case 'group-participants': {
        const group = this.adminOf(String(message.id));
        const action = String(message.action);
        const ids = message.participants as string[];
        const results: Record<string, number> = {};
        for (const id of ids) {
          if (action === 'add') {
            if (this.phone.unregistered.has(id)) results[id] = 404;
            else if (group.participants.has(id)) results[id] = 409;
            else {
              group.participants.set(id, { isAdmin: false, isSuperAdmin: false });
              results[id] = 200;
            }
          } else if (!group.participants.has(id)) results[id] = 404;
          else {
            if (action === 'remove') group.participants.delete(id);
            else group.participants.set(id, { isAdmin: action === 'promote', isSuperAdmin: false });
            results[id] = 200;
          }
        }
        const done = ids.filter((id) => results[id] === 200);
        if (done.length > 0) this.changed(group, { subtype: action, author: me, recipients: done });
        return { results };
      }
      case 'group-subject': {
        const group = this.adminOf(String(message.id));
        group.subject = String(message.subject);
        this.changed(group, { subtype: 'subject', author: me, body: group.subject });
        return undefined;
      }
      case 'group-description': {
        const group = this.adminOf(String(message.id));
        group.desc = String(message.description);
        group.descId = String(message.descId);
        this.changed(group, { subtype: 'description', author: me, body: group.desc });
        return undefined;
      }
      case 'group-invite-info': {
        const group = [...this.groups.values()].find((candidate) => candidate.inviteCode === message.code);
        if (!group) throw new Error(`item-not-found: no invite ${String(message.code)}`);
        return this.metadata(group);
      }
      case 'group-invite':
        return this.adminOf(String(message.id)).inviteCode;
      case 'group-revoke': {
        const group = this.adminOf(String(message.id));
        group.inviteCode = code();
        return group.inviteCode;
      }
      case 'group-setting': {
        const group = this.adminOf(String(message.id));
        const name = message.property === 'announcement' ? 'announce' : 'restrict';
        group[name] = message.value === 1;
        this.changed(group, { subtype: name, author: me, body: group[name] ? 'on' : 'off' });
        return undefined;
      }
      case 'group-join': {
        const group = [...this.groups.values()].find((candidate) => candidate.inviteCode === message.code);
        if (!group) throw new Error(`item-not-found: no invite ${String(message.code)}`);
        if (!group.participants.has(me)) {
          group.participants.set(me, { isAdmin: false, isSuperAdmin: false });
          this.changed(group, { subtype: 'invite', author: me, recipients: [me] });
        }
        return group.id;
      }
      case 'group-leave': {
        const group = this.group(String(message.id));
        group.participants.delete(me);
        this.changed(group, { subtype: 'leave', author: me, recipients: [me] });
        return undefined;
      }
      default:
        throw new Error(`the fake has no group request ${message.type}`);
    }
  }

  private make(subject: string, owner: string, members: readonly string[]): FakeWebGroup {
    const id = `120363${randomBytes(6).readUIntBE(0, 6).toString().padStart(12, '0')}@g.us`;
    const participants = new Map<string, Member>(members.map((member) => [member, { isAdmin: false, isSuperAdmin: false }]));
    participants.set(owner, { isAdmin: true, isSuperAdmin: true });
    const group: FakeWebGroup = {
      id,
      subject,
      desc: '',
      descId: null,
      owner,
      creation: now(),
      inviteCode: code(),
      announce: false,
      restrict: false,
      participants,
    };
    this.groups.set(id, group);
    return group;
  }

  private group(id: string): FakeWebGroup {
    const group = this.groups.get(id);
    if (!group) throw new Error(`item-not-found: no group ${id}`);
    return group;
  }

  /** WhatsApp answers 403 to a change only admins may make. */
  private adminOf(id: string): FakeWebGroup {
    const group = this.group(id);
    if (!group.participants.get(this.phone.contactId)?.isAdmin) throw new Error(`not-authorized: ${this.phone.contactId} is no admin of ${id}`);
    return group;
  }

  private changed(group: FakeWebGroup, notification: { subtype: string; author: string; recipients?: string[]; body?: string }): void {
    this.phone.push({ type: 'group', metadata: this.metadata(group) });
    this.phone.notify(group.id, notification);
  }

  private metadata(group: FakeWebGroup): Record<string, unknown> {
    return {
      id: group.id,
      subject: group.subject,
      desc: group.desc,
      descId: group.descId,
      owner: group.owner,
      creation: group.creation,
      announce: group.announce,
      restrict: group.restrict,
      participants: [...group.participants].map(([id, member]) => ({ id, ...member })),
    };
  }
}
