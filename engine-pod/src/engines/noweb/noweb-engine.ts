import { describeRefusal } from '@switchboard/kube/pod';
import {
  type Channel,
  type ChannelMessage,
  type ChannelRef,
  type ChannelRole,
  type ChatPictureResponse,
  type ChatPresences,
  type Contact,
  type DeleteStatusRequest,
  type GroupInfo,
  type GroupParticipant,
  type GroupSecurity,
  type Label,
  type LabelledChat,
  type LabelSpec,
  type MeInfo,
  type MessageReactionPayload,
  type MessageRecord,
  type MyProfile,
  type PollVotePayload,
  type PresenceStatus,
  type ReadChatMessagesResponse,
  type SendSeenResult,
  type RequestCodeRequest,
  type TextStatus,
  type WANumberExistResult,
} from '@switchboard/protocol';
import makeWASocket, { type BaileysEventMap, DisconnectReason } from '@whiskeysockets/baileys';
import type { CommandArgs, OutgoingButtonReply, OutgoingContacts, OutgoingLinkPreview, OutgoingMedia } from '../../capabilities/chatting.js';
import type { NewChannel } from '../../capabilities/channels.js';
import type { OutgoingMediaStatus } from '../../capabilities/stories.js';
import type { GroupParticipantsArgs, GroupPictureArgs } from '../../capabilities/groups.js';
import { CommandError, reasonOf } from '../../command-error.js';
import { currentQr, refuseNumberRegistration } from '../../capabilities/pairing.js';
import type { Engine, EngineContext, EngineFactory, SendTextArgs } from '../../engine.js';
import type { MediaFile } from '../../media/media-store.js';
import { AccountEvents } from './account-events.js';
import { AccountQueries } from './account-queries.js';
import { NowebContacts } from './contacts.js';
import { NowebGroups } from './groups.js';
import { NowebLabels } from './labels.js';
import { BaileysAuthState } from './auth-state.js';
import { formatPairingCode, resolveContactId, toContactId } from './jids.js';
import { channelPostMedia } from './channel-media.js';
import { NowebChannels } from './channels.js';
import { NowebChats } from './chats.js';
import { MessageActions } from './message-actions.js';
import { MessageEvents } from './message-events.js';
import { blockedAddressOf } from '../../outbound/guarded-lookup.js';
import { type Account, Outgoing } from './outgoing.js';
import {
  buttonReplyContent,
  contactsContent,
  forwardContent,
  linkPreviewContent,
  locationContent,
  type MediaUpload,
  mediaContent,
  pollContent,
} from './outgoing-content.js';
import { DEFAULT_NOWEB_OPTIONS, type NowebOptions } from './options.js';
import { receivedMedia } from './received-media.js';
import { relayedEngineEvents } from './relayed-events.js';
import { socketSettings } from './socket-settings.js';
import { NowebStories } from './stories.js';

type WASocket = ReturnType<typeof makeWASocket>;

/** How long WORKING waits for the push name of a just-paired account (see NowebEngine.opened). */
const PUSH_NAME_WAIT_MS = 1_500;

/** Closes after which reconnecting cannot help: the device was unlinked, replaced or refused. */
/** The library's reasons are an enum; the status code we read from its error is a number. */
const LOGGED_OUT: number = DisconnectReason.loggedOut;
const FINAL: ReadonlySet<number> = new Set([
  DisconnectReason.loggedOut,
  DisconnectReason.forbidden,
  DisconnectReason.multideviceMismatch,
  DisconnectReason.connectionReplaced,
]);

/**
 * NOWEB: WhatsApp Web's own protocol, spoken by Baileys. Pairs by QR code or phone code, keeps
 * credentials and signal keys in the session's `AuthStateStore`, reconnects on its own (at once
 * after pairing, when the server asks for a restart; with backoff after a drop) and translates the
 * library's events into the interface's.
 */
