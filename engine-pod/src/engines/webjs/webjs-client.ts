/**
 * The part of whatsapp-web.js the WEBJS engine uses, typed by what the library really hands
 * over (1.34.7). Its structures come out of the browser as JSON, so a Wid or a message key may
 * arrive as an object with `_serialized` or already as that string; the mapping accepts both.
 * The engine only sees this interface: tests drive it with a scripted client, production with
 * the library's `Client` (`client-factory.ts`).
 */

/** A WhatsApp id (`123@c.us`, `123@g.us`, `123@lid`), serialized or as the browser's Wid. */
export type WebjsWid = string | { readonly _serialized: string };

/** A message key: `Message.id`, `Reaction.id`, `PollVote.parentMsgKey` ... */
export interface WebjsMessageKey {
  readonly fromMe: boolean;
  readonly remote: WebjsWid;
  readonly id: string;
  readonly participant?: WebjsWid | null;
  readonly _serialized?: string;
}

/** `Message` (src/structures/Message.js): the fields the mapping reads. */
export interface WebjsMessage {
  readonly id: WebjsMessageKey;
  readonly ack?: number;
  readonly body: string;
  readonly hasMedia: boolean;
  readonly type: string;
  readonly timestamp: number;
  readonly from: string;
  readonly to: string;
  readonly author?: string;
  readonly fromMe: boolean;
  readonly vCards?: readonly string[];
  readonly hasQuotedMsg?: boolean;
  readonly protocolMessageKey?: WebjsMessageKey | string;
  readonly latestEditMsgKey?: WebjsMessageKey | string;
  readonly isForwarded?: boolean;
  /** A location message's place (`Location`: the description is name and address on two lines). */
  readonly location?: WebjsLocation;
  /** The raw message model, as the browser serialized it. */
  readonly _data: Record<string, unknown>;
  /** The file of a media message (`MessageMedia`, base64 data); nothing when it cannot be fetched. */
  downloadMedia(): Promise<WebjsDownloadedMedia | null | undefined>;
}

/** `Location` (src/structures/Location.js) as a received or sent message carries it. */
export interface WebjsLocation {
  readonly latitude: number | string;
  readonly longitude: number | string;
  readonly name?: string;
  readonly address?: string;
  readonly url?: string;
}

/** `MessageMedia` as `Message.downloadMedia` resolves it. */
export interface WebjsDownloadedMedia {
  readonly mimetype: string;
  /** Base64. */
  readonly data: string;
  readonly filename?: string | null;
}

/** What `Client.getMessageById` answers: a `Message` and what can be done with it. */
export interface WebjsMessageHandle extends WebjsMessage {
  /** Null when WhatsApp Web will not edit it (not yours, not text, too old). */
  edit(content: string, options?: { readonly linkPreview?: boolean }): Promise<WebjsMessage | null>;
  /** `everyone`: revoke it for the whole chat, not only on this device. */
  delete(everyone?: boolean): Promise<void>;
  /** Resolves with nothing; the copy arrives as `message_create`. */
  forward(chatId: string): Promise<void>;
  star(): Promise<void>;
  unstar(): Promise<void>;
  /** A poll's options (`poll_creation` only). */
  readonly pollOptions?: readonly { readonly name: string; readonly localId: number }[];
  readonly allowMultipleAnswers?: boolean;
  /** Votes for the options named (their `name`); none takes the vote back. */
  vote(selectedOptions: string[]): Promise<void>;
  /** False when WhatsApp refused. */
  pin(durationSeconds: number): Promise<boolean>;
  unpin(): Promise<boolean>;
}

/** `Reaction`: `id` is the reaction's own key, `msgId` the key of the message reacted to. */
export interface WebjsReaction {
  readonly id: WebjsMessageKey | string;
  readonly msgId: WebjsMessageKey | string;
  readonly senderId: string;
  readonly timestamp: number;
  /** Empty when the reaction was removed. */
  readonly reaction: string;
  readonly ack?: number;
}

/** `Call`: an incoming or outgoing call offer. */
export interface WebjsCall {
  readonly id: string;
  readonly from: string;
  readonly timestamp: number;
  readonly isVideo: boolean;
  readonly isGroup: boolean;
  readonly fromMe: boolean;
  /** Declines the call (`WWebJS.rejectCall`). */
  reject(): Promise<void>;
}

/** `GroupNotification`: `type` is the gp2 subtype (`add`, `remove`, `subject` ...). */
export interface WebjsGroupNotification {
  readonly id: WebjsMessageKey;
  readonly chatId: string;
  readonly author?: string;
  readonly recipientIds: readonly WebjsWid[];
  readonly type: string;
  readonly timestamp: number;
  readonly body: string;
}

