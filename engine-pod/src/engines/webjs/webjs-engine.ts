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
  MessageReactionPayload,
  MyProfile,
  PollVotePayload,
  MessageRecord,
  PresenceStatus,
  ReadChatMessagesResponse,
  RequestCodeRequest,
  SendSeenResult,
  TextStatus,
  WANumberExistResult,
} from '@switchboard/protocol';
import type { NewChannel } from '../../capabilities/channels.js';
import type { CommandArgs, OutgoingContacts, OutgoingMedia } from '../../capabilities/chatting.js';
import type { GroupParticipantsArgs, GroupPictureArgs } from '../../capabilities/groups.js';
import type { OutgoingMediaStatus } from '../../capabilities/stories.js';
import type { Engine, EngineContext, SendTextArgs } from '../../engine.js';
import type { MediaFile } from '../../media/media-store.js';
import { WebjsCalls } from './calls.js';
import { WebjsConnection } from './webjs-connection.js';
import { WebjsChannels } from './channels.js';
import { WebjsChats } from './chats.js';
import { WebjsChatting } from './chatting.js';
import { WebjsContacts } from './contacts.js';
import { WebjsGroups } from './groups.js';
import { WebjsLabels } from './labels.js';
import { WebjsProfile } from './profile.js';
import { WebjsStories } from './stories.js';
import type { WebjsDeps } from './deps.js';
import type { WebjsClientLike, WebjsContentClasses } from './webjs-client.js';

/**
 * WEBJS: whatsapp-web.js driving WhatsApp Web in Debian's chromium. The connection's life and the
 * client's events are `WebjsConnection` (webjs-connection.ts); this class delegates each
 * operation to the file of its area, one line each. It sees the library only through
 * `WebjsClientLike`.
 */
export class WebjsEngine implements Engine {
  readonly name = 'WEBJS' as const;
  private readonly connection: WebjsConnection;
  private readonly chatting: WebjsChatting;
  private readonly chats: WebjsChats;
  private readonly contactBook: WebjsContacts;
  private readonly groupAdmin: WebjsGroups;
  private readonly labelBook: WebjsLabels;
  private readonly ownProfile: WebjsProfile;
  private readonly stories: WebjsStories;
  private readonly calls: WebjsCalls;
  /** Issue 16's Channels: channels.ts. */
  private readonly newsletters: WebjsChannels;

  constructor(
    context: EngineContext,
    createClient: () => Promise<WebjsClientLike>,
    /** The library's content classes; loaded from whatsapp-web.js on first use. */
    loadContent: () => Promise<WebjsContentClasses> = loadLibraryContent,
  ) {
    const connection = new WebjsConnection(context, createClient, { callReceived: (call) => this.calls.received(call) });
    this.connection = connection;
    const deps: WebjsDeps = {
      context,
      gate: connection.gate,
      echoes: connection.echoes,
      client: () => connection.liveClient(),
      content: loadContent,
      meId: () => connection.meId(),
      notSupported: (what) => connection.notSupported(what),
      engineError: (doing) => connection.engineError(doing),
    };
    this.chatting = new WebjsChatting(deps);
    this.chats = new WebjsChats(deps);
    this.contactBook = new WebjsContacts(deps);
    this.groupAdmin = new WebjsGroups(deps);
    this.labelBook = new WebjsLabels(deps);
    this.stories = new WebjsStories(deps, this.chatting);
    this.ownProfile = new WebjsProfile(
      deps,
      (name) => connection.renamed(name),
      () => connection.pushName(),
    );
    this.calls = new WebjsCalls(deps);
    this.newsletters = new WebjsChannels(deps);
  }

  // The connection's life: webjs-connection.ts.

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

  requestCode(request: RequestCodeRequest): Promise<{ code: string }> {
    return this.connection.requestCode(request);
  }

  /** What the page shows now: the QR code while it waits for a scan, the chats once WORKING. */
  screenshot(): Promise<MediaFile> {
    return this.connection.screenshot();
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
}

/** whatsapp-web.js's content classes; the library (and puppeteer with it) loads on first use. */
async function loadLibraryContent(): Promise<WebjsContentClasses> {
  const library = (await import('whatsapp-web.js')).default;
  const { MessageMedia, Location, Poll, ScheduledEvent } = library;
  return { MessageMedia, Location, Poll, ScheduledEvent } as unknown as WebjsContentClasses;
}
