import type {
  Channel,
  ChannelListResult,
  ChannelRef,
  ChannelRole,
  ChannelSearchArgs,
  ChatPictureResponse,
  Contact,
  DeleteStatusRequest,
  GroupInfo,
  GroupParticipant,
  GroupSecurity,
  Label,
  LabelledChat,
  MeInfo,
  MessageReactionPayload,
  MyProfile,
  PollVotePayload,
  MessageRecord,
  PresenceStatus,
  ReadChatMessagesResponse,
  RequestCodeRequest,
  SendSeenResult,
  SessionStatus,
  TextStatus,
  WANumberExistResult,
} from '@switchboard/protocol';
import type { NewChannel } from '../../capabilities/channels.js';
import type { CommandArgs, OutgoingContacts, OutgoingMedia } from '../../capabilities/chatting.js';
import type { GroupParticipantsArgs, GroupPictureArgs } from '../../capabilities/groups.js';
import type { OutgoingMediaStatus } from '../../capabilities/stories.js';
import { CommandError } from '../../command-error.js';
import { notSupported } from '../../command-rules.js';
import type { Engine, EngineContext, SendTextArgs } from '../../engine.js';
import type { MediaFile } from '../../media/media-store.js';
import { ApiSendGate } from './api-send-gate.js';
import { WebjsCalls } from './calls.js';
import { WebjsChannels } from './channels.js';
import { WebjsChats } from './chats.js';
import { WebjsChatting } from './chatting.js';
import { WebjsContacts } from './contacts.js';
import { WebjsGroups } from './groups.js';
import { WebjsLabels } from './labels.js';
import { WebjsProfile } from './profile.js';
import { WebjsStories } from './stories.js';
import type { WebjsDeps } from './deps.js';
import { groupInfo, groupUpdate, members, notificationData, participantsPayload } from './group-mapping.js';
import { ackPayload, editedPayload, messageRecord, pollVotePayload, reactionPayload, revokedPayload } from './message-mapping.js';
import { OwnEchoes } from './own-echo.js';
import { WebjsReceivedMedia } from './received-media.js';
import type {
  WebjsClientEvents,
  WebjsClientLike,
  WebjsContentClasses,
  WebjsEventName,
  WebjsGroupNotification,
  WebjsMessage,
} from './webjs-client.js';
import { recordId, wid } from './webjs-ids.js';

/** How each client event's arguments are named in `engine.event`; also the events listened to. */
const EVENT_ARGS: Record<WebjsEventName, readonly string[]> = {
  qr: ['qr'],
  code: ['code'],
  authenticated: ['session'],
  auth_failure: ['message'],
  ready: [],
  disconnected: ['reason'],
  change_state: ['state'],
  loading_screen: ['percent', 'message'],
  message: ['message'],
  message_create: ['message'],
  message_ciphertext: ['message'],
  message_ack: ['message', 'ack'],
  message_reaction: ['reaction'],
  message_edit: ['message', 'newBody', 'prevBody'],
  message_revoke_everyone: ['message', 'revokedMessage'],
  message_revoke_me: ['message'],
  group_join: ['notification'],
  group_leave: ['notification'],
  group_admin_changed: ['notification'],
  group_update: ['notification'],
  call: ['call'],
  vote_update: ['vote'],
  chat_archived: ['chat', 'archived', 'before'],
};

/** Disconnect reasons after which the login is gone, not just the connection. */
const LOGIN_LOST = new Set(['LOGOUT', 'UNPAIRED', 'UNPAIRED_IDLE']);

type Handlers = { [E in WebjsEventName]?: (...args: WebjsClientEvents[E]) => void | Promise<void> };

/**
 * WEBJS: whatsapp-web.js driving WhatsApp Web in Debian's chromium. The engine maps the
 * library's client events to the normalized events of spec 6.2 through pure functions
 * (`message-mapping.ts`, `group-mapping.ts`) and reports its status; every client event also
 * goes out untranslated as `engine.event`. It sees the library only through `WebjsClientLike`.
 */