/** `PollVote`. The library keeps no key of the vote message itself, only the poll's. */
export interface WebjsPollVote {
  readonly voter: WebjsWid;
  readonly selectedOptions: readonly { readonly name?: string; readonly localId: number }[];
  readonly interractedAtTs: number;
  readonly parentMsgKey: WebjsMessageKey | string;
}

/** `ClientInfo`, set by the library just before `ready`. */
export interface WebjsClientInfo {
  readonly wid: WebjsWid;
  readonly pushname?: string;
}

export interface WebjsGroupMetadata {
  readonly id?: WebjsWid;
  readonly subject?: string;
  readonly restrict?: boolean;
  readonly desc?: string;
  readonly announce?: boolean;
  readonly memberAddMode?: string;
  readonly membershipApprovalMode?: boolean;
  readonly participants?: readonly { readonly id: WebjsWid; readonly isAdmin?: boolean; readonly isSuperAdmin?: boolean }[];
}

/** `Chat` / `GroupChat` as `getChatById` returns it. */
export interface WebjsChat {
  readonly id: WebjsWid;
  readonly name?: string;
  readonly isGroup: boolean;
  readonly groupMetadata?: WebjsGroupMetadata;
}

/** `Label` (src/structures/Label.js). */
export interface WebjsLabel {
  readonly id: string;
  readonly name?: string;
  readonly hexColor?: string;
}

/** `Contact` (src/structures/Contact.js): the fields the mapping reads. */
export interface WebjsContact {
  readonly id: WebjsWid;
  /** The digits of the id (`userid`). */
  readonly number?: string | null;
  readonly name?: string | null;
  readonly pushname?: string | null;
  readonly shortName?: string | null;
  readonly isMe?: boolean;
  readonly isUser?: boolean;
  readonly isGroup?: boolean;
  readonly isWAContact?: boolean;
  readonly isMyContact?: boolean;
  readonly isBlocked?: boolean;
}

/** A `Contact` with what the engine does with it. */
export interface WebjsContactHandle extends WebjsContact {
  /** Null when hidden or not set. */
  getAbout(): Promise<string | null>;
  /** False for a group, which cannot be blocked. */
  block(): Promise<boolean>;
  unblock(): Promise<boolean>;
}

/** `GroupChat` (src/structures/GroupChat.js): false from a setter means the service refused (not an admin). */
export interface WebjsGroupChatHandle extends WebjsChatHandle {
  /** Per member: `code` 200 when added; a string when the whole call failed. */
  addParticipants(
    ids: readonly string[],
    options?: { readonly autoSendInviteV4?: boolean },
  ): Promise<Record<string, { readonly code: number; readonly message: string }> | string>;
  removeParticipants(ids: readonly string[]): Promise<unknown>;
  promoteParticipants(ids: readonly string[]): Promise<unknown>;
  demoteParticipants(ids: readonly string[]): Promise<unknown>;
  setSubject(subject: string): Promise<boolean>;
  setDescription(description: string): Promise<boolean>;
  setMessagesAdminsOnly(adminsOnly: boolean): Promise<boolean>;
  setInfoAdminsOnly(adminsOnly: boolean): Promise<boolean>;
  /** A `MessageMedia`. */
  setPicture(picture: object): Promise<boolean>;
  deletePicture(): Promise<boolean>;
  /** Undefined when the service refused (not an admin). */
  getInviteCode(): Promise<string | undefined>;
  revokeInvite(): Promise<string>;
  leave(): Promise<void>;
}

/** A `Chat` with the actions on it the engine uses (src/structures/Chat.js). */
export interface WebjsChatHandle extends WebjsChat {
  /** Resolves with false when WhatsApp Web had nothing to clear. */
  clearMessages(): Promise<boolean>;
  delete(): Promise<boolean>;
  readonly unreadCount?: number;
  sendStateTyping(): Promise<void>;
  sendStateRecording(): Promise<void>;
  clearState(): Promise<void>;
  /** The newest `limit` messages (`fromMe` filters), oldest first. */
  fetchMessages(options: { readonly limit: number; readonly fromMe?: boolean }): Promise<WebjsMessage[]>;
}

/**
 * The library's content classes (`MessageMedia`, `Location`, `Poll`, `ScheduledEvent`): `sendMessage` tells what
 * to send by `instanceof` against them, so the engine builds them with the library's own classes.
 */
export interface WebjsContentClasses {
  MessageMedia: new (mimetype: string, data: string, filename?: string | null, filesize?: number | null) => object;
  Location: new (latitude: number, longitude: number, options?: { readonly name?: string; readonly address?: string }) => object;
  Poll: new (name: string, options: readonly string[], settings?: { readonly allowMultipleAnswers?: boolean }) => object;
  ScheduledEvent: new (
    name: string,
    startTime: Date,
    options?: {
      readonly description?: string;
      readonly endTime?: Date;
      readonly location?: string;
      /** `none`: no call link; unset, the library makes a video one. */
      readonly callType?: 'voice' | 'video' | 'none';
    },
  ) => object;
}