export class NowebEngine implements Engine {
  readonly name = 'NOWEB' as const;
  private auth: BaileysAuthState | null = null;
  private socket: WASocket | null = null;
  private qrValue: string | null = null;
  private working = false;
  private stopped = false;
  private attempts = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  /** Set while WORKING waits for the account's push name (see `opened`). */
  private workingTimer: NodeJS.Timeout | null = null;
  private queue: Promise<void> = Promise.resolve();
  private readonly messages: MessageEvents;
  private readonly account: AccountEvents;
  private readonly queries: AccountQueries;
  /** Issue 16's Contacts: contacts.ts. */
  private readonly book: NowebContacts;
  private readonly myGroups: NowebGroups;
  private readonly outgoing: Outgoing;
  private readonly actions: MessageActions;
  private readonly chatActions: NowebChats;
  /** Issue 16's Labels: labels.ts. */
  private readonly labelBook: NowebLabels;
  private readonly stories: NowebStories;
  /** Issue 16's Channels: channels.ts. */
  private readonly newsletters: NowebChannels;
  /** Set when the session's labels must be fetched again once connected (startLabelBook). */
  private labelsToFetch = false;

  constructor(
    private readonly context: EngineContext,
    private readonly options: NowebOptions = DEFAULT_NOWEB_OPTIONS,
  ) {
    const contactId = (jid: string, alt?: string | null) =>
      resolveContactId(jid, alt, async (lid) => (await this.socket?.signalRepository.lidMapping.getPNForLID(lid)) ?? null);
    this.messages = new MessageEvents({
      context,
      me: () => this.me(),
      meJid: () => this.auth?.creds.me?.id ?? '',
      contactId,
      media: (msg, content) =>
        receivedMedia({ context, socket: () => this.socket, host: this.options.mediaHost, logger: this.options.logger }, msg, content),
    });
    this.account = new AccountEvents({
      context,
      contactId,
      meJids: () => [this.auth?.creds.me?.id, this.auth?.creds.me?.lid].filter((jid): jid is string => !!jid),
      groupMetadata: async (jid) => this.requireSocket().groupMetadata(jid),
    });
    this.outgoing = new Outgoing({ context, messages: this.messages, account: () => this.live() });
    this.actions = new MessageActions({ context, messages: this.messages, outgoing: this.outgoing, account: () => this.live() });
    this.chatActions = new NowebChats({
      context,
      messages: this.messages,
      outgoing: this.outgoing,
      account: () => this.live(),
      libraryKey: (key) => this.actions.libraryKey(key),
    });
    this.labelBook = new NowebLabels({
      context,
      account: () => this.live(),
      contactId,
      translated: () => this.queue,
      save: (labels) => {
        void this.auth?.saveLabels(labels).catch((error: unknown) => {
          this.context.log.error({ session: this.context.session, err: error }, 'NOWEB could not save its labels');
        });
      },
    });
    this.queries = new AccountQueries({ socket: () => this.requireSocket(), me: () => this.me(), meJid: () => this.auth?.creds.me?.id });
    this.book = new NowebContacts({ socket: () => this.requireSocket(), meId: () => this.me()?.id ?? null });
    this.stories = new NowebStories({
      context,
      messages: this.messages,
      outgoing: this.outgoing,
      account: () => this.live(),
      mediaUpload: () => this.mediaUpload(),
      knownContacts: async () => (await this.book.contacts()).map((contact) => contact.id).filter((id) => id.endsWith('@c.us')),
    });
    this.newsletters = new NowebChannels({
      account: () => this.live(),
      postMedia: (postId, content) => channelPostMedia({ context, host: this.options.mediaHost }, postId, content),
    });
    this.myGroups = new NowebGroups({ socket: () => this.live().socket, groupInfo: async (group) => this.account.groupInfo(group), contactId });
  }

  async start(): Promise<void> {
    this.auth = await BaileysAuthState.load(this.context.authState);
    const labels = await this.auth.labels();
    this.labelBook.restore(labels);
    if (labels === undefined) await this.startLabelBook(this.auth);
    if (!this.stopped) this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.disconnect();
    await this.queue;
    await this.auth?.flush();
  }