export class WebjsEngine implements Engine {
  readonly name = 'WEBJS' as const;
  private client: WebjsClientLike | null = null;
  private stopped = false;
  private status: SessionStatus = 'STARTING';
  private qrValue: string | null = null;
  private account: MeInfo | null = null;
  private readonly gate = new ApiSendGate();
  private readonly echoes = new OwnEchoes();
  private readonly chatting: WebjsChatting;
  private readonly chats: WebjsChats;
  private readonly contactBook: WebjsContacts;
  private readonly groupAdmin: WebjsGroups;
  private readonly labelBook: WebjsLabels;
  private readonly ownProfile: WebjsProfile;
  private readonly stories: WebjsStories;
  private readonly calls: WebjsCalls;
  private readonly receivedMedia: WebjsReceivedMedia;
  /** Issue 16's Channels: channels.ts. */
  private readonly newsletters: WebjsChannels;

  constructor(
    private readonly context: EngineContext,
    private readonly createClient: () => Promise<WebjsClientLike>,
    /** The library's content classes; loaded from whatsapp-web.js on first use. */
    private readonly loadContent: () => Promise<WebjsContentClasses> = loadLibraryContent,
  ) {
    const deps: WebjsDeps = {
      context,
      gate: this.gate,
      echoes: this.echoes,
      client: () => this.liveClient(),
      content: () => this.loadContent(),
      meId: () => this.meId(),
      notSupported: (what) => this.notSupported(what),
      engineError: (doing) => this.engineError(doing),
    };
    this.chatting = new WebjsChatting(deps);
    this.chats = new WebjsChats(deps);
    this.contactBook = new WebjsContacts(deps);
    this.groupAdmin = new WebjsGroups(deps);
    this.labelBook = new WebjsLabels(deps);
    this.stories = new WebjsStories(deps, this.chatting);
    this.ownProfile = new WebjsProfile(
      deps,
      (name) => {
        if (!this.account) return;
        this.account = { ...this.account, pushName: name };
        this.context.setMe(this.account);
      },
      () => this.account?.pushName ?? this.client?.info?.pushname ?? '',
    );
    this.calls = new WebjsCalls(deps);
    this.receivedMedia = new WebjsReceivedMedia(context);
    this.newsletters = new WebjsChannels(deps);
  }

  /** Returns once the browser is being launched; the login goes on in the background. */
  async start(): Promise<void> {
    const client = await this.createClient();
    if (this.stopped) return;
    this.client = client;
    for (const event of Object.keys(EVENT_ARGS) as WebjsEventName[]) {
      client.on(event, (...args: unknown[]) => this.dispatch(client, event, args));
    }
    void client.initialize().then(
      async () => {
        // A stop during the launch found no browser to close yet.
        if (this.stopped) await client.destroy().catch(() => {});
        else this.watchBrowser(client);
      },
      (error: unknown) => {
        if (!this.stopped) this.fail('the web client could not start', error);
        return client.destroy().catch(() => {});
      },
    );
  }

  /**
   * whatsapp-web.js never notices its browser going away: the session would stay WORKING with
   * nothing behind it. A Chromium that exits (crash, OOM kill) or a page whose renderer crashes
   * makes it FAILED, saying which; before `initialize` resolves, such a loss rejects it instead.
   */
  private watchBrowser(client: WebjsClientLike): void {
    const lost = (reason: string, error: unknown) => {
      if (this.stopped || client !== this.client || this.status === 'FAILED') return;
      this.fail(reason, error);
      void client.destroy().catch(() => {});
    };
    const browser = client.pupBrowser;
    browser?.once('disconnected', () => lost('the browser closed', new Error('Chromium exited or closed its connection')));
    client.pupPage?.once('error', (error) => lost('the browser page crashed', error));
    if (browser && !browser.connected) lost('the browser closed', new Error('Chromium exited before the web client started'));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.gate.close();
    this.qrValue = null;
    // A browser that is gone already is stopped all the same.
    await this.client?.destroy().catch((error: unknown) => {
      this.context.log.warn({ session: this.context.session, err: error }, 'WEBJS could not close the browser');
    });
  }

  /** Unlinks the device when logged in, then forgets the saved login. */
  async logout(): Promise<void> {
    const client = this.client;
    const loggedIn = this.status === 'WORKING';
    this.stopped = true;
    this.gate.close();
    try {
      if (client && loggedIn) await client.logout();
      else await client?.destroy();
    } catch (error) {
      this.context.log.warn({ session: this.context.session, err: error }, 'WEBJS could not unlink the device');
    }
    await this.context.authState.clear();
    this.account = null;
    this.context.setMe(null);
  }

  qr(): string {
    if (!this.qrValue) throw new CommandError('WRONG_STATUS', 'no QR code is waiting to be scanned');
    return this.qrValue;
  }

