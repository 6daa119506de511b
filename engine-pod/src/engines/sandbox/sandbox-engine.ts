import {
  ACKS,
  ackName,
  type ChatPictureResponse,
  type ChatPresences,
  type Contact,
  type Label,
  type LabelledChat,
  type LabelSpec,
  type Channel,
  type ChannelListResult,
  type ChannelMessage,
  type ChannelRef,
  type ChannelRole,
  type ChannelSearchArgs,
  type DeleteStatusRequest,
  type TextStatus,
  type MeInfo,
  type MessageReactionPayload,
  type MessageRecord,
  type GroupInfo,
  type GroupParticipant,
  type GroupSecurity,
  type MyProfile,
  type PasskeyAssertionRequest,
  type PasskeyChallenge,
  type PasskeyConfirmationResponse,
  type PollVotePayload,
  type PresenceStatus,
  type ReadChatMessagesResponse,
  type RequestCodeRequest,
  type SendSeenResult,
  type SessionStatus,
  type SimulateRequest,
  type WANumberExistResult,
} from '@switchboard/protocol';
import { CommandError } from '../../command-error.js';
import type {
  CommandArgs,
  OutgoingButtonReply,
  OutgoingButtons,
  OutgoingContacts,
  OutgoingLinkPreview,
  OutgoingMedia,
} from '../../capabilities/chatting.js';
import type { GroupParticipantsArgs, GroupPictureArgs } from '../../capabilities/groups.js';
import type { NewChannel } from '../../capabilities/channels.js';
import type { OutgoingMediaStatus } from '../../capabilities/stories.js';
import type { Engine, EngineContext, SendTextArgs } from '../../engine.js';
import type { MediaFile } from '../../media/media-store.js';
import * as chats from './chats.js';
import { pairingCode, sandboxMessageId, sandboxQrValue } from './codes.js';
import { DelayQueue } from './delay-queue.js';
import { SandboxBook } from './contacts.js';
import { sandboxNumberLookup } from './directory.js';
import { SandboxGroups } from './groups.js';
import { SandboxPasskey } from './passkey.js';
import * as channels from './channels.js';
import { SandboxProfile } from './profile.js';
import type { SandboxSide } from './sandbox-side.js';
import { SandboxWorld } from './sandbox-world.js';
import * as sending from './sending.js';
import * as actions from './sending-actions.js';
import { rejectRingingCall } from './simulations/calls.js';
import { runSimulation } from './simulations/index.js';
import * as stories from './stories.js';
import { VERSION } from '../../pod/version.js';

export interface SandboxOptions {
  /** How often the QR is renewed while waiting for a scan (spec: each renewal is an event). */
  readonly qrRenewMs: number;
  /** When the simulated server and device acknowledge a sent message. */
  readonly ackDelaysMs: { readonly server: number; readonly device: number };
}

export const DEFAULT_SANDBOX_OPTIONS: SandboxOptions = {
  qrRenewMs: 20_000,
  ackDelaysMs: { server: 100, device: 400 },
};

const CREDS = 'creds';

/**
 * SANDBOX: a simulated account with no phone and no network. It behaves like a real engine from
 * the API's point of view (statuses, QR renewal, pairing, acks) and is driven from the other
 * side by `simulate`. Pairing survives a restart, like a real engine's saved credentials.
 */
export class SandboxEngine implements Engine {
  readonly name = 'SANDBOX' as const;
  private qrValue: string | null = null;
  private qrTimer: NodeJS.Timeout | null = null;
  private readonly serverAcks: DelayQueue;
  private readonly deviceAcks: DelayQueue;
  private me: MeInfo | null = null;
  private codeFor: string | null = null;
  private status: SessionStatus = 'STARTING';
  /** What simulations see of this engine (sandbox/simulations/). */
  private readonly side: SandboxSide;
  private readonly passkey: SandboxPasskey;
  private readonly myProfile: SandboxProfile;
  private readonly myGroups: SandboxGroups;
  /** Contacts and labels (issue 16): contacts.ts. */
  private readonly book: SandboxBook;

  /** The host's context, remembering every message on its way out (sandbox-world.ts). */
  private readonly context: EngineContext;
  private readonly world = new SandboxWorld();