  async logout(): Promise<void> {
    this.stopped = true;
    const socket = this.socket;
    if (socket && this.working) {
      // Unlinks the device on the phone's side too; the socket then closes itself.
      await socket.logout().catch((error: unknown) => this.context.log.warn({ session: this.context.session, err: error }, 'NOWEB logout'));
    }
    await this.disconnect();
    await this.queue;
    if (this.auth) await this.auth.clear();
    else await this.context.authState.clear();
    this.labelBook.forget();
    this.context.setMe(null);
  }

  qr(): string {
    return currentQr(this.context.session, this.qrValue);
  }

  async requestCode(request: RequestCodeRequest): Promise<{ code: string }> {
    refuseNumberRegistration(this.name, this.context.session, request);
    const code = await this.requireSocket()
      .requestPairingCode(request.phoneNumber)
      .catch((error: unknown) => {
        throw new CommandError('ENGINE_ERROR', `NOWEB could not ask for a pairing code: ${reasonOf(error)}`);
      });
    return { code: formatPairingCode(code) };
  }

  async sendText(args: SendTextArgs): Promise<MessageRecord> {
    return this.outgoing.send(args, { conversation: args.text });
  }

  // Spec 4.5 beyond text: content in outgoing-content.ts, sending in outgoing.ts, operations on
  // existing messages in message-actions.ts. Buttons and lists are not here: see the README.

  /** Uploaded first (a failed upload sends nothing), then kept in the media store for `media.url`. */
  async sendMedia(args: OutgoingMedia): Promise<MessageRecord> {
    const content = await mediaContent(args, this.mediaUpload());
    return this.outgoing.send(args, content, { media: await this.context.saveMedia(args.file) });
  }

  async sendLinkCustomPreview(args: OutgoingLinkPreview): Promise<MessageRecord> {
    return this.outgoing.send(args, await linkPreviewContent(args, this.mediaUpload()));
  }

  async sendPoll(args: CommandArgs<'send.poll'>): Promise<MessageRecord> {
    return this.outgoing.send(args, pollContent(args.poll), { additionalNodes: [{ tag: 'meta', attrs: { polltype: 'creation' } }] });
  }

  async sendPollVote(args: CommandArgs<'send.pollVote'>): Promise<PollVotePayload> {
    return this.actions.sendPollVote(args);
  }

  async sendLocation(args: CommandArgs<'send.location'>): Promise<MessageRecord> {
    return this.outgoing.send(args, locationContent(args));
  }

  async sendContactVcard(args: OutgoingContacts): Promise<MessageRecord> {
    return this.outgoing.send(args, contactsContent(args.vcards));
  }

  async sendButtonReply(args: OutgoingButtonReply): Promise<MessageRecord> {
    return this.outgoing.send(args, buttonReplyContent(args));
  }

  /** The original's content, which only a message this process received or sent has here. */
  async forwardMessage(args: CommandArgs<'message.forward'>): Promise<MessageRecord> {
    const original = this.messages.recent.find(args.messageId);
    if (!original) {
      throw new CommandError(
        'NOT_FOUND',
        `session '${this.context.session}' knows no message ${args.messageId}: NOWEB forwards messages it received or sent since it started`,
        { session: this.context.session, messageId: args.messageId },
      );
    }
    return this.outgoing.send({ chatId: args.chatId, id: args.id }, forwardContent(original.msg));
  }

  async react(args: CommandArgs<'message.react'>): Promise<MessageReactionPayload> {
    return this.actions.react(args);
  }

  async star(args: CommandArgs<'message.star'>): Promise<void> {
    await this.actions.star(args);
  }

  async sendSeen(args: CommandArgs<'chat.seen'>): Promise<SendSeenResult> {
    return this.actions.sendSeen(args);
  }

  async setTyping(args: CommandArgs<'chat.typing'>): Promise<void> {
    await this.actions.setTyping(args);
  }

  /** Declines a ringing call on the server; the server answers nothing more, so `call.rejected` is ours to send. */
  async rejectCall(call: { readonly id: string; readonly from: string }): Promise<void> {
    const ringing = this.account.ringingCall(call.id);
    if (!ringing) {
      throw new CommandError('NOT_FOUND', `no call ${call.id} is ringing on session '${this.context.session}'`, {
        session: this.context.session,
        callId: call.id,
      });
    }
    await this.requireSocket()
      .rejectCall(call.id, ringing.creator)
      .catch((error: unknown) => {
        throw new CommandError('ENGINE_ERROR', `NOWEB could not reject call ${call.id}: ${reasonOf(error)}`);
      });
    this.account.callDeclined(call.id);
  }

