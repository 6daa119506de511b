import { EventEmitter } from 'node:events';
import type {
  WebjsCall,
  WebjsChannel,
  WebjsChannelData,
  WebjsChat,
  WebjsChatHandle,
  WebjsClientEvents,
  WebjsClientInfo,
  WebjsClientLike,
  WebjsContact,
  WebjsContactHandle,
  WebjsCreatedChannel,
  WebjsDownloadedMedia,
  WebjsEventName,
  WebjsGroupChatHandle,
  WebjsGroupMetadata,
  WebjsLabel,
  WebjsMessage,
  WebjsMessageHandle,
  WebjsSendOptions,
  WebjsWid,
} from '../../src/engines/webjs/webjs-client.js';
import { wid } from '../../src/engines/webjs/webjs-ids.js';
import {
  callData,
  chatData,
  clientInfo,
  contactData,
  groupChatData,
  keyOf,
  ME,
  type MessageSpec,
  messageData,
  pollVote,
  reaction,
  structures,
  widOf,
} from './library-shapes.js';

/** Which kind of message the library makes of `sendMessage`'s content (src/util/Injected/Utils.js `sendMessage`). */
function sentSpec(content: unknown, options: WebjsSendOptions): Pick<MessageSpec, 'body' | 'type' | 'extra'> {
  if (content instanceof structures.MessageMedia) {
    const media = content as unknown as { mimetype: string; filename?: string | null };
    const type = options.sendMediaAsDocument
      ? 'document'
      : options.sendAudioAsVoice && media.mimetype.startsWith('audio/')
        ? 'ptt'
        : (media.mimetype.split('/')[0] ?? 'document');
    const extra = { mimetype: media.mimetype, filename: media.filename, directPath: '/v/t62.7118-24/scripted', caption: options.caption };
    return { body: options.caption ?? '', type, extra };
  }
  if (content instanceof structures.Location) {
    const place = content as unknown as { latitude: number; longitude: number; description: string };
    return { body: '', type: 'location', extra: { lat: place.latitude, lng: place.longitude, loc: place.description } };
  }
  if (content instanceof structures.Poll) {
    const poll = content as unknown as { pollName: string; pollOptions: unknown[]; options: { allowMultipleAnswers: boolean } };
    const extra = { pollName: poll.pollName, pollOptions: poll.pollOptions, pollSelectableOptionsCount: poll.options.allowMultipleAnswers ? 0 : 1 };
    return { body: '', type: 'poll_creation', extra };
  }
  if (content instanceof structures.ScheduledEvent) {
    const event = content as unknown as { name: string; startTimeTs: number; eventSendOptions: Record<string, unknown> };
    return { body: '', type: 'event_creation', extra: { eventName: event.name, eventStartTime: event.startTimeTs, ...event.eventSendOptions } };
  }
  if (typeof content === 'string' && content.startsWith('BEGIN:VCARD')) return { body: content, type: 'vcard', extra: {} };
  return { body: String(content), type: 'chat', extra: {} };
}

/** A `Message` whose browser-side actions are played by the scripted client. */
class ScriptedMessage extends structures.Message implements WebjsMessageHandle {
  private get scripted(): ScriptedClient {
    return (this as unknown as { client: ScriptedClient }).client;
  }

  async edit(content: string, options: { linkPreview?: boolean } = {}): Promise<WebjsMessage | null> {
    this.scripted.record(`edit ${this.id._serialized}`, content, options);
    // The library answers null for a message that is not yours, before asking the browser.
    if (!this.fromMe) return null;
    const key = this.id;
    const data = { ...this._data, body: content, latestEditMsgKey: keyOf({ fromMe: true, chatId: wid(key.remote), id: 'EDIT01' }) };
    return new structures.Message(this.scripted, data);
  }

  async delete(everyone?: boolean): Promise<void> {
    this.scripted.record(`delete ${this.id._serialized}`, everyone);
  }

  async forward(chatId: string): Promise<void> {
    this.scripted.record(`forward ${this.id._serialized}`, chatId);
    // The browser reports the copy; `forwardMessages` resolves with nothing.
    this.scripted.fire('message_create', this.scripted.ownMessage(chatId, { body: this.body, type: this.type, extra: { isForwarded: true } }));
  }

