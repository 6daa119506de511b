import {
  ACKS,
  type Channel,
  type ChannelListResult,
  type ChannelRef,
  type ChannelRole,
  type ChannelSearchArgs,
  type ChatPictureResponse,
  type ChatPresences,
  type Contact,
  type DeleteStatusRequest,
  type GroupInfo,
  type GroupParticipant,
  type GroupSecurity,
  type Label,
  type LabelledChat,
  type MessageReactionPayload,
  type MessageRecord,
  type MyProfile,
  type PresenceStatus,
  type ReadChatMessagesResponse,
  type RequestCodeRequest,
  type SendSeenResult,
  type TextStatus,
  type WANumberExistResult,
} from '@switchboard/protocol';
import { CommandError } from '../../command-error.js';
import { catalogRefusal } from '../../command-rules.js';
import type { NewChannel } from '../../capabilities/channels.js';
import type { CommandArgs, OutgoingContacts, OutgoingMedia } from '../../capabilities/chatting.js';
import type { GroupParticipantsArgs, GroupPictureArgs } from '../../capabilities/groups.js';
import type { Engine, EngineContext, EngineFactory, SendTextArgs } from '../../engine.js';
import type { OutgoingMediaStatus } from '../../capabilities/stories.js';
import type { MediaFile } from '../../media/media-store.js';
import { DEFAULT_WEBJS_OPTIONS, type WebjsOptions } from '../webjs/client-factory.js';
import { WppChannels } from './wpp-channels.js';
import { WppChats } from './wpp-chats.js';
import { type CreateWppClient, WppConnection } from './wpp-connection.js';
import { WppContacts } from './wpp-contacts.js';
import { WppLabels } from './wpp-labels.js';
import { WppProfile } from './wpp-profile.js';
import { WppPresence } from './wpp-presence.js';
import { WppCalls } from './wpp-calls.js';
import { WppGroups } from './wpp-groups.js';
import { sendWppEvent } from './wpp-event-messages.js';
import { listenForEngineEvents } from './wpp-events.js';
import { WppStories } from './wpp-stories.js';
import { createWppClient, type WppClientLike } from './wpp-client.js';
import { sendWppMedia } from './wpp-media.js';
import { type WppMessage, wppMessageRecord, wppRecordId } from './wpp-messages.js';
import { WppChatting } from './wpp-chatting.js';
import { describeWppError, wppSendOptions } from './wpp-send-options.js';

/**
 * WPP: WhatsApp Web in our chromium driven by WPPConnect (`@wppconnect-team/wppconnect`, which
 * injects wa-js into the page, unmodified). The connection's life is wpp-connection.ts; here are
 * the operations, each through WPPConnect's client. What the catalog lists for WPP (protocol's
 * engine-catalog.ts) is what it does; the rest answers 422 (docs/compatibility.md).
 */
export class WppEngine implements Engine {
  readonly name = 'WPP' as const;
  private readonly connection: WppConnection;
  private readonly chatting: WppChatting;
  private readonly chats: WppChats;
  private readonly contactBook: WppContacts;
  private readonly ownProfile: WppProfile;
  private readonly labelBook: WppLabels;
  private readonly groupAdmin: WppGroups;
  private readonly stories: WppStories;
  private readonly calls: WppCalls;
  private readonly newsletters: WppChannels;
  private readonly presenceWatch: WppPresence;

  constructor(
    private readonly context: EngineContext,
    options: WebjsOptions,
    createClient: CreateWppClient = createWppClient,
  ) {
    this.connection = new WppConnection(context, options, createClient);
    this.chatting = new WppChatting(
      this.connection,
      (what, error, chatId) => this.failed(what, error, chatId),
      (chatId, run) => this.send(chatId, run),
    );
    this.chats = new WppChats(this.connection);
    this.contactBook = new WppContacts(this.connection);
    this.ownProfile = new WppProfile(this.connection);
    this.labelBook = new WppLabels(this.connection);
    this.groupAdmin = new WppGroups(this.connection);
    this.stories = new WppStories(this.connection);
    this.calls = new WppCalls(this.connection);
    this.newsletters = new WppChannels(this.connection);
    this.presenceWatch = new WppPresence(this.connection);
    this.connection.attach((client) => this.calls.listen(client));
    this.connection.attach((client) => this.groupAdmin.listen(client));
    this.connection.attach((client) => this.presenceWatch.listen(client));
    // Events that translate nothing (wpp-events.ts): state.change, group.join/leave, engine.event.
    this.connection.attach((client) => listenForEngineEvents(this.context, client));
  }

