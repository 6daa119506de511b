import type {
  CallPayload,
  ChatPresences,
  GroupInfo,
  GroupInfoUpdate,
  GroupParticipant,
  GroupParticipantRole,
  GroupParticipantsChange,
  PresenceStatus,
} from '@switchboard/protocol';
import { type BaileysEventMap, type GroupMetadata, type proto, type WAMessage, WAMessageStubType, type WAPresence } from '@whiskeysockets/baileys';
import type { EngineContext } from '../../engine.js';
import { isGroupJid, sameUser } from './jids.js';
import { rawData } from './message-record.js';

/** What translating the account's other events needs from the engine. */
export interface AccountEventsDeps {
  readonly context: EngineContext;
  /** The account's jids as the library knows them (phone and LID), to spot ourselves in a group change. */
  meJids(): readonly string[];
  contactId(jid: string, alt?: string | null): Promise<string>;
  /** The whole group, asked of the server when we were added to one. */
  groupMetadata(jid: string): Promise<GroupMetadata>;
}

const PRESENCE: Record<WAPresence, PresenceStatus> = {
  available: 'online',
  unavailable: 'offline',
  composing: 'typing',
  recording: 'recording',
  paused: 'paused',
};

const CHANGE: Partial<Record<BaileysEventMap['group-participants.update']['action'], GroupParticipantsChange>> = {
  add: 'join',
  remove: 'leave',
  promote: 'promote',
  demote: 'demote',
};

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * Presence, groups, calls and archived chats: library events to `presence.update`, `group.v2.*`,
 * `call.*` and `chat.archive` (labels: labels.ts).
 */
export class AccountEvents {
  /** The archived state of each chat as last reported (archived() below). */
  private readonly archivedChats = new Map<string, boolean>();
  /** Offered calls until they end, by call id; few ring at once. */
  private readonly ringing = new Map<string, { readonly creator: string; readonly payload: CallPayload }>();

  constructor(private readonly deps: AccountEventsDeps) {}

  async presence({ id, presences }: BaileysEventMap['presence.update']): Promise<ChatPresences> {
    const chatId = isGroupJid(id) ? id : await this.deps.contactId(id);
    const entries = await Promise.all(
      Object.entries(presences).map(async ([participant, data]) => ({
        participant: await this.deps.contactId(participant),
        lastKnownPresence: PRESENCE[data.lastKnownPresence] ?? 'offline',
        lastSeen: data.lastSeen ?? null,
      })),
    );
    const payload: ChatPresences = { id: chatId, presences: entries };
    this.deps.context.emit('presence.update', payload);
    return payload;
  }

  async calls(calls: BaileysEventMap['call']): Promise<void> {
    for (const call of calls) {
      const ringing = this.ringing.get(call.id);
      const event =
        call.status === 'offer'
          ? 'call.received'
          : call.status === 'accept'
            ? 'call.accepted'
            : call.status === 'reject' || call.status === 'terminate' || call.status === 'timeout'
              ? 'call.rejected'
              : null;
      if (!event) continue;
      const payload: CallPayload = {
        id: call.id,
        from: ringing?.payload.from ?? (await this.deps.contactId(call.from, call.callerPn)),
        timestamp: call.date.getTime() / 1000,
        isVideo: !!call.isVideo,
        isGroup: !!call.isGroup,
        _data: rawData(call),
      };
      // Remembered before it is emitted: the calls app may decline it as soon as it sees it.
      if (event === 'call.received') this.ring(call.from, payload);
      else this.ringing.delete(call.id);
      this.deps.context.emit(event, payload);
    }
  }

  /** Offers the server never ended (no terminate came) are forgotten beyond the last 256. */
  private ring(creator: string, payload: CallPayload): void {
    this.ringing.set(payload.id, { creator, payload });
    if (this.ringing.size > 256) this.ringing.delete(this.ringing.keys().next().value!);
  }

  /** A call that rings now: who made it (as the library addresses them) and its `call.received`. */
  ringingCall(id: string): { readonly creator: string; readonly payload: CallPayload } | undefined {
    return this.ringing.get(id);
  }

  /** This device declined the call (the server sends nothing back): `call.rejected` with the ring's fields. */
  callDeclined(id: string): void {
    const ringing = this.ringing.get(id);
    if (!ringing) return;
    this.ringing.delete(id);
    const _data = { ...ringing.payload._data, status: 'reject' };
    this.deps.context.emit('call.rejected', { ...ringing.payload, timestamp: Date.now() / 1000, _data });
  }

  async groupsJoined(groups: BaileysEventMap['groups.upsert']): Promise<void> {
    for (const group of groups) {
      this.deps.context.emit('group.v2.join', { group: await this.groupInfo(group), timestamp: nowSeconds(), _data: rawData(group) });
    }
  }

  /**
   * A group's settings changed: read from the library's stub messages, not from its
   * `groups.update`, whose buffering keeps only the first of several updates to one group that
   * arrive together (Baileys 7.0.0-rc14, `event-buffer.ts`).
   */
  groupChanges(messages: readonly WAMessage[]): void {
    for (const msg of messages) {
      const id = msg.key.remoteJid;
      // The library types a stub's parameters as any: a string, or nothing, is all we take.
      const parameters: unknown = msg.messageStubParameters;
      const value = Array.isArray(parameters) && typeof parameters[0] === 'string' ? parameters[0] : '';
      const change = msg.messageStubType ? groupChange(msg.messageStubType, value) : null;
      if (!change || !id || !isGroupJid(id)) continue;
      this.deps.context.emit('group.v2.update', { group: { id, ...change }, timestamp: nowSeconds(), _data: rawData(msg) });
    }
  }

