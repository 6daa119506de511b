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
import type { BaileysEventMap } from '@whiskeysockets/baileys';
import type { CommandArgs, OutgoingButtonReply, OutgoingContacts, OutgoingLinkPreview, OutgoingMedia } from '../../capabilities/chatting.js';
import type { NewChannel } from '../../capabilities/channels.js';
import type { OutgoingMediaStatus } from '../../capabilities/stories.js';
import type { GroupParticipantsArgs, GroupPictureArgs } from '../../capabilities/groups.js';
import { CommandError, reasonOf } from '../../command-error.js';
import type { Engine, EngineContext, EngineFactory, SendTextArgs } from '../../engine.js';
import type { MediaFile } from '../../media/media-store.js';
import { AccountEvents } from './account-events.js';
import { NowebConnection } from './noweb-connection.js';
import { AccountQueries } from './account-queries.js';
import { NowebContacts } from './contacts.js';
import { NowebGroups } from './groups.js';
import { NowebLabels } from './labels.js';
import { resolveContactId } from './jids.js';
import { channelPostMedia } from './channel-media.js';
import { NowebChannels } from './channels.js';
import { NowebChats } from './chats.js';
import { MessageActions } from './message-actions.js';
import { MessageEvents } from './message-events.js';
import { Outgoing } from './outgoing.js';
import {
  buttonReplyContent,
  contactsContent,
  forwardContent,
  linkPreviewContent,
  locationContent,
  mediaContent,
  pollContent,
} from './outgoing-content.js';
import { DEFAULT_NOWEB_OPTIONS, type NowebOptions } from './options.js';
import { receivedMedia } from './received-media.js';
import { relayedEngineEvents } from './relayed-events.js';
import { NowebStories } from './stories.js';

/**
 * NOWEB: WhatsApp Web's own protocol, spoken by Baileys. The connection's life (pairing, the
 * credentials in the session's `AuthStateStore`, reconnects, stop, logout) is `NowebConnection`
 * (noweb-connection.ts); this class translates the library's events into the interface's and
 * delegates each operation to the file of its area, one line each.
 */
export class NowebEngine implements Engine {
  readonly name = 'NOWEB' as const;
  private readonly connection: NowebConnection;
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

  constructor(
    private readonly context: EngineContext,
    private readonly options: NowebOptions = DEFAULT_NOWEB_OPTIONS,
  ) {
    const connection = new NowebConnection(context, options, {
      observe: (events) => this.book.observe(events),
      translate: (events) => this.translate(events),
      labels: {
        restore: (labels) => this.labelBook.restore(labels),
        stored: () => this.labelBook.stored(),
        forget: () => this.labelBook.forget(),
      },
    });
    this.connection = connection;
    const contactId = (jid: string, alt?: string | null) =>
      resolveContactId(jid, alt, async (lid) => (await connection.currentSocket()?.signalRepository.lidMapping.getPNForLID(lid)) ?? null);
    this.messages = new MessageEvents({
      context,
      me: () => connection.me(),
      meJid: () => connection.meJid() ?? '',
      contactId,
      media: (msg, content) =>
        receivedMedia({ context, socket: () => connection.currentSocket(), host: this.options.mediaHost, logger: this.options.logger }, msg, content),
    });
    this.account = new AccountEvents({
      context,
      contactId,
      meJids: () => connection.meJids(),
      groupMetadata: async (jid) => connection.requireSocket().groupMetadata(jid),
    });
    this.outgoing = new Outgoing({ context, messages: this.messages, account: () => connection.live() });
    this.actions = new MessageActions({ context, messages: this.messages, outgoing: this.outgoing, account: () => connection.live() });
    this.chatActions = new NowebChats({
      context,
      messages: this.messages,
      outgoing: this.outgoing,
      account: () => connection.live(),
      libraryKey: (key) => this.actions.libraryKey(key),
    });
    this.labelBook = new NowebLabels({
      context,
      account: () => connection.live(),
      contactId,
      translated: () => connection.translated(),
      save: (labels) => connection.saveLabels(labels),
    });
    this.queries = new AccountQueries({ socket: () => connection.requireSocket(), me: () => connection.me(), meJid: () => connection.meJid() });
    this.book = new NowebContacts({ socket: () => connection.requireSocket(), meId: () => connection.me()?.id ?? null });
    this.stories = new NowebStories({
      context,
      messages: this.messages,
      outgoing: this.outgoing,
      account: () => connection.live(),
      mediaUpload: () => connection.mediaUpload(),
      knownContacts: async () => (await this.book.contacts()).map((contact) => contact.id).filter((id) => id.endsWith('@c.us')),
    });
    this.newsletters = new NowebChannels({
      account: () => connection.live(),
      postMedia: (postId, content) => channelPostMedia({ context, host: this.options.mediaHost }, postId, content),
    });
    this.myGroups = new NowebGroups({ socket: () => connection.live().socket, groupInfo: async (group) => this.account.groupInfo(group), contactId });
  }

  // The connection's life: noweb-connection.ts.

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

  async sendText(args: SendTextArgs): Promise<MessageRecord> {
    return this.outgoing.send(args, { conversation: args.text });
  }

  // Spec 4.5 beyond text: content in outgoing-content.ts, sending in outgoing.ts, operations on
  // existing messages in message-actions.ts. Buttons and lists are not here: see the README.

  /** Uploaded first (a failed upload sends nothing), then kept in the media store for `media.url`. */
  async sendMedia(args: OutgoingMedia): Promise<MessageRecord> {
    const content = await mediaContent(args, this.connection.mediaUpload());
    return this.outgoing.send(args, content, { media: await this.context.saveMedia(args.file) });
  }

  async sendLinkCustomPreview(args: OutgoingLinkPreview): Promise<MessageRecord> {
    return this.outgoing.send(args, await linkPreviewContent(args, this.connection.mediaUpload()));
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
    await this.connection
      .requireSocket()
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
}

/** What the folder's factory.ts makes: `nowebEngineFactory(nowebOptionsFromEnv(process.env))`. */
export function nowebEngineFactory(options: NowebOptions = DEFAULT_NOWEB_OPTIONS): EngineFactory {
  return (context) => new NowebEngine(context, options);
}