/** The arguments of every client event the engine listens to (src/util/Constants.js `Events`). */
export interface WebjsClientEvents {
  qr: [qr: string];
  code: [code: string];
  authenticated: [session?: unknown];
  auth_failure: [message?: unknown];
  ready: [];
  disconnected: [reason: string];
  change_state: [state: string];
  loading_screen: [percent: number, message: string];
  message: [message: WebjsMessage];
  message_create: [message: WebjsMessage];
  message_ciphertext: [message: WebjsMessage];
  message_ack: [message: WebjsMessage, ack: number];
  message_reaction: [reaction: WebjsReaction];
  message_edit: [message: WebjsMessage, newBody: string, prevBody: string];
  message_revoke_everyone: [message: WebjsMessage, revokedMessage?: WebjsMessage | null];
  message_revoke_me: [message: WebjsMessage];
  group_join: [notification: WebjsGroupNotification];
  group_leave: [notification: WebjsGroupNotification];
  group_admin_changed: [notification: WebjsGroupNotification];
  group_update: [notification: WebjsGroupNotification];
  call: [call: WebjsCall];
  vote_update: [vote: WebjsPollVote];
  chat_archived: [chat: WebjsChat, archived: boolean, before: boolean];
}

export type WebjsEventName = keyof WebjsClientEvents;

export interface WebjsSendOptions {
  readonly linkPreview?: boolean;
  readonly quotedMessageId?: string;
  readonly sendSeen?: boolean;
  readonly caption?: string;
  /** An audio `MessageMedia` goes as a voice note (ptt). */
  readonly sendAudioAsVoice?: boolean;
  /** Any `MessageMedia` goes as a document (a file). */
  readonly sendMediaAsDocument?: boolean;
  /** Passed on to the browser's send: a text status's colour and font (0 to 7). */
  readonly extra?: { readonly backgroundColor?: string; readonly fontStyle?: number };
}

/**
 * `Channel` (src/structures/Channel.js), as `getChannels` and `getChatById` of a `@newsletter` id
 * return it; `channelMetadata` is WhatsApp Web's newsletter metadata, serialized.
 */
export interface WebjsChannel extends WebjsChannelData {
  /** False when WhatsApp refused. */
  mute(): Promise<boolean>;
  unmute(): Promise<boolean>;
}

/** A channel's serialized model: what `Channel` is made from, and what `searchChannels` answers as it is. */
export interface WebjsChannelData {
  readonly id: WebjsWid;
  readonly name?: string;
  readonly description?: string;
  readonly isChannel?: boolean;
  readonly channelMetadata?: {
    readonly inviteCode?: string;
    /** `owner`, `admin`, `subscriber` or `guest`. */
    readonly membershipType?: string;
    readonly verified?: boolean;
    /** Subscribers. */
    readonly size?: number;
    readonly description?: string;
  };
}

/** What `createChannel` answers when it made one. */
export interface WebjsCreatedChannel {
  readonly title: string;
  readonly nid: WebjsWid;
  /** `https://whatsapp.com/channel/<code>`. */
  readonly inviteLink: string;
}