  /** `Message.downloadMedia`: the file a test gave the browser for this message (received media). */
  override async downloadMedia(): Promise<WebjsDownloadedMedia | undefined> {
    this.scripted.record(`downloadMedia ${this.id._serialized}`);
    const file = this.scripted.files.get(this.id._serialized!);
    if (file === 'fail') throw new Error('Evaluation failed: TypeError: Cannot read properties of undefined (reading "mediaStage")');
    return file ?? undefined;
  }

  async star(): Promise<void> {
    this.scripted.record(`star ${this.id._serialized}`);
  }

  async unstar(): Promise<void> {
    this.scripted.record(`unstar ${this.id._serialized}`);
  }

  /** `sendVote` with the options' local ids; the browser's vote table then reports it (`vote_update`). */
  async vote(selected: string[]): Promise<void> {
    this.scripted.record(`vote ${this.id._serialized}`, selected);
    // The library's Message keeps them for a poll_creation (`pollOptions` of its data).
    const pollOptions = (this as unknown as WebjsMessageHandle).pollOptions ?? [];
    const options = pollOptions.map((option) => option.name);
    const chosen = pollOptions.filter((option) => selected.includes(option.name)).map((option) => option.localId);
    const key = this.id;
    const poll = { fromMe: key.fromMe, chatId: wid(key.remote), id: key.id, ...(key.participant ? { participant: wid(key.participant) } : {}) };
    this.scripted.fire('vote_update', pollVote(this.scripted, ME, poll, options, chosen));
  }

  /** Pins run through Chromium (webjs-browser-events.test.ts); here the server says OK. */
  async pin(duration: number): Promise<boolean> {
    this.scripted.record(`pin ${this.id._serialized}`, duration);
    return true;
  }

  async unpin(): Promise<boolean> {
    this.scripted.record(`unpin ${this.id._serialized}`);
    return true;
  }
}

/** A `Call` whose `reject` (`WWebJS.rejectCall`) is played by the scripted client. */
class ScriptedCall extends structures.Call {
  override async reject(): Promise<void> {
    (this as unknown as { client: ScriptedClient }).client.record(`rejectCall ${this.id}`, this.from);
  }
}

/** A `Contact` whose browser-side actions are played by the scripted client. */
class ScriptedContact extends structures.Contact implements WebjsContactHandle {
  private get scripted(): ScriptedClient {
    return (this as unknown as { client: ScriptedClient }).client;
  }
  async getAbout(): Promise<string | null> {
    this.scripted.record(`getAbout ${wid(this.id)}`);
    return this.scripted.abouts.get(wid(this.id)) ?? null;
  }
  async block(): Promise<boolean> {
    this.scripted.record(`block ${wid(this.id)}`);
    return !this.isGroup;
  }
  async unblock(): Promise<boolean> {
    this.scripted.record(`unblock ${wid(this.id)}`);
    return !this.isGroup;
  }
}

/** A `Chat` (or `GroupChat`) whose browser-side actions are played by the scripted client. */
function scriptedChat<T extends new (...args: any[]) => WebjsChat>(Base: T) {
  return class extends Base implements WebjsChatHandle {
    private get scripted(): ScriptedClient {
      return (this as unknown as { client: ScriptedClient }).client;
    }
    private get chatId(): string {
      return (this.id as { _serialized: string })._serialized;
    }
    async clearMessages(): Promise<boolean> {
      this.scripted.record(`clearMessages ${this.chatId}`);
      return true;
    }
    async delete(): Promise<boolean> {
      this.scripted.record(`deleteChat ${this.chatId}`);
      return true;
    }
    async sendStateTyping(): Promise<void> {
      this.scripted.record(`sendStateTyping ${this.chatId}`);
    }
    async sendStateRecording(): Promise<void> {
      this.scripted.record(`sendStateRecording ${this.chatId}`);
    }
    async clearState(): Promise<void> {
      this.scripted.record(`clearState ${this.chatId}`);
    }
    /** The messages the browser knows of this chat, oldest first, the newest `limit` of them. */
    async fetchMessages(options: { limit: number; fromMe?: boolean }): Promise<WebjsMessage[]> {
      this.scripted.record(`fetchMessages ${this.chatId}`, options);
      const known = [...this.scripted.messages.values()].filter((data) => {
        const key = data.id as { fromMe: boolean; remote: string };
        return key.remote === this.chatId && (options.fromMe === undefined || key.fromMe === options.fromMe);
      });
      return known.slice(-options.limit).map((data) => new structures.Message(this.scripted, data));
    }
  };
}
const ScriptedChat = scriptedChat(structures.Chat);