  async requestCode(request: RequestCodeRequest): Promise<{ code: string }> {
    if (request.method) throw this.notSupported(`pairing by ${request.method} (WhatsApp Web pairs by a code shown on the phone)`);
    const client = this.liveClient();
    const code = await client.requestPairingCode(request.phoneNumber, true).catch(this.engineError('request a pairing code'));
    return { code: code.length === 8 ? `${code.slice(0, 4)}-${code.slice(4)}` : code };
  }

  async sendText(args: SendTextArgs): Promise<MessageRecord> {
    return this.chatting.send(args, args.text, { linkPreview: args.linkPreview });
  }

  sendMedia(args: OutgoingMedia): Promise<MessageRecord> {
    return this.chatting.sendMedia(args);
  }

  sendLocation(args: CommandArgs<'send.location'>): Promise<MessageRecord> {
    return this.chatting.sendLocation(args);
  }

  sendPoll(args: CommandArgs<'send.poll'>): Promise<MessageRecord> {
    return this.chatting.sendPoll(args);
  }

  sendContactVcard(args: OutgoingContacts): Promise<MessageRecord> {
    return this.chatting.sendContactVcard(args);
  }

  forwardMessage(args: CommandArgs<'message.forward'>): Promise<MessageRecord> {
    return this.chatting.forwardMessage(args);
  }

  sendEvent(args: CommandArgs<'send.event'>): Promise<MessageRecord> {
    return this.chatting.sendEvent(args);
  }

  sendPollVote(args: CommandArgs<'send.pollVote'>): Promise<PollVotePayload> {
    return this.chatting.sendPollVote(args);
  }

  react(args: CommandArgs<'message.react'>): Promise<MessageReactionPayload> {
    return this.chatting.react(args);
  }

  star(args: CommandArgs<'message.star'>): Promise<void> {
    return this.chatting.star(args);
  }

  sendSeen(args: CommandArgs<'chat.seen'>): Promise<SendSeenResult> {
    return this.chatting.sendSeen(args);
  }

  setTyping(args: CommandArgs<'chat.typing'>): Promise<void> {
    return this.chatting.setTyping(args);
  }

  editMessage(args: CommandArgs<'message.edit'>): Promise<void> {
    return this.chatting.editMessage(args);
  }

  deleteMessage(args: CommandArgs<'message.delete'>): Promise<void> {
    return this.chatting.deleteMessage(args);
  }

  deleteChat(args: CommandArgs<'chat.delete'>): Promise<void> {
    return this.chats.deleteChat(args);
  }

  clearMessages(args: CommandArgs<'chat.clearMessages'>): Promise<void> {
    return this.chats.clearMessages(args);
  }

  archiveChat(args: CommandArgs<'chat.archive'>): Promise<void> {
    return this.chats.archiveChat(args);
  }

  markChatUnread(args: CommandArgs<'chat.unread'>): Promise<void> {
    return this.chats.markChatUnread(args);
  }

  chatPicture(args: CommandArgs<'chat.picture'>): Promise<ChatPictureResponse> {
    return this.chats.chatPicture(args);
  }

  readChatMessages(args: CommandArgs<'chat.read'>): Promise<ReadChatMessagesResponse> {
    return this.chats.readChatMessages(args);
  }

  pinMessage(args: CommandArgs<'message.pin'>): Promise<void> {
    return this.chats.pinMessage(args);
  }

  setPresence(args: { readonly chatId?: string | undefined; readonly presence: PresenceStatus }): Promise<void> {
    return this.chats.setPresence(args);
  }

  contacts(): Promise<Contact[]> {
    return this.contactBook.contacts();
  }

  contact(id: string): Promise<Contact> {
    return this.contactBook.contact(id);
  }

  contactAbout(id: string): Promise<string | null> {
    return this.contactBook.contactAbout(id);
  }

  contactPicture(id: string): Promise<string | null> {
    return this.contactBook.contactPicture(id);
  }

  setBlocked(change: { readonly id: string; readonly blocked: boolean }): Promise<void> {
    return this.contactBook.setBlocked(change);
  }

  updateContact(change: { readonly id: string; readonly firstName: string; readonly lastName: string }): Promise<void> {
    return this.contactBook.updateContact(change);
  }

  checkNumber(phone: string): Promise<WANumberExistResult> {
    return this.contactBook.checkNumber(phone);
  }