  // The chats operations, presence and event messages: chats.ts.

  async deleteChat(args: CommandArgs<'chat.delete'>): Promise<void> {
    await this.chatActions.deleteChat(args);
  }

  async chatPicture(args: CommandArgs<'chat.picture'>): Promise<ChatPictureResponse> {
    return this.chatActions.chatPicture(args);
  }

  async clearMessages(args: CommandArgs<'chat.clearMessages'>): Promise<void> {
    await this.chatActions.clearMessages(args);
  }

  async readChatMessages(args: CommandArgs<'chat.read'>): Promise<ReadChatMessagesResponse> {
    return this.chatActions.readChatMessages(args);
  }

  async archiveChat(args: CommandArgs<'chat.archive'>): Promise<void> {
    await this.chatActions.archiveChat(args);
    this.account.archived(args.chatId, args.archive);
  }

  async markChatUnread(args: CommandArgs<'chat.unread'>): Promise<void> {
    await this.chatActions.markChatUnread(args);
  }

  async editMessage(args: CommandArgs<'message.edit'>): Promise<void> {
    await this.chatActions.editMessage(args);
  }

  async deleteMessage(args: CommandArgs<'message.delete'>): Promise<void> {
    await this.chatActions.deleteMessage(args);
  }

  // Channels (newsletters): channels.ts.

  async channels(role: Exclude<ChannelRole, 'GUEST'> | undefined): Promise<Channel[]> {
    return this.newsletters.list(role);
  }

  async createChannel(channel: NewChannel): Promise<Channel> {
    return this.newsletters.create(channel);
  }

  async channel(ref: ChannelRef): Promise<Channel> {
    return this.newsletters.get(ref);
  }

  async deleteChannel(id: string): Promise<void> {
    await this.newsletters.delete(id);
  }

  async followChannel(id: string): Promise<void> {
    await this.newsletters.follow(id);
  }

  async unfollowChannel(id: string): Promise<void> {
    await this.newsletters.unfollow(id);
  }

  async muteChannel(id: string): Promise<void> {
    await this.newsletters.mute(id, true);
  }

  async unmuteChannel(id: string): Promise<void> {
    await this.newsletters.mute(id, false);
  }

  async channelPosts(query: { readonly channel: ChannelRef; readonly limit: number; readonly downloadMedia: boolean }): Promise<ChannelMessage[]> {
    return this.newsletters.posts(query);
  }

  // Status updates (stories): stories.ts.

  async sendTextStatus(status: TextStatus): Promise<MessageRecord> {
    return this.stories.sendText(status);
  }

  async sendMediaStatus(status: OutgoingMediaStatus): Promise<MessageRecord> {
    return this.stories.sendMedia(status);
  }

  async deleteStatus(request: DeleteStatusRequest): Promise<void> {
    await this.stories.delete(request);
  }

  async pinMessage(args: CommandArgs<'message.pin'>): Promise<void> {
    await this.chatActions.pinMessage(args);
  }

  async sendEvent(args: CommandArgs<'send.event'>): Promise<MessageRecord> {
    return this.chatActions.sendEvent(args);
  }

  async setPresence(args: { readonly chatId?: string | undefined; readonly presence: PresenceStatus }): Promise<void> {
    await this.chatActions.setPresence(args);
  }

  async presences(): Promise<ChatPresences[]> {
    return this.chatActions.presences();
  }

  async presence(args: CommandArgs<'presence.get'>): Promise<ChatPresences> {
    return this.chatActions.presence(args);
  }

  async subscribePresence(args: CommandArgs<'presence.subscribe'>): Promise<void> {
    await this.chatActions.subscribePresence(args);
  }

  async profile(): Promise<MyProfile> {
    return this.queries.profile();
  }

  async setProfileName(name: string): Promise<void> {
    await this.queries.setName(name);
  }

  async setProfileStatus(status: string): Promise<void> {
    await this.queries.setStatus(status);
  }