  constructor(
    context: EngineContext,
    private readonly options: SandboxOptions = DEFAULT_SANDBOX_OPTIONS,
  ) {
    this.context = this.world.watching(context);
    this.serverAcks = new DelayQueue(options.ackDelaysMs.server);
    this.deviceAcks = new DelayQueue(options.ackDelaysMs.device);
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the side's getters read the engine's live state, and `this` in a getter is the side
    const engine = this;
    this.side = {
      context: this.context,
      world: this.world,
      get status() {
        return engine.status;
      },
      get pairingPhone() {
        return engine.codeFor;
      },
      get passkey() {
        return engine.passkey;
      },
      requireWorking: () => this.requireWorking(),
      requireStatus: (...expected) => this.requireStatus(...expected),
      pair: async (me) => {
        await this.context.authState.set({ [CREDS]: { me } });
        this.becomeWorking(me);
      },
      moveTo: (status) => {
        this.clearTimers();
        this.qrValue = null;
        this.status = status;
        this.context.setStatus(status);
      },
      acknowledgeLater: (record) => {
        // SERVER before DEVICE whatever the timers do: the two queues' timers can fire out of
        // order on a loaded machine (one fires early against Date.now(), is re-armed past the
        // other's), and a client sees an ack go back. DEVICE sends a late SERVER first.
        let serverSent = false;
        const server = () => {
          if (serverSent) return;
          serverSent = true;
          this.acknowledge(record, ACKS.SERVER);
        };
        this.serverAcks.push(server);
        this.deviceAcks.push(() => {
          server();
          this.acknowledge(record, ACKS.DEVICE);
        });
      },
    };
    this.passkey = new SandboxPasskey(this.side);
    this.myGroups = new SandboxGroups(this.side);
    this.book = new SandboxBook({ context: this.context, world: this.world, requireWorking: () => this.requireWorking() });
    this.myProfile = new SandboxProfile({
      context: this.context,
      requireWorking: () => this.requireWorking(),
      rename: async (pushName) => {
        const me = { ...this.requireWorking(), pushName };
        await this.context.authState.set({ [CREDS]: { me } });
        this.me = me;
        this.context.setMe(me);
      },
    });
  }

  async start(): Promise<void> {
    // The simulated service is this build's own: its version, and no client version to present.
    this.context.setVersions({ library: { name: 'SANDBOX', version: VERSION }, client: null });
    const saved = await this.context.authState.get<MeInfo>(CREDS, ['me']);
    if (this.status === 'STOPPED') return;
    if (saved.me) this.becomeWorking(saved.me);
    else this.waitForScan();
  }

  async stop(): Promise<void> {
    // A message sent just before is on the (simulated) server already: its acknowledgements are
    // given now rather than dropped, or it would stay PENDING for good (the next engine of the
    // session knows nothing of it). SERVER for every message, then DEVICE.
    this.serverAcks.runAll();
    this.deviceAcks.runAll();
    this.status = 'STOPPED';
    this.clearTimers();
  }

  async logout(): Promise<void> {
    await this.context.authState.clear();
    this.me = null;
    this.context.setMe(null);
  }

  qr(): string {
    if (!this.qrValue) throw new CommandError('WRONG_STATUS', 'no QR code is waiting to be scanned');
    return this.qrValue;
  }

  async requestCode(request: RequestCodeRequest): Promise<{ code: string }> {
    this.codeFor = request.phoneNumber;
    return { code: pairingCode() };
  }

  async passkeyChallenge(): Promise<PasskeyChallenge> {
    return this.passkey.options();
  }

  async submitPasskey(assertion: PasskeyAssertionRequest): Promise<void> {
    await this.passkey.submit(assertion);
  }

  async passkeyConfirmation(): Promise<PasskeyConfirmationResponse> {
    return this.passkey.confirmation();
  }

  async confirmPasskey(): Promise<void> {
    await this.passkey.confirm();
  }

  async profile(): Promise<MyProfile> {
    return this.myProfile.read();
  }

  async setProfileName(name: string): Promise<void> {
    await this.myProfile.setName(name);
  }