  createGroup(args: CommandArgs<'group.create'>): Promise<GroupInfo> {
    return this.groupAdmin.createGroup(args);
  }

  /** WhatsApp Web keeps the groups up to date itself: `refresh` asks nothing more. */
  groups(): Promise<GroupInfo[]> {
    return this.groupAdmin.groups();
  }

  group(id: string): Promise<GroupInfo> {
    return this.groupAdmin.group(id);
  }

  leaveGroup(id: string): Promise<void> {
    return this.groupAdmin.leaveGroup(id);
  }

  groupJoinInfo(code: string): Promise<GroupInfo> {
    return this.groupAdmin.groupJoinInfo(code);
  }

  joinGroup(code: string): Promise<string> {
    return this.groupAdmin.joinGroup(code);
  }

  groupPicture(args: CommandArgs<'group.picture'>): Promise<string | null> {
    return this.groupAdmin.groupPicture(args);
  }

  setGroupPicture(args: GroupPictureArgs): Promise<void> {
    return this.groupAdmin.setGroupPicture(args);
  }

  deleteGroupPicture(id: string): Promise<void> {
    return this.groupAdmin.deleteGroupPicture(id);
  }

  setGroupSubject(args: CommandArgs<'group.setSubject'>): Promise<void> {
    return this.groupAdmin.setGroupSubject(args);
  }

  setGroupDescription(args: CommandArgs<'group.setDescription'>): Promise<void> {
    return this.groupAdmin.setGroupDescription(args);
  }

  groupSettings(id: string): Promise<GroupSecurity> {
    return this.groupAdmin.groupSettings(id);
  }

  setGroupSetting(args: CommandArgs<'group.setSetting'>): Promise<void> {
    return this.groupAdmin.setGroupSetting(args);
  }

  groupInviteCode(id: string): Promise<string> {
    return this.groupAdmin.groupInviteCode(id);
  }

  revokeGroupInvite(id: string): Promise<string> {
    return this.groupAdmin.revokeGroupInvite(id);
  }

  updateGroupParticipants(args: GroupParticipantsArgs): Promise<GroupParticipant[]> {
    return this.groupAdmin.updateGroupParticipants(args);
  }

  labels(): Promise<Label[]> {
    return this.labelBook.labels();
  }

  chatLabels(chatId: string): Promise<Label[]> {
    return this.labelBook.chatLabels(chatId);
  }

  setChatLabels(change: { readonly chatId: string; readonly labelIds: readonly string[] }): Promise<void> {
    return this.labelBook.setChatLabels(change);
  }

  labelChats(id: string): Promise<LabelledChat[]> {
    return this.labelBook.labelChats(id);
  }

  sendTextStatus(status: TextStatus): Promise<MessageRecord> {
    return this.stories.sendTextStatus(status);
  }

  sendMediaStatus(status: OutgoingMediaStatus): Promise<MessageRecord> {
    return this.stories.sendMediaStatus(status);
  }

  deleteStatus(request: DeleteStatusRequest): Promise<void> {
    return this.stories.deleteStatus(request);
  }

  profile(): Promise<MyProfile> {
    return this.ownProfile.profile();
  }

  setProfileName(name: string): Promise<void> {
    return this.ownProfile.setProfileName(name);
  }

  setProfileStatus(status: string): Promise<void> {
    return this.ownProfile.setProfileStatus(status);
  }

  setProfilePicture(picture: MediaFile): Promise<void> {
    return this.ownProfile.setProfilePicture(picture);
  }

  deleteProfilePicture(): Promise<void> {
    return this.ownProfile.deleteProfilePicture();
  }

  rejectCall(call: { readonly id: string; readonly from: string }): Promise<void> {
    return this.calls.rejectCall(call);
  }

  // Channels (newsletters): channels.ts.

  channels(role: Exclude<ChannelRole, 'GUEST'> | undefined): Promise<Channel[]> {
    return this.newsletters.list(role);
  }

  createChannel(channel: NewChannel): Promise<Channel> {
    return this.newsletters.create(channel);
  }

  channel(ref: ChannelRef): Promise<Channel> {
    return this.newsletters.get(ref);
  }

  deleteChannel(id: string): Promise<void> {
    return this.newsletters.delete(id);
  }

  followChannel(id: string): Promise<void> {
    return this.newsletters.follow(id, true);
  }

  unfollowChannel(id: string): Promise<void> {
    return this.newsletters.follow(id, false);
  }