  start(): Promise<void> {
    return this.connection.start();
  }

  stop(): Promise<void> {
    return this.connection.stop();
  }

  logout(): Promise<void> {
    return this.connection.logout();
  }

  qr(): string {
    return this.connection.qr();
  }

  screenshot(): Promise<MediaFile> {
    return this.connection.screenshot();
  }

  requestCode(request: RequestCodeRequest): Promise<{ code: string }> {
    return this.connection.requestCode(request);
  }

  sendText(args: SendTextArgs): Promise<MessageRecord> {
    return this.send(args.chatId, (client) => client.sendText(args.chatId, args.text, { linkPreview: args.linkPreview, ...wppSendOptions(args) }));
  }

  sendLocation(args: CommandArgs<'send.location'>): Promise<MessageRecord> {
    const options = {
      lat: args.latitude,
      lng: args.longitude,
      ...(args.title ? { name: args.title } : {}),
      ...wppSendOptions({ chatId: args.chatId, id: args.id }),
    };
    // WPPConnect answers a location's id and ack only: the message is read back by its id.
    return this.send(args.chatId, async (client) => {
      const { id } = await client.sendLocation(args.chatId, options);
      return client.getMessageById(id);
    });
  }

  // Media (wpp-media.ts): files sent through wa-js's upload; received files are kept by the connection.
  async sendMedia(args: OutgoingMedia): Promise<MessageRecord> {
    if ('convert' in args && args.convert) throw catalogRefusal(this.context.session, 'WPP', 'send.media', 'convert');
    return sendWppMedia((chatId, run) => this.send(chatId, run), args);
  }

  async sendSeen(args: CommandArgs<'chat.seen'>): Promise<SendSeenResult> {
    const named = [...new Set([...(args.messageIds ?? []), ...(args.messageId ? [args.messageId] : [])])];
    await this.connection
      .workingClient()
      .sendSeen(args.chatId)
      .catch((error: unknown) => this.failed(`mark ${args.chatId} read`, error, args.chatId));
    return { chatId: args.chatId, messageIds: named };
  }

  async setTyping(args: CommandArgs<'chat.typing'>): Promise<void> {
    const client = this.connection.workingClient();
    await (args.typing ? client.startTyping(args.chatId) : client.stopTyping(args.chatId)).catch((error: unknown) =>
      this.failed(`update typing in ${args.chatId}`, error, args.chatId),
    );
  }

  // Actions on messages, and sends of contact cards and polls (wpp-chatting.ts).
  react(args: CommandArgs<'message.react'>): Promise<MessageReactionPayload> {
    return this.chatting.react(args);
  }

  editMessage(args: CommandArgs<'message.edit'>): Promise<void> {
    return this.chatting.editMessage(args);
  }

  deleteMessage(args: CommandArgs<'message.delete'>): Promise<void> {
    return this.chatting.deleteMessage(args);
  }

  forwardMessage(args: CommandArgs<'message.forward'>): Promise<MessageRecord> {
    return this.chatting.forwardMessage(args);
  }

  star(args: CommandArgs<'message.star'>): Promise<void> {
    return this.chatting.star(args);
  }

  pinMessage(args: CommandArgs<'message.pin'>): Promise<void> {
    return this.chatting.pinMessage(args);
  }

  sendContactVcard(args: OutgoingContacts): Promise<MessageRecord> {
    return this.chatting.sendContactVcard(args);
  }