  async setProfileStatus(status: string): Promise<void> {
    await this.myProfile.setStatus(status);
  }

  async setProfilePicture(picture: MediaFile): Promise<void> {
    await this.myProfile.setPicture(picture);
  }

  async deleteProfilePicture(): Promise<void> {
    await this.myProfile.deletePicture();
  }

  // The peer's Groups operations: groups.ts.

  async createGroup(args: CommandArgs<'group.create'>): Promise<GroupInfo> {
    return this.myGroups.create(args);
  }

  async groups(): Promise<GroupInfo[]> {
    return this.myGroups.list();
  }

  async group(id: string): Promise<GroupInfo> {
    return this.myGroups.get(id);
  }

  async deleteGroup(id: string): Promise<void> {
    await this.myGroups.delete(id);
  }

  async leaveGroup(id: string): Promise<void> {
    await this.myGroups.leave(id);
  }

  async groupJoinInfo(code: string): Promise<GroupInfo> {
    return this.myGroups.joinInfo(code);
  }

  async joinGroup(code: string): Promise<string> {
    return this.myGroups.join(code);
  }

  async groupPicture(args: CommandArgs<'group.picture'>): Promise<string | null> {
    return this.myGroups.picture(args.id);
  }

  async setGroupPicture(args: GroupPictureArgs): Promise<void> {
    await this.myGroups.setPicture(args.id, args.file);
  }

  async deleteGroupPicture(id: string): Promise<void> {
    await this.myGroups.deletePicture(id);
  }

  async setGroupSubject(args: CommandArgs<'group.setSubject'>): Promise<void> {
    await this.myGroups.setSubject(args.id, args.subject);
  }

  async setGroupDescription(args: CommandArgs<'group.setDescription'>): Promise<void> {
    await this.myGroups.setDescription(args.id, args.description);
  }

  async groupSettings(id: string): Promise<GroupSecurity> {
    return this.myGroups.settings(id);
  }

  async setGroupSetting(args: CommandArgs<'group.setSetting'>): Promise<void> {
    await this.myGroups.setSetting(args.id, args.setting, args.adminsOnly);
  }

  async groupInviteCode(id: string): Promise<string> {
    return this.myGroups.inviteCode(id);
  }

  async revokeGroupInvite(id: string): Promise<string> {
    return this.myGroups.revokeInvite(id);
  }

  async updateGroupParticipants(args: GroupParticipantsArgs): Promise<GroupParticipant[]> {
    return this.myGroups.participants(args.id, args.action, args.participants);
  }

  async newMessageId(): Promise<string> {
    return sandboxMessageId();
  }

  async checkNumber(phone: string): Promise<WANumberExistResult> {
    this.requireWorking();
    return sandboxNumberLookup(phone);
  }

  // Contacts and labels (issue 16): contacts.ts.

  async contacts(): Promise<Contact[]> {
    return this.book.contacts();
  }

  async contact(id: string): Promise<Contact> {
    return this.book.contact(id);
  }

  async contactAbout(id: string): Promise<string | null> {
    return this.book.about(id);
  }

  async contactPicture(id: string): Promise<string | null> {
    return this.book.picture(id);
  }

  async setBlocked({ id, blocked }: { readonly id: string; readonly blocked: boolean }): Promise<void> {
    return this.book.setBlocked(id, blocked);
  }

  async updateContact({ id, ...name }: { readonly id: string; readonly firstName: string; readonly lastName: string }): Promise<void> {
    return this.book.update(id, name);
  }

  async labels(): Promise<Label[]> {
    return this.book.labels();
  }

  async createLabel(label: LabelSpec): Promise<Label> {
    return this.book.createLabel(label);
  }

  async updateLabel({ id, ...label }: LabelSpec & { readonly id: string }): Promise<Label> {
    return this.book.updateLabel(id, label);
  }

  async deleteLabel(id: string): Promise<void> {
    return this.book.deleteLabel(id);
  }

  async chatLabels(chatId: string): Promise<Label[]> {
    return this.book.chatLabels(chatId);
  }