/** A `GroupChat`: each call recorded; a setter answers whether you are an admin, as the service does. */
class ScriptedGroupChat extends scriptedChat(structures.GroupChat) implements WebjsGroupChatHandle {
  private get owner(): ScriptedClient {
    return (this as unknown as { client: ScriptedClient }).client;
  }
  private get gid(): string {
    return wid(this.id);
  }
  /** The server takes the change: refusals to members run through Chromium (browser-groups.test.ts). */
  private did(call: string, ...args: unknown[]): boolean {
    this.owner.record(`${call} ${this.gid}`, ...args);
    return true;
  }
  /** `addParticipantResultCodes`: 200 added, 404 not a WhatsApp user. */
  async addParticipants(ids: readonly string[], options?: { autoSendInviteV4?: boolean }) {
    this.did('addParticipants', ids, options);
    return Object.fromEntries(
      ids.map((id) => [
        id,
        this.owner.registered.has(id)
          ? { code: 200, message: 'The participant was added successfully' }
          : { code: 404, message: 'The participant is not a WhatsApp user' },
      ]),
    );
  }
  async removeParticipants(ids: readonly string[]) {
    this.did('removeParticipants', ids);
    return { status: 200 };
  }
  async promoteParticipants(ids: readonly string[]) {
    this.did('promoteParticipants', ids);
    return { status: 200 };
  }
  async demoteParticipants(ids: readonly string[]) {
    this.did('demoteParticipants', ids);
    return { status: 200 };
  }
  async setSubject(subject: string) {
    return this.did('setSubject', subject);
  }
  async setDescription(description: string) {
    return this.did('setDescription', description);
  }
  async setMessagesAdminsOnly(adminsOnly: boolean) {
    return this.did('setMessagesAdminsOnly', adminsOnly);
  }
  async setInfoAdminsOnly(adminsOnly: boolean) {
    return this.did('setInfoAdminsOnly', adminsOnly);
  }
  async setPicture(picture: object) {
    return this.did('setPicture', picture);
  }
  async deletePicture() {
    return this.did('deletePicture');
  }
  /** `fetchMexGroupInviteCode`'s ServerStatusCodeError for a non-admin is undefined. */
  async getInviteCode() {
    return this.did('getInviteCode') ? 'AbCdEfGhIjK0123' : undefined;
  }
  async revokeInvite() {
    this.did('revokeInvite');
    return 'NeWcOdE456789';
  }
  async leave() {
    this.did('leave');
  }
}

/**
 * A whatsapp-web.js client with no browser: the test plays the library's side by emitting its
 * events with library-built structures. A send behaves as the library's does: the browser
 * reports the new message and its first ack before `sendMessage` resolves, the device ack
 * after. Every call is recorded with its arguments (`calls`, `args`).
 */
export class ScriptedClient extends EventEmitter implements WebjsClientLike {
  info: WebjsClientInfo | undefined;
  readonly calls: string[] = [];
  /** The arguments of each call, beside `calls`, in the same order. */
  readonly args: unknown[][] = [];
  /** What `initialize` rejects with, as when the browser cannot launch. */
  initializeError: Error | null = null;
  /** What a send resolves with; by default a new own message in that chat. */
  sendResult: ((chatId: string, text: string) => WebjsMessage | null) | null = null;
  readonly sendOptions: WebjsSendOptions[] = [];
  /** What each send got as content: a string or one of the library's content classes. */
  readonly sentContent: unknown[] = [];
  /** The browser page (screenshots); none until a test gives one. */
  pupPage: WebjsClientLike['pupPage'] = null;
  /** The messages the browser knows, by serialized key: those sent, and those a test adds. */
  readonly messages = new Map<string, Record<string, unknown>>();
  /**
   * What `Message.downloadMedia` answers for a received file, by the message's serialized key:
   * the file, nothing (WhatsApp Web could not fetch it), or `fail` (the browser throws).
   */
  readonly files = new Map<string, WebjsDownloadedMedia | null | 'fail'>();
  private sent = 0;

  record(call: string, ...args: unknown[]): void {
    this.calls.push(call);
    this.args.push(args);
  }