  muteChannel(id: string): Promise<void> {
    return this.newsletters.mute(id, true);
  }

  unmuteChannel(id: string): Promise<void> {
    return this.newsletters.mute(id, false);
  }

  searchChannels(query: ChannelSearchArgs): Promise<ChannelListResult> {
    return this.newsletters.search(query);
  }

  private readonly handlers: Handlers = {
    qr: (qr) => {
      this.qrValue = qr;
      this.setStatus('SCAN_QR_CODE');
    },
    // The QR was scanned; history syncs before `ready`, and nothing can be sent until then.
    authenticated: () => {
      this.qrValue = null;
      if (this.status === 'SCAN_QR_CODE') this.setStatus('STARTING');
    },
    ready: () => {
      const info = this.client?.info;
      this.account = info ? { id: wid(info.wid), pushName: info.pushname ?? '' } : null;
      this.context.setMe(this.account);
      this.qrValue = null;
      if (this.status !== 'WORKING') this.setStatus('WORKING');
    },
    auth_failure: (message) => {
      this.context.log.warn({ session: this.context.session, reason: message }, 'WEBJS login failed');
      this.forgetAccount();
      this.setStatus('FAILED', `WhatsApp Web refused the login: ${String(message)}`);
    },
    // The library closes the browser after a disconnect, except on LOGOUT, where it shows a new QR.
    disconnected: async (reason) => {
      this.context.log.warn({ session: this.context.session, reason }, 'WEBJS disconnected');
      this.qrValue = null;
      this.setStatus('FAILED', LOGIN_LOST.has(reason) ? `the device was unlinked (${reason})` : `WhatsApp Web disconnected (${reason})`);
      if (!LOGIN_LOST.has(reason)) return;
      this.forgetAccount();
      // The saved login is void: the next start shows a QR code instead of failing once more.
      await this.context.authState.clear();
    },
    change_state: (state) => this.context.emit('state.change', { state }),
    message: (message) => this.received(message),
    // The library emits `message_create` before `message` for a received message; both events go
    // out from `message`, `message` first, as every engine sends them.
    message_create: (message) => {
      if (!message.id.fromMe) return;
      this.gate.created(recordId(message.id), () => this.context.emit('message.any', messageRecord(message, 'app')));
    },
    message_ciphertext: (message) => this.context.emit('message.waiting', messageRecord(message, 'app')),
    message_ack: (message, ack) => {
      const deliver = () => this.context.emit('message.ack', ackPayload(message, ack, this.meId()));
      if (message.id.fromMe) this.gate.updated(recordId(message.id), deliver);
      else deliver();
    },
    message_reaction: (reaction) => this.context.emit('message.reaction', reactionPayload(reaction, this.meId())),
    message_edit: (message, newBody) => this.context.emit('message.edited', editedPayload(message, newBody)),
    message_revoke_everyone: (message, before) => this.context.emit('message.revoked', revokedPayload(message, before)),
    group_join: async (notification) => {
      this.context.emit('group.join', notificationData(notification));
      this.context.emit('group.v2.participants', participantsPayload(notification, 'join'));
      if (this.involvesMe(notification)) await this.announceJoin(notification);
    },
    group_leave: (notification) => {
      this.context.emit('group.leave', notificationData(notification));
      this.context.emit('group.v2.participants', participantsPayload(notification, 'leave'));
      if (this.involvesMe(notification)) {
        const { timestamp } = notification;
        this.context.emit('group.v2.leave', { group: { id: notification.chatId }, timestamp, _data: notificationData(notification) });
      }
    },
    group_admin_changed: (notification) => {
      const type = notification.type === 'demote' ? 'demote' : 'promote';
      this.context.emit('group.v2.participants', participantsPayload(notification, type));
    },
    group_update: (notification) => {
      const { timestamp } = notification;
      this.context.emit('group.v2.update', { group: groupUpdate(notification), timestamp, _data: notificationData(notification) });
    },
    call: (call) => {
      if (!call.fromMe) this.calls.received(call);
    },
    vote_update: (vote) => this.context.emit('poll.vote', pollVotePayload(vote, this.meId())),
    chat_archived: (chat, archived) => this.context.emit('chat.archive', { id: wid(chat.id), timestamp: Date.now() / 1000, archived }),
  };