  /** Whole groups the library fetched again (after a `dirty` notice): sent with every field. */
  async groupsUpdated(updates: BaileysEventMap['groups.update']): Promise<void> {
    for (const update of updates) {
      if (!update.id || !update.participants) continue;
      const group = await this.groupInfo(update as GroupMetadata);
      this.deps.context.emit('group.v2.update', { group, timestamp: nowSeconds(), _data: rawData(update) });
    }
  }

  async participantsChanged(change: BaileysEventMap['group-participants.update']): Promise<void> {
    const type = CHANGE[change.action];
    if (!type) return;
    const role: GroupParticipantRole | null = type === 'leave' ? 'left' : type === 'promote' ? 'admin' : type === 'demote' ? 'participant' : null;
    const timestamp = nowSeconds();
    const _data = rawData(change);
    this.deps.context.emit('group.v2.participants', {
      type,
      group: { id: change.id },
      participants: await this.participants(change.participants, role),
      timestamp,
      _data,
    });
    const mine = change.participants.some((p) => this.deps.meJids().some((me) => sameUser(p.id, me) || sameUser(p.phoneNumber, me)));
    if (mine && type === 'leave') this.deps.context.emit('group.v2.leave', { group: { id: change.id }, timestamp, _data });
    if (mine && type === 'join') {
      const metadata = await this.deps.groupMetadata(change.id).catch((error: unknown) => {
        this.deps.context.log.warn({ session: this.deps.context.session, group: change.id, err: error }, 'NOWEB could not read a group it joined');
        return null;
      });
      if (metadata) this.deps.context.emit('group.v2.join', { group: await this.groupInfo(metadata), timestamp, _data: rawData(metadata) });
    }
  }

  async chats(updates: BaileysEventMap['chats.update']): Promise<void> {
    for (const update of updates) {
      if (typeof update.archived !== 'boolean' || !update.id) continue;
      this.archived(isGroupJid(update.id) ? update.id : await this.deps.contactId(update.id), update.archived);
    }
  }

  /**
   * `chat.archive`, once per change of a chat's archived state, whoever changed it. Baileys
   * reports a change the account made itself only when its event buffer is not holding the
   * update back for a chat it has not seen yet (right after connecting it is), so the archive
   * operation reports its own change here too, and the second report of the same state is dropped.
   */
  archived(chatId: string, archived: boolean): void {
    if (this.archivedChats.get(chatId) === archived) return;
    this.archivedChats.set(chatId, archived);
    this.deps.context.emit('chat.archive', { id: chatId, timestamp: nowSeconds(), archived });
  }

  /** Spec 2.8's record of the library's metadata (also what the group operations answer, groups.ts). */
  async groupInfo(group: GroupMetadata): Promise<GroupInfo> {
    return {
      id: group.id,
      subject: group.subject ?? '',
      description: group.desc ?? '',
      ...(group.inviteCode ? { invite: `https://chat.whatsapp.com/${group.inviteCode}` } : {}),
      membersCanAddNewMember: !!group.memberAddMode,
      membersCanSendMessages: !group.announce,
      newMembersApprovalRequired: !!group.joinApprovalMode,
      participants: await this.participants(group.participants ?? [], null),
    };
  }

  /** Members in the interface's addressing; `role` overrides what the library says of each. */
  private participants(
    members: readonly { id: string; phoneNumber?: string; admin?: 'admin' | 'superadmin' | null }[],
    role: GroupParticipantRole | null,
  ): Promise<GroupParticipant[]> {
    return Promise.all(
      members.map(async (member) => ({
        id: await this.deps.contactId(member.id, member.phoneNumber),
        role: role ?? member.admin ?? 'participant',
      })),
    );
  }
}

function groupChange(stub: proto.WebMessageInfo.StubType, value: string): Omit<GroupInfoUpdate, 'id'> | null {
  // eslint-disable-next-line @typescript-eslint/switch-exhaustiveness-check -- six of the library's hundreds of stub types are group settings; the rest are not a group.v2.update
  switch (stub) {
    case WAMessageStubType.GROUP_CHANGE_SUBJECT:
      return { subject: value };
    case WAMessageStubType.GROUP_CHANGE_DESCRIPTION:
      return { description: value };
    case WAMessageStubType.GROUP_CHANGE_ANNOUNCE:
      return { membersCanSendMessages: !(value === 'on' || value === 'true') };
    case WAMessageStubType.GROUP_MEMBER_ADD_MODE:
      return { membersCanAddNewMember: value === 'all_member_add' };
    case WAMessageStubType.GROUP_MEMBERSHIP_JOIN_APPROVAL_MODE:
      return { newMembersApprovalRequired: value === 'on' };
    case WAMessageStubType.GROUP_CHANGE_INVITE_LINK:
      return { invite: `https://chat.whatsapp.com/${value}` };
    default:
      return null;
  }
}