  async setChatLabels({ chatId, labelIds }: { readonly chatId: string; readonly labelIds: readonly string[] }): Promise<void> {
    return this.book.setChatLabels(chatId, labelIds);
  }

  async labelChats(id: string): Promise<LabelledChat[]> {
    return this.book.labelChats(id);
  }

  async sendText(args: SendTextArgs): Promise<MessageRecord> {
    return sending.sendText(this.side, args);
  }

  // Spec 4.5 beyond text: sending.ts and sending-actions.ts.

  async sendMedia(args: OutgoingMedia): Promise<MessageRecord> {
    return sending.sendMedia(this.side, args);
  }

  async sendLinkCustomPreview(args: OutgoingLinkPreview): Promise<MessageRecord> {
    return sending.sendLinkCustomPreview(this.side, args);
  }

  async sendButtons(args: OutgoingButtons): Promise<MessageRecord> {
    return sending.sendButtons(this.side, args);
  }

  async sendList(args: CommandArgs<'send.list'>): Promise<MessageRecord> {
    return sending.sendList(this.side, args);
  }

  async sendPoll(args: CommandArgs<'send.poll'>): Promise<MessageRecord> {
    return sending.sendPoll(this.side, args);
  }

  async sendPollVote(args: CommandArgs<'send.pollVote'>): Promise<PollVotePayload> {
    return actions.sendPollVote(this.side, args);
  }

  async sendLocation(args: CommandArgs<'send.location'>): Promise<MessageRecord> {
    return sending.sendLocation(this.side, args);
  }

  async sendContactVcard(args: OutgoingContacts): Promise<MessageRecord> {
    return sending.sendContactVcard(this.side, args);
  }

  async sendButtonReply(args: OutgoingButtonReply): Promise<MessageRecord> {
    return sending.sendButtonReply(this.side, args);
  }

  async forwardMessage(args: CommandArgs<'message.forward'>): Promise<MessageRecord> {
    return actions.forwardMessage(this.side, args);
  }

  async react(args: CommandArgs<'message.react'>): Promise<MessageReactionPayload> {
    return actions.react(this.side, args);
  }

  async star(args: CommandArgs<'message.star'>): Promise<void> {
    return actions.star(this.side, args);
  }

  async sendSeen(args: CommandArgs<'chat.seen'>): Promise<SendSeenResult> {
    return actions.sendSeen(this.side, args);
  }

  async setTyping(args: CommandArgs<'chat.typing'>): Promise<void> {
    return actions.setTyping(this.side, args);
  }

  // The chats operations, presence and event messages: chats.ts.

  async deleteChat(args: CommandArgs<'chat.delete'>): Promise<void> {
    return chats.deleteChat(this.side, args);
  }

  async chatPicture(args: CommandArgs<'chat.picture'>): Promise<ChatPictureResponse> {
    return chats.chatPicture(this.side, args);
  }

  async clearMessages(args: CommandArgs<'chat.clearMessages'>): Promise<void> {
    return chats.clearMessages(this.side, args);
  }

  async readChatMessages(args: CommandArgs<'chat.read'>): Promise<ReadChatMessagesResponse> {
    return chats.readChatMessages(this.side, args);
  }

  async archiveChat(args: CommandArgs<'chat.archive'>): Promise<void> {
    return chats.archiveChat(this.side, args);
  }

  async markChatUnread(args: CommandArgs<'chat.unread'>): Promise<void> {
    return chats.markChatUnread(this.side, args);
  }

  async editMessage(args: CommandArgs<'message.edit'>): Promise<void> {
    return chats.editMessage(this.side, args);
  }

  async deleteMessage(args: CommandArgs<'message.delete'>): Promise<void> {
    return chats.deleteMessage(this.side, args);
  }

  async pinMessage(args: CommandArgs<'message.pin'>): Promise<void> {
    return chats.pinMessage(this.side, args);
  }

  async sendEvent(args: CommandArgs<'send.event'>): Promise<MessageRecord> {
    return chats.sendEvent(this.side, args);
  }

  async setPresence(args: { readonly chatId?: string | undefined; readonly presence: PresenceStatus }): Promise<void> {
    return chats.setPresence(this.side, args);
  }