/** The subset of whatsapp-web.js's `Client` the engine uses. */
export interface WebjsClientLike {
  /** Set by the library before `ready`; undefined until then. */
  readonly info?: WebjsClientInfo | undefined;
  on<E extends WebjsEventName>(event: E, listener: (...args: WebjsClientEvents[E]) => void): unknown;
  initialize(): Promise<void>;
  /** The WhatsApp Web version the page runs (`window.Debug.VERSION`), once it has loaded. */
  getWWebVersion(): Promise<string>;
  destroy(): Promise<void>;
  logout(): Promise<void>;
  /** Text, or an instance of one of the content classes. Resolves with undefined or null when the chat cannot be found. */
  sendMessage(chatId: string, content: string | object, options?: WebjsSendOptions): Promise<WebjsMessage | null | undefined>;
  /** `reaction` '' takes the reaction back; nothing happens when the message is unknown. */
  sendReaction(messageId: string, reaction: string): Promise<void>;
  /** Revokes one of the account's own statuses by its serialized key; nothing happens when it is unknown. */
  revokeStatusMessage(messageId: string): Promise<void>;
  /** By its serialized key (`true_123@c.us_3EB0...`); null or undefined when unknown. */
  getMessageById(messageId: string): Promise<WebjsMessageHandle | null | undefined>;
  /** Marks every message of the chat read; false when the chat is unknown. */
  sendSeen(chatId: string): Promise<boolean>;
  archiveChat(chatId: string): Promise<boolean>;
  unarchiveChat(chatId: string): Promise<boolean>;
  markChatUnread(chatId: string): Promise<void>;
  /** Undefined when there is none or it is hidden. */
  getProfilePicUrl(contactId: string): Promise<string | undefined>;
  getContacts(): Promise<WebjsContact[]>;
  getChats(): Promise<WebjsChat[]>;
  getLabels(): Promise<WebjsLabel[]>;
  getChatLabels(chatId: string): Promise<WebjsLabel[]>;
  getChatsByLabelId(labelId: string): Promise<WebjsChat[]>;
  /** Gives each chat exactly these labels (WhatsApp Business only; the library throws otherwise). */
  addOrRemoveLabels(labelIds: string[], chatIds: string[]): Promise<unknown>;
  /** An error comes back as a string, not thrown. */
  createGroup(title: string, participants: readonly string[]): Promise<{ readonly gid: WebjsWid } | string>;
  /** The group's metadata as the server answers an invite query. */
  getInviteInfo(inviteCode: string): Promise<WebjsGroupMetadata | null | undefined>;
  /** The id of the group joined. */
  acceptInvite(inviteCode: string): Promise<string>;
  /** Any id gives a contact: WhatsApp Web makes one up for an id it does not know. */
  getContactById(contactId: string): Promise<WebjsContactHandle>;
  /** Asks the server; `getNumberId` without the id. */
  isRegisteredUser(id: string): Promise<boolean>;
  /** Saves a number under a name in the address book (`syncToAddressbook`: on the phone too). */
  saveOrEditAddressbookContact(phoneNumber: string, firstName: string, lastName: string, syncToAddressbook?: boolean): Promise<unknown>;
  /** The registered id of a number, or null when it has no account. */
  getNumberId(number: string): Promise<WebjsWid | null>;
  /** False when WhatsApp Web may not change the name now. */
  setDisplayName(name: string): Promise<boolean>;
  /** The About text. */
  setStatus(status: string): Promise<void>;
  /** A `MessageMedia`; false when WhatsApp refused it. */
  setProfilePicture(picture: object): Promise<boolean>;
  deleteProfilePicture(): Promise<boolean>;
  sendPresenceAvailable(): Promise<void>;
  sendPresenceUnavailable(): Promise<void>;
  requestPairingCode(phoneNumber: string, showNotification?: boolean, intervalMs?: number): Promise<string>;
  getChatById(chatId: string): Promise<WebjsChatHandle>;
  /** The channels WhatsApp Web has (followed, owned, administered). */
  getChannels(): Promise<WebjsChannel[]>;
  /** Undefined when the code names no channel. */
  getChannelByInviteCode(inviteCode: string): Promise<WebjsChannel | undefined>;
  /** An error comes back as a string (`CreateChannelError: ...`), not thrown. */
  createChannel(
    title: string,
    options?: { readonly description?: string | null; readonly picture?: object | null },
  ): Promise<WebjsCreatedChannel | string>;
  /** False when WhatsApp refused (not the owner, or no such channel). */
  deleteChannel(channelId: string): Promise<boolean>;
  subscribeToChannel(channelId: string): Promise<boolean>;
  unsubscribeFromChannel(channelId: string, options?: { readonly deleteLocalModels?: boolean }): Promise<boolean>;
  /**
   * The directory: by text, or by view (0 recommended, 1 trending, 2 popular, 3 new) in the
   * countries given (the account's region when none). One page of `limit`, no cursor.
   */
  searchChannels(options: {
    readonly searchText?: string;
    readonly countryCodes?: readonly string[];
    readonly skipSubscribedNewsletters?: boolean;
    readonly view?: number;
    readonly limit?: number;
  }): Promise<WebjsChannelData[]>;
  /** The browser page, once `initialize` has opened it (whatsapp-web.js's `pupPage`). */
  readonly pupPage?:
    | {
        screenshot(options: { type: 'png' }): Promise<Uint8Array>;
        /** Puppeteer's `error`: the page's renderer crashed. */
        once(event: 'error', listener: (error: Error) => void): unknown;
      }
    | null
    | undefined;
  /** The browser, once `initialize` has launched it (whatsapp-web.js's `pupBrowser`); the library never watches it. */
  readonly pupBrowser?:
    | {
        readonly connected: boolean;
        /** Puppeteer's `disconnected`: Chromium exited or closed its connection. */
        once(event: 'disconnected', listener: () => void): unknown;
        /** The Chromium process puppeteer launched (puppeteer's `Browser.process()`). */
        process?(): {
          readonly exitCode: number | null;
          readonly signalCode: string | null;
          once(event: 'exit', listener: () => void): unknown;
          kill(signal: 'SIGKILL'): boolean;
        } | null;
      }
    | null
    | undefined;
}