  sendPoll(args: CommandArgs<'send.poll'>): Promise<MessageRecord> {
    return this.chatting.sendPoll(args);
  }

  // Chats and presence (wpp-chats.ts).
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

  setPresence(args: { readonly chatId?: string | undefined; readonly presence: PresenceStatus }): Promise<void> {
    return this.chats.setPresence(args);
  }

  // Other accounts' presence (wpp-presence.ts).
  presences(): Promise<ChatPresences[]> {
    return this.presenceWatch.presences();
  }

  presence(args: CommandArgs<'presence.get'>): Promise<ChatPresences> {
    return this.presenceWatch.presence(args);
  }

  subscribePresence(args: CommandArgs<'presence.subscribe'>): Promise<void> {
    return this.presenceWatch.subscribePresence(args);
  }

  // Contacts (wpp-contacts.ts).
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

  checkNumber(phone: string): Promise<WANumberExistResult> {
    return this.contactBook.checkNumber(phone);
  }

  // The account's own profile (wpp-profile.ts).
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

  // Labels, WhatsApp Business (wpp-labels.ts).
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

  // Groups (wpp-groups.ts).
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

  // Event messages (wpp-event-messages.ts): sent through the send gate as any send.
  async sendEvent(args: CommandArgs<'send.event'>): Promise<MessageRecord> {
    return sendWppEvent(this.context.session, (chatId, run) => this.send(chatId, run), args);
  }

  // Statuses (wpp-stories.ts): posted through the send gate as any send.
  async sendTextStatus(status: TextStatus): Promise<MessageRecord> {
    return this.send('status@broadcast', this.stories.postText(status));
  }

  async sendMediaStatus(status: OutgoingMediaStatus): Promise<MessageRecord> {
    return this.send('status@broadcast', this.stories.postMedia(status));
  }

  deleteStatus(request: DeleteStatusRequest): Promise<void> {
    return this.stories.deleteStatus(request);
  }

  // Calls (wpp-calls.ts).
  rejectCall(call: { readonly id: string; readonly from: string }): Promise<void> {
    return this.calls.rejectCall(call);
  }

  // Channels (newsletters): wpp-channels.ts.
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

  /**
   * One send through the send gate: its `message.any` (api) once, before its acks, and the record
   * as the message was made (PENDING): WPPConnect resolves a send once the servers took it, and
   * that ack follows as `message.ack`, as for every engine.
   */
  private async send(chatId: string, run: (client: WppClientLike) => Promise<WppMessage>): Promise<MessageRecord> {
    const client = this.connection.workingClient();
    const me = this.connection.meId();
    const sentRecord = (message: WppMessage) => wppMessageRecord({ ...message, ack: ACKS.PENDING }, 'api', me);
    const sent = await this.connection.gate.send(
      () => run(client).catch((error: unknown) => this.failed(`send to ${chatId}`, error, chatId)),
      (message) => wppRecordId(message),
      (message) => this.context.emit('message.any', sentRecord(message)),
    );
    return sentRecord(sent);
  }

  /** wa-js's refusals as the command's: a chat it does not know is NOT_FOUND, the rest ENGINE_ERROR. */
  private failed(what: string, error: unknown, chatId: string): never {
    // The operation's own refusal (a field checked before anything went out) stands as it is.
    if (error instanceof CommandError) throw error;
    const message = describeWppError(error);
    if (/chat_not_found|not found/i.test(message)) throw new CommandError('NOT_FOUND', `WhatsApp Web has no chat ${chatId}`, { chatId });
    throw new CommandError('ENGINE_ERROR', `WhatsApp Web could not ${what}: ${message}`);
  }
}

/** WPP's options are the browser engines' (Chromium, profiles, a pinned web page): WEBJS's shape. */
export function wppEngineFactory(options: WebjsOptions = { ...DEFAULT_WEBJS_OPTIONS }): EngineFactory {
  return (context) => new WppEngine(context, options);
}