  async initialize(): Promise<void> {
    this.record('initialize');
    if (this.initializeError) throw this.initializeError;
  }

  /** What the page answers `getWWebVersion`, or what it throws; reads are counted, not recorded in `calls`. */
  webVersion: string | Error = '2.3000.1017054665';
  webVersionReads = 0;
  async getWWebVersion(): Promise<string> {
    this.webVersionReads++;
    if (this.webVersion instanceof Error) throw this.webVersion;
    return this.webVersion;
  }

  async destroy(): Promise<void> {
    this.record('destroy');
  }

  async logout(): Promise<void> {
    this.record('logout');
  }

  /** A new own message in `chatId`, known to the browser from now on. */
  ownMessage(chatId: string, spec: Pick<MessageSpec, 'body' | 'type' | 'extra'>): WebjsMessage {
    const data = messageData({ fromMe: true, chatId, id: `3EB0API${++this.sent}`, ack: 0, ...spec });
    this.messages.set((data.id as { _serialized: string })._serialized, data);
    return new structures.Message(this, data);
  }

  /** A message someone else sent, known to the browser (`getMessageById` finds it). */
  know(spec: MessageSpec): WebjsMessage {
    const data = messageData(spec);
    this.messages.set((data.id as { _serialized: string })._serialized, data);
    return new structures.Message(this, data);
  }

  async sendMessage(chatId: string, content: string | object, options: WebjsSendOptions = {}): Promise<WebjsMessage | null> {
    this.record(`sendMessage ${chatId}`, chatId, content, options);
    this.sendOptions.push(options);
    this.sentContent.push(content);
    if (this.sendResult) return this.sendResult(chatId, typeof content === 'string' ? content : '');
    const sent = this.ownMessage(chatId, sentSpec(content, options));
    this.fire('message_create', sent);
    this.fire('message_ack', sent, 1);
    setTimeout(() => this.fire('message_ack', sent, 2), 1);
    return sent;
  }

  /** The browser upserts the reaction (reactionTableMode.bulkUpsert), which the library reports. */
  async sendReaction(messageId: string, text: string): Promise<void> {
    this.record(`sendReaction ${messageId}`, text);
    const parent = this.messages.get(messageId);
    if (!parent) return;
    const key = parent.id as { fromMe: boolean; remote: string; id: string; participant?: { _serialized: string } };
    const parentSpec = {
      fromMe: key.fromMe,
      chatId: key.remote,
      id: key.id,
      ...(key.participant ? { participant: key.participant._serialized } : {}),
    };
    const group = key.remote.endsWith('@g.us');
    const own = { fromMe: true, chatId: key.remote, id: `3EB0REACT${++this.sent}`, ...(group ? { participant: ME } : {}) };
    this.fire('message_reaction', reaction(this, own, parentSpec, text, ME));
  }

  async getMessageById(messageId: string): Promise<WebjsMessageHandle | undefined> {
    this.record(`getMessageById ${messageId}`);
    const data = this.messages.get(messageId);
    return data ? new ScriptedMessage(this, data) : undefined;
  }

  /** Chats the browser does not know: `sendSeen` answers false, `getChatById` fails as the library does. */
  readonly unknownChats = new Set<string>();

  async sendSeen(chatId: string): Promise<boolean> {
    this.record(`sendSeen ${chatId}`);
    return !this.unknownChats.has(chatId);
  }

  /** The browser's Chat fires change:archive, which the library reports as `chat_archived`. */
  async archiveChat(chatId: string): Promise<boolean> {
    this.record(`archiveChat ${chatId}`);
    this.fire('chat_archived', await this.getChatById(chatId), true, false);
    return true;
  }

  async unarchiveChat(chatId: string): Promise<boolean> {
    this.record(`unarchiveChat ${chatId}`);
    this.fire('chat_archived', await this.getChatById(chatId), false, true);
    return false;
  }

  /** Profile pictures by id; none (undefined, as the library answers) unless a test sets one. */
  readonly pictures = new Map<string, string>();

  async getProfilePicUrl(contactId: string): Promise<string | undefined> {
    this.record(`getProfilePicUrl ${contactId}`);
    return this.pictures.get(contactId);
  }