  async presences(): Promise<ChatPresences[]> {
    return chats.presences(this.side);
  }

  async presence(args: CommandArgs<'presence.get'>): Promise<ChatPresences> {
    return chats.subscribePresence(this.side, args);
  }

  async subscribePresence(args: CommandArgs<'presence.subscribe'>): Promise<void> {
    await chats.subscribePresence(this.side, args);
  }

  // Channels (channels.ts) and status updates (stories.ts).

  async channels(role: Exclude<ChannelRole, 'GUEST'> | undefined): Promise<Channel[]> {
    return channels.listChannels(this.side, role);
  }

  async createChannel(channel: NewChannel): Promise<Channel> {
    return channels.createChannel(this.side, channel);
  }

  async channel(ref: ChannelRef): Promise<Channel> {
    return channels.getChannel(this.side, ref);
  }

  async deleteChannel(id: string): Promise<void> {
    return channels.deleteChannel(this.side, id);
  }

  async followChannel(id: string): Promise<void> {
    return channels.followChannel(this.side, id);
  }

  async unfollowChannel(id: string): Promise<void> {
    return channels.unfollowChannel(this.side, id);
  }

  async muteChannel(id: string): Promise<void> {
    return channels.muteChannel(this.side, id, true);
  }

  async unmuteChannel(id: string): Promise<void> {
    return channels.muteChannel(this.side, id, false);
  }

  async channelPosts(query: { readonly channel: ChannelRef; readonly limit: number; readonly downloadMedia: boolean }): Promise<ChannelMessage[]> {
    return channels.channelPosts(this.side, query);
  }

  async searchChannels(query: ChannelSearchArgs): Promise<ChannelListResult> {
    return channels.searchChannels(this.side, query);
  }

  async sendTextStatus(status: TextStatus): Promise<MessageRecord> {
    return stories.sendTextStatus(this.side, status);
  }

  async sendMediaStatus(status: OutgoingMediaStatus): Promise<MessageRecord> {
    return stories.sendMediaStatus(this.side, status);
  }

  async deleteStatus(request: DeleteStatusRequest): Promise<void> {
    return stories.deleteStatus(this.side, request);
  }

  /** Declines a ringing call (the calls app): `call.rejected`, as when the phone declines it. */
  async rejectCall(call: { readonly id: string; readonly from: string }): Promise<void> {
    rejectRingingCall(this.side, call);
  }

  async simulate(request: SimulateRequest): Promise<Record<string, unknown>> {
    return runSimulation(this.side, request);
  }

  private waitForScan(): void {
    this.renewQr();
    this.qrTimer = setInterval(() => this.renewQr(), this.options.qrRenewMs);
  }

  private renewQr(): void {
    this.qrValue = sandboxQrValue();
    this.status = 'SCAN_QR_CODE';
    this.context.setStatus('SCAN_QR_CODE');
  }

  private becomeWorking(me: MeInfo): void {
    this.clearTimers();
    this.qrValue = null;
    this.codeFor = null;
    this.me = me;
    this.status = 'WORKING';
    this.context.setMe(me);
    this.context.setStatus('WORKING');
  }

  private requireWorking(): MeInfo {
    this.requireStatus('WORKING');
    if (!this.me) throw new CommandError('WRONG_STATUS', `session '${this.context.session}' has no account`);
    return this.me;
  }

  private requireStatus(...expected: SessionStatus[]): void {
    if (!expected.includes(this.status)) {
      throw new CommandError('WRONG_STATUS', `session '${this.context.session}' is ${this.status}; this needs ${expected.join(' or ')}`, {
        session: this.context.session,
        status: this.status,
        expected,
      });
    }
  }

  private acknowledge(record: MessageRecord, ack: number): void {
    this.context.emit('message.ack', {
      id: record.id,
      from: record.to,
      to: record.from,
      participant: null,
      fromMe: true,
      ack,
      ackName: ackName(ack),
    });
  }

  private clearTimers(): void {
    if (this.qrTimer) clearInterval(this.qrTimer);
    this.qrTimer = null;
    this.serverAcks.clear();
    this.deviceAcks.clear();
  }
}