  async setProfilePicture(picture: MediaFile): Promise<void> {
    await this.queries.setPicture(picture);
  }

  async deleteProfilePicture(): Promise<void> {
    await this.queries.deletePicture();
  }

  // The peer's Groups operations: groups.ts.

  async createGroup(args: CommandArgs<'group.create'>): Promise<GroupInfo> {
    return this.myGroups.create(args);
  }

  /** Baileys keeps no groups: every list asks the service. */
  async groups(): Promise<GroupInfo[]> {
    return this.myGroups.list();
  }

  async group(id: string): Promise<GroupInfo> {
    return this.myGroups.get(id);
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
    await this.myGroups.setPicture(args);
  }

  async deleteGroupPicture(id: string): Promise<void> {
    await this.myGroups.deletePicture(id);
  }

  async setGroupSubject(args: CommandArgs<'group.setSubject'>): Promise<void> {
    await this.myGroups.setSubject(args);
  }

  async setGroupDescription(args: CommandArgs<'group.setDescription'>): Promise<void> {
    await this.myGroups.setDescription(args);
  }

  async groupSettings(id: string): Promise<GroupSecurity> {
    return this.myGroups.settings(id);
  }

  async setGroupSetting(args: CommandArgs<'group.setSetting'>): Promise<void> {
    await this.myGroups.setSetting(args);
  }

  async groupInviteCode(id: string): Promise<string> {
    return this.myGroups.inviteCode(id);
  }

  async revokeGroupInvite(id: string): Promise<string> {
    return this.myGroups.revokeInvite(id);
  }