  /** The address book, by id: what `getContacts` lists. */
  readonly contacts = new Map<string, Record<string, unknown>>();
  /** Ids with a WhatsApp account (the server's answer to `queryWidExists`). */
  readonly registered = new Set<string>();
  readonly abouts = new Map<string, string>();

  async getContacts(): Promise<WebjsContact[]> {
    this.record('getContacts');
    return [...this.contacts.values()].map((data) => new structures.Contact(this, data));
  }

  /** `WWebJS.getContact` finds or creates the contact model: an unknown id gives a made-up contact. */
  async getContactById(contactId: string): Promise<WebjsContactHandle> {
    this.record(`getContactById ${contactId}`);
    return new ScriptedContact(this, this.contacts.get(contactId) ?? contactData(contactId));
  }

  async saveOrEditAddressbookContact(phoneNumber: string, firstName: string, lastName: string, syncToAddressbook = false): Promise<void> {
    this.record('saveOrEditAddressbookContact', phoneNumber, firstName, lastName, syncToAddressbook);
  }

  async isRegisteredUser(id: string): Promise<boolean> {
    this.record(`isRegisteredUser ${id}`);
    return Boolean(await this.numberId(id.endsWith('@c.us') ? id : `${id}@c.us`));
  }

  async getNumberId(number: string): Promise<WebjsWid | null> {
    this.record(`getNumberId ${number}`);
    return this.numberId(number.endsWith('@c.us') ? number : `${number}@c.us`);
  }

  private async numberId(id: string): Promise<WebjsWid | null> {
    return this.registered.has(id) ? widOf(id) : null;
  }

  /** What `getChats` lists. */
  readonly chatIds: string[] = [];

  async getChats(): Promise<WebjsChat[]> {
    this.record('getChats');
    return Promise.all(this.chatIds.map((id) => this.getChatById(id)));
  }

  /** `createGroup`: the new group's id and what was done with each member. */
  async createGroup(title: string, participants: readonly string[]) {
    this.record('createGroup', title, participants);
    const gid = '120363040000000099@g.us';
    const results = Object.fromEntries(
      participants.map((id) => [id, { statusCode: 200, message: 'ok', isGroupCreator: false, isInviteV4Sent: false }]),
    );
    return { title, gid: widOf(gid), participants: results };
  }

  // Invites run through Chromium (browser-groups.test.ts): here the server knows none, and
  // its 404 makes the library throw.
  async getInviteInfo(code: string): Promise<WebjsGroupMetadata> {
    this.record('getInviteInfo', code);
    throw Object.assign(new Error('ServerStatusCodeError: 404'), { name: 'ServerStatusCodeError' });
  }

  async acceptInvite(code: string): Promise<string> {
    this.record('acceptInvite', code);
    throw Object.assign(new Error('ServerStatusCodeError: 404'), { name: 'ServerStatusCodeError' });
  }

  /** The account's labels as `getLabelModel` serializes them, and each chat's label ids. */
  readonly labelData: { id: string; name: string; hexColor: string; colorIndex: number }[] = [];
  readonly chatLabelIds = new Map<string, string[]>();
  /** A WhatsApp Business account: the only kind `addOrRemoveLabels` works on. */
  business = true;

  async getLabels(): Promise<WebjsLabel[]> {
    this.record('getLabels');
    return this.labelData.map((data) => new structures.Label(this, data));
  }

  async getChatLabels(chatId: string): Promise<WebjsLabel[]> {
    this.record(`getChatLabels ${chatId}`);
    const ids = this.chatLabelIds.get(chatId) ?? [];
    return this.labelData.filter((data) => ids.includes(data.id)).map((data) => new structures.Label(this, data));
  }

  async getChatsByLabelId(labelId: string): Promise<WebjsChat[]> {
    this.record(`getChatsByLabelId ${labelId}`);
    const chats = [...this.chatLabelIds].filter(([, ids]) => ids.includes(labelId)).map(([chatId]) => chatId);
    return Promise.all(chats.map((chatId) => this.getChatById(chatId)));
  }

  async addOrRemoveLabels(labelIds: string[], chatIds: string[]): Promise<void> {
    this.record('addOrRemoveLabels', labelIds, chatIds);
    if (!this.business) throw new Error('[LT01] Only Whatsapp business');
    for (const chatId of chatIds) this.chatLabelIds.set(chatId, [...labelIds]);
  }