  private dispatch(client: WebjsClientLike, event: WebjsEventName, args: unknown[]): void {
    if (this.stopped || client !== this.client) return;
    const names = EVENT_ARGS[event];
    this.context.emit('engine.event', { event, data: Object.fromEntries(names.map((name, i) => [name, jsonSafe(args[i])])) });
    // What an API action made is answered and emitted by that action (own-echo.ts).
    if (this.echoes.offer(event, args)) return;
    const handler = this.handlers[event] as ((...args: unknown[]) => void | Promise<void>) | undefined;
    const report = (error: unknown) =>
      this.context.log.error({ session: this.context.session, event, err: error }, 'WEBJS could not map a client event');
    try {
      void Promise.resolve(handler?.(...args)).catch(report);
    } catch (error) {
      report(error);
    }
  }

  /**
   * A received message's `message` or `message.any`; one with a file waits for it to be kept
   * (received-media.ts), so that the record's `media.url` serves it when the events go out.
   */
  /** A received message: `message`, then `message.any`, with its file once it is stored. */
  private async received(message: WebjsMessage): Promise<void> {
    const record = messageRecord(message, 'app');
    const full = record.hasMedia ? { ...record, media: await this.receivedMedia.of(message) } : record;
    this.context.emit('message', full);
    this.context.emit('message.any', full);
  }

  /** You joined: the whole group, read from the client, since you may not have seen it before. */
  private async announceJoin(notification: WebjsGroupNotification): Promise<void> {
    const chat = await this.liveClient().getChatById(notification.chatId);
    const { timestamp } = notification;
    this.context.emit('group.v2.join', { group: groupInfo(chat), timestamp, _data: notificationData(notification) });
  }

  private involvesMe(notification: WebjsGroupNotification): boolean {
    return members(notification).includes(this.meId());
  }

  private meId(): string {
    return this.account?.id ?? wid(this.client?.info?.wid) ?? '';
  }

  private setStatus(status: SessionStatus, reason?: string): void {
    this.status = status;
    this.context.setStatus(status, reason);
  }

  /** FAILED with the cause, where a client reads it (the status event, the session's `reason`). */
  private fail(reason: string, error: unknown): void {
    this.context.log.error({ session: this.context.session, err: error }, `WEBJS: ${reason}`);
    this.qrValue = null;
    const cause = error instanceof Error ? error.message : String(error);
    this.setStatus('FAILED', `${reason}: ${cause}`);
  }

  private forgetAccount(): void {
    this.qrValue = null;
    this.account = null;
    this.context.setMe(null);
  }

  /** What the page shows now: the QR code while it waits for a scan, the chats once WORKING. */
  async screenshot(): Promise<MediaFile> {
    const page = this.liveClient().pupPage;
    if (!page)
      throw new CommandError(
        'WRONG_STATUS',
        `session '${this.context.session}' has no browser page yet (status ${this.status}); try again in a moment`,
      );
    const png = await page.screenshot({ type: 'png' }).catch(this.engineError('take a screenshot'));
    return { mimetype: 'image/png', filename: 'screenshot.png', data: Buffer.from(png) };
  }

  private liveClient(): WebjsClientLike {
    if (!this.client || this.stopped) {
      throw new CommandError('WRONG_STATUS', `session '${this.context.session}' has no running WEBJS client`);
    }
    return this.client;
  }

  private notSupported(what: string): CommandError {
    return notSupported(this.context.session, this.name, what);
  }

  /** Library failures become ENGINE_ERROR with what was being done; our own errors pass. */
  private engineError(doing: string): (error: unknown) => never {
    return (error) => {
      if (error instanceof CommandError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      throw new CommandError('ENGINE_ERROR', `WEBJS could not ${doing}: ${message}`, { session: this.context.session });
    };
  }
}

/** whatsapp-web.js's content classes; the library (and puppeteer with it) loads on first use. */
async function loadLibraryContent(): Promise<WebjsContentClasses> {
  const library = (await import('whatsapp-web.js')).default;
  const { MessageMedia, Location, Poll, ScheduledEvent } = library;
  return { MessageMedia, Location, Poll, ScheduledEvent } as unknown as WebjsContentClasses;
}

/** `engine.event` data must survive JSON: the library's structures do, minus their client. */
function jsonSafe(value: unknown): unknown {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as unknown;
  } catch {
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- what JSON cannot hold (a cycle, a BigInt) is kept as its string form, best effort like the rest of engine.event
    return String(value);
  }
}