  async updateGroupParticipants(args: GroupParticipantsArgs): Promise<GroupParticipant[]> {
    return this.myGroups.participants(args);
  }

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
    await this.book.setBlocked(id, blocked);
  }

  async updateContact({ id, ...name }: { readonly id: string; readonly firstName: string; readonly lastName: string }): Promise<void> {
    await this.book.update(id, name);
  }

  // Labels: labels.ts.

  async labels(): Promise<Label[]> {
    return this.labelBook.labels();
  }

  async createLabel(label: LabelSpec): Promise<Label> {
    return this.labelBook.create(label);
  }

  async updateLabel(change: LabelSpec & { readonly id: string }): Promise<Label> {
    return this.labelBook.update(change);
  }

  async deleteLabel(id: string): Promise<void> {
    await this.labelBook.delete(id);
  }

  async chatLabels(chatId: string): Promise<Label[]> {
    return this.labelBook.chatLabels(chatId);
  }

  async setChatLabels(change: { readonly chatId: string; readonly labelIds: readonly string[] }): Promise<void> {
    await this.labelBook.setChatLabels(change);
  }

  async labelChats(id: string): Promise<LabelledChat[]> {
    return this.labelBook.labelChats(id);
  }

  async checkNumber(phone: string): Promise<WANumberExistResult> {
    return this.queries.checkNumber(phone);
  }

  async newMessageId(): Promise<string> {
    return this.queries.newMessageId();
  }

  private connect(): void {
    const auth = this.auth!;
    const socket = makeWASocket({
      auth: auth.state,
      waWebSocketUrl: this.options.waUrl,
      logger: this.options.logger,
      ...socketSettings(this.context.settings, this.options),
      ...(this.options.qrTimeoutMs ? { qrTimeout: this.options.qrTimeoutMs } : {}),
    });
    this.socket = socket;
    socket.ev.process((events) => {
      if (this.socket !== socket) return;
      if (events['creds.update']) this.credsUpdated();
      if (events['connection.update']) this.connectionUpdated(socket, events['connection.update']);
      this.book.observe(events);
      this.queue = this.queue
        .then(() => this.translate(events))
        .catch((error: unknown) => {
          this.context.log.error({ session: this.context.session, err: error }, 'NOWEB event translation failed');
        });
    });
  }

  private credsUpdated(): void {
    void this.auth?.saveCreds().catch((error: unknown) => {
      this.context.log.error({ session: this.context.session, err: error }, 'NOWEB could not save its credentials');
    });
    const me = this.me();
    if (this.working && me) this.context.setMe(me);
    if (this.workingTimer && me?.pushName) this.announceWorking();
  }

  private connectionUpdated(socket: WASocket, update: BaileysEventMap['connection.update']): void {
    if (update.qr) {
      // A QR code means the server is reachable: when the codes run out, reconnect without backoff.
      this.attempts = 0;
      this.qrValue = update.qr;
      this.context.setStatus('SCAN_QR_CODE');
    }
    if (update.connection === 'open') {
      this.attempts = 0;
      this.qrValue = null;
      this.working = true;
      this.opened();
    }
    if (update.connection === 'close') this.closed(socket, update.lastDisconnect?.error);
  }

  /**
   * Right after a pairing the push name comes in the phone's first sync, often just after the
   * connection opens. WORKING waits for it a moment, so that its session.status names the account
   * (`me.pushName`), and goes ahead without it after PUSH_NAME_WAIT_MS.
   */
  /**
   * A session without a label book: a new device learns every label in its first app state sync,
   * so its book starts empty now. One paired before the engine kept a book (its labels already
   * synced, never to come again) fetches the labels' collection once more from the start, once connected.
   */
  private async startLabelBook(auth: BaileysAuthState): Promise<void> {
    if (!auth.isPaired) {
      await auth.saveLabels(this.labelBook.stored());
      return;
    }
    this.labelsToFetch = true;
    await auth.state.keys.set({ 'app-state-sync-version': { regular: null } });
  }

  private fetchLabels(socket: WASocket): void {
    this.labelsToFetch = false;
    void socket
      .resyncAppState(['regular'], false)
      .then(async () => {
        await this.queue;
        await this.auth?.saveLabels(this.labelBook.stored());
      })
      .catch((error: unknown) => {
        // Tried again at the next start: the book is still not kept.
        this.context.log.warn({ session: this.context.session, err: error }, 'NOWEB could not fetch its labels');
      });
  }

  private opened(): void {
    if (this.labelsToFetch && this.socket) this.fetchLabels(this.socket);
    const me = this.me();
    this.context.setMe(me);
    if (me?.pushName) this.announceWorking();
    else this.workingTimer = setTimeout(() => this.announceWorking(), PUSH_NAME_WAIT_MS);
  }

  private announceWorking(): void {
    this.clearWorkingTimer();
    if (this.working && !this.stopped) this.context.setStatus('WORKING');
  }

  private clearWorkingTimer(): void {
    if (this.workingTimer) clearTimeout(this.workingTimer);
    this.workingTimer = null;
  }

  private closed(socket: WASocket, error: Error | undefined): void {
    if (this.socket !== socket) return;
    this.clearWorkingTimer();
    this.socket = null;
    this.qrValue = null;
    const wasWorking = this.working;
    this.working = false;
    if (this.stopped) return;
    // Baileys keeps the websocket's own error in `data`. A proxy the outbound address policy
    // refuses stays refused: FAILED at once, no retry dials it either.
    const blocked = blockedAddressOf((error as { data?: unknown } | undefined)?.data ?? error);
    if (blocked) {
      this.context.log.warn({ session: this.context.session, err: error }, 'NOWEB proxy refused by the outbound address policy');
      this.attempts = 0;
      this.context.setStatus('FAILED', `blocked_address: the proxy ${describeRefusal(blocked)}`);
      return;
    }
    const code = (error as { output?: { statusCode?: number } } | undefined)?.output?.statusCode;
    if (code !== undefined && FINAL.has(code)) {
      this.context.log.warn({ session: this.context.session, code, err: error }, 'NOWEB connection ended for good');
      // Unlinked on the phone: the credentials are worthless, the next start shows a QR code.
      const forget = code === LOGGED_OUT ? this.auth!.clear() : Promise.resolve();
      void forget.then(() => {
        if (code === LOGGED_OUT) this.context.setMe(null);
        this.context.setStatus('FAILED', `the server ended the connection for good (${DisconnectReason[code] ?? code})`);
      });
      return;
    }
    if (code === DisconnectReason.restartRequired) {
      this.connect();
      return;
    }
    if (wasWorking) this.context.setStatus('STARTING');
    this.attempts += 1;
    if (this.attempts >= this.options.connectAttempts) {
      const reason = `could not connect to ${this.options.waUrl} in ${this.attempts} attempts in a row (last: ${error?.message ?? 'closed'})`;
      this.context.log.warn({ session: this.context.session, attempts: this.attempts, err: error }, 'NOWEB gives up connecting');
      // Start or restart tries again, from the first attempt.
      this.attempts = 0;
      this.context.setStatus('FAILED', reason);
      return;
    }
    const delayMs = this.options.reconnectDelayMs(this.attempts);
    // The message alone: an expected failure each time, a stack would only bury it.
    this.context.log.warn(
      {
        session: this.context.session,
        url: this.options.waUrl,
        attempt: this.attempts,
        of: this.options.connectAttempts,
        retryInMs: delayMs,
        error: error?.message ?? 'closed',
      },
      wasWorking ? 'NOWEB lost its connection; reconnecting' : 'NOWEB could not connect; trying again',
    );
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (!this.stopped) this.connect();
    }, delayMs);
  }

  private async disconnect(): Promise<void> {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.clearWorkingTimer();
    const socket = this.socket;
    this.socket = null;
    this.working = false;
    this.qrValue = null;
    if (socket) await socket.end(undefined);
  }

  private async translate(events: Partial<BaileysEventMap>): Promise<void> {
    if (events['messages.upsert']) {
      await this.messages.upsert(events['messages.upsert']);
      this.account.groupChanges(events['messages.upsert'].messages);
    }
    if (events['messages.update']) await this.messages.update(events['messages.update']);
    if (events['message-receipt.update']) await this.messages.receipts(events['message-receipt.update']);
    if (events['presence.update']) this.chatActions.remember(await this.account.presence(events['presence.update']));
    if (events['chats.update']) await this.account.chats(events['chats.update']);
    if (events['groups.upsert']) await this.account.groupsJoined(events['groups.upsert']);
    if (events['groups.update']) await this.account.groupsUpdated(events['groups.update']);
    if (events['group-participants.update']) await this.account.participantsChanged(events['group-participants.update']);
    if (events.call) await this.account.calls(events.call);
    if (events['labels.edit']) this.labelBook.edited(events['labels.edit']);
    if (events['labels.association']) await this.labelBook.associated(events['labels.association']);
    if (events['messaging-history.set']) {
      for (const messages of await this.messages.history(events['messaging-history.set'])) {
        this.context.emit('engine.event', { event: 'messaging-history.set', data: { messages } });
      }
    }
    for (const payload of relayedEngineEvents(events)) this.context.emit('engine.event', payload);
  }

  /** The account as the interface shows it: `<number>@c.us` and its push name. */
  private me(): MeInfo | null {
    const me = this.auth?.creds.me;
    if (!me?.id || !this.auth?.isPaired) return null;
    return { id: toContactId(me.id), pushName: me.name ?? me.notify ?? '' };
  }

  private requireSocket(): WASocket {
    if (!this.socket) throw new CommandError('WRONG_STATUS', `session '${this.context.session}' is not connected`);
    return this.socket;
  }

  /** The socket and account while WORKING, for sending. */
  private live(): Account {
    const me = this.me();
    const socket = this.socket;
    const creds = this.auth?.creds.me;
    if (!this.working || !me || !socket || !creds) {
      throw new CommandError('WRONG_STATUS', `session '${this.context.session}' is not connected; this needs WORKING`, {
        session: this.context.session,
        expected: ['WORKING'],
      });
    }
    return { socket, me, jid: creds.id, lid: creds.lid ?? null };
  }

  /** Files go to the media host the server names (`media_conn`), through the library's upload. */
  private mediaUpload(): MediaUpload {
    return { session: this.context.session, upload: this.live().socket.waUploadToServer, logger: this.options.logger };
  }
}

/** What the factory table (engine-factories.ts) registers: `nowebEngineFactory(nowebOptionsFromEnv(process.env))`. */
export function nowebEngineFactory(options: NowebOptions = DEFAULT_NOWEB_OPTIONS): EngineFactory {
  return (context) => new NowebEngine(context, options);
}