  /** Renaming runs through Chromium (browser-contacts.test.ts); here WhatsApp Web allows it. */
  async setDisplayName(name: string): Promise<boolean> {
    this.record('setDisplayName', name);
    return true;
  }

  async setStatus(status: string): Promise<void> {
    this.record('setStatus', status);
  }

  async setProfilePicture(picture: object): Promise<boolean> {
    this.record('setProfilePicture', picture);
    return true;
  }

  async deleteProfilePicture(): Promise<boolean> {
    this.record('deleteProfilePicture');
    return true;
  }

  async sendPresenceAvailable(): Promise<void> {
    this.record('sendPresenceAvailable');
  }

  async sendPresenceUnavailable(): Promise<void> {
    this.record('sendPresenceUnavailable');
  }

  async revokeStatusMessage(messageId: string): Promise<void> {
    this.record(`revokeStatusMessage ${messageId}`);
  }

  async markChatUnread(chatId: string): Promise<void> {
    this.record(`markChatUnread ${chatId}`);
  }

  async requestPairingCode(phoneNumber: string): Promise<string> {
    this.record(`requestPairingCode ${phoneNumber}`);
    return 'K7QW2M9X';
  }

  // Channels run through Chromium on the fake WhatsApp Web (browser-channels.test.ts): here
  // WhatsApp Web knows none, and the library answers as it does then.
  async getChannels(): Promise<WebjsChannel[]> {
    this.record('getChannels');
    return [];
  }

  async getChannelByInviteCode(inviteCode: string): Promise<WebjsChannel | undefined> {
    this.record(`getChannelByInviteCode ${inviteCode}`);
    return undefined;
  }

  async createChannel(title: string): Promise<WebjsCreatedChannel | string> {
    this.record('createChannel', title);
    return 'CreateChannelError: A channel creation is not enabled';
  }

  async deleteChannel(channelId: string): Promise<boolean> {
    this.record(`deleteChannel ${channelId}`);
    return false;
  }

  async subscribeToChannel(channelId: string): Promise<boolean> {
    this.record(`subscribeToChannel ${channelId}`);
    return false;
  }

  async unsubscribeFromChannel(channelId: string): Promise<boolean> {
    this.record(`unsubscribeFromChannel ${channelId}`);
    return false;
  }

  async searchChannels(options: object): Promise<WebjsChannelData[]> {
    this.record('searchChannels', options);
    return [];
  }

  async getChatById(chatId: string): Promise<WebjsChatHandle> {
    // A `@newsletter` id: undefined, as the browser has no channel.
    if (chatId.endsWith('@newsletter')) return undefined as unknown as WebjsChatHandle;
    // ChatFactory.create on the undefined the browser answers: the library throws reading its `isGroup`.
    if (this.unknownChats.has(chatId)) throw new TypeError("Cannot read properties of undefined (reading 'isGroup')");
    return chatId.endsWith('@g.us') ? new ScriptedGroupChat(this, groupChatData(chatId)) : new ScriptedChat(this, chatData(chatId));
  }

  /**
   * A received message with a file (an image unless `spec.type` says otherwise), fired as the
   * library fires one: `message_create`, then `message`; `file` is what its download answers.
   */
  receiveMedia(spec: MessageSpec, file: WebjsDownloadedMedia | null | 'fail'): WebjsMessage {
    const extra = { directPath: '/v/t62.7118-24/received.enc', mimetype: 'image/jpeg', caption: spec.body ?? '', ...spec.extra };
    const received = new ScriptedMessage(this, messageData({ type: 'image', ...spec, extra }));
    this.files.set(received.id._serialized!, file);
    this.fire('message_create', received);
    this.fire('message', received);
    return received;
  }

  /** An incoming call offer, as the library reports it (`Call` from the browser's call model). */
  ring(from: string): WebjsCall {
    const offer = new ScriptedCall(this, callData(from));
    this.fire('call', offer);
    return offer;
  }

  /** Emits one library event, typed as the library emits it. */
  fire<E extends WebjsEventName>(event: E, ...args: WebjsClientEvents[E]): void {
    this.emit(event, ...args);
  }

  /** The phone scanned the QR code: the library's `authenticated`, then `ready` with `info` set. */
  pair(): void {
    this.fire('authenticated');
    this.info = clientInfo(this);
    this.fire('ready');
  }
}
