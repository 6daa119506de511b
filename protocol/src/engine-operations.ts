import type { EngineOp } from './commands.js';
import type { SessionStatus } from './status.js';

/**
 * What each engine command op is, for every engine: the one table of it. The engine host, the
 * gateway and the Go engine's host (engines/gows/internal/natshost, through the generated
 * engine-rpc.schema.json) all read it; what each engine does is the catalog's
 * (engine-catalog.ts).
 */
export interface OperationFacts {
  /** What a refusal calls it: "engine WEBJS does not support <name>". */
  readonly name: string;
  /**
   * The engine method that carries it out (engine-pod's `Engine` interface, and the engine RPC's
   * method of the same name); null for what the host answers itself (`me`).
   */
  readonly method: string | null;
  /** The session statuses in which it makes sense (spec part 3); any other answers 422 WRONG_STATUS. */
  readonly needs: readonly SessionStatus[];
  /**
   * Whether it only reads: it makes no event and changes nothing in any engine, so it stores
   * nothing and is served while events cannot be stored (a full data dir, a full event stream),
   * where every other op answers 507 (docs/api.md, "Storage"). Absent: it may make events, the
   * safe side, as it only waits for storage it may not need.
   */
  readonly reads?: true;
}

/** Any status with an engine behind it: what the account-independent ops need. */
const LIVE = ['STARTING', 'SCAN_QR_CODE', 'PASSKEY_REQUIRED', 'PASSKEY_CONFIRMATION_REQUIRED', 'WORKING'] as const;
/** A paired, connected account: what everything that reaches the messaging service needs. */
const WORKING = ['WORKING'] as const;
/** A session showing a QR code, which can also link by a code typed on the phone. */
const SCANNING = ['SCAN_QR_CODE'] as const;

export const OPERATIONS = {
  'auth.qr': { name: 'QR codes', method: 'qr', needs: SCANNING, reads: true },
  'auth.requestCode': { name: 'pairing codes', method: 'requestCode', needs: SCANNING },
  'auth.passkey.challenge': { name: 'passkey pairing', method: 'passkeyChallenge', needs: ['PASSKEY_REQUIRED'] },
  'auth.passkey.submit': { name: 'passkey pairing', method: 'submitPasskey', needs: ['PASSKEY_REQUIRED'] },
  'auth.passkey.confirmation': { name: 'passkey pairing', method: 'passkeyConfirmation', needs: ['PASSKEY_CONFIRMATION_REQUIRED'] },
  'auth.passkey.confirm': { name: 'passkey pairing', method: 'confirmPasskey', needs: ['PASSKEY_CONFIRMATION_REQUIRED'] },
  me: { name: 'reading the account', method: null, needs: LIVE, reads: true },
  'account.newMessageId': { name: 'pre-generated message ids', method: 'newMessageId', needs: LIVE, reads: true },
  'account.checkNumber': { name: 'checking numbers', method: 'checkNumber', needs: WORKING, reads: true },
  'profile.get': { name: 'reading the profile', method: 'profile', needs: WORKING, reads: true },
  'profile.setName': { name: 'changing the profile', method: 'setProfileName', needs: WORKING },
  'profile.setStatus': { name: 'changing the profile', method: 'setProfileStatus', needs: WORKING },
  'profile.setPicture': { name: 'changing the profile', method: 'setProfilePicture', needs: WORKING },
  'profile.deletePicture': { name: 'changing the profile', method: 'deleteProfilePicture', needs: WORKING },
  'send.text': { name: 'sending text', method: 'sendText', needs: WORKING },
  'send.media': { name: 'sending files', method: 'sendMedia', needs: WORKING },
  'send.linkCustomPreview': { name: 'custom link previews', method: 'sendLinkCustomPreview', needs: WORKING },
  'send.buttons': { name: 'buttons', method: 'sendButtons', needs: WORKING },
  'send.list': { name: 'lists', method: 'sendList', needs: WORKING },
  'send.poll': { name: 'polls', method: 'sendPoll', needs: WORKING },
  'send.pollVote': { name: 'poll votes', method: 'sendPollVote', needs: WORKING },
  'send.location': { name: 'locations', method: 'sendLocation', needs: WORKING },
  'send.contactVcard': { name: 'contact cards', method: 'sendContactVcard', needs: WORKING },
  'send.buttonReply': { name: 'button replies', method: 'sendButtonReply', needs: WORKING },
  'message.forward': { name: 'forwarding', method: 'forwardMessage', needs: WORKING },
  'message.react': { name: 'reactions', method: 'react', needs: WORKING },
  'message.star': { name: 'starring', method: 'star', needs: WORKING },
  'chat.seen': { name: 'read receipts', method: 'sendSeen', needs: WORKING },
  'chat.typing': { name: 'typing indicators', method: 'setTyping', needs: WORKING },
  'group.create': { name: 'creating groups', method: 'createGroup', needs: WORKING },
  'group.list': { name: 'listing groups', method: 'groups', needs: WORKING, reads: true },
  'group.refresh': { name: 'listing groups', method: 'groups', needs: WORKING },
  'group.get': { name: 'reading groups', method: 'group', needs: WORKING, reads: true },
  'group.delete': { name: 'deleting groups', method: 'deleteGroup', needs: WORKING },
  'group.leave': { name: 'leaving groups', method: 'leaveGroup', needs: WORKING },
  'group.joinInfo': { name: 'group invites', method: 'groupJoinInfo', needs: WORKING, reads: true },
  'group.join': { name: 'joining groups', method: 'joinGroup', needs: WORKING },
  'group.picture': { name: 'group pictures', method: 'groupPicture', needs: WORKING, reads: true },
  'group.setPicture': { name: 'changing group pictures', method: 'setGroupPicture', needs: WORKING },
  'group.deletePicture': { name: 'changing group pictures', method: 'deleteGroupPicture', needs: WORKING },
  'group.setSubject': { name: 'changing groups', method: 'setGroupSubject', needs: WORKING },
  'group.setDescription': { name: 'changing groups', method: 'setGroupDescription', needs: WORKING },
  'group.settings': { name: 'reading groups', method: 'groupSettings', needs: WORKING, reads: true },
  'group.setSetting': { name: 'changing group settings', method: 'setGroupSetting', needs: WORKING },
  'group.inviteCode': { name: 'group invites', method: 'groupInviteCode', needs: WORKING },
  'group.revokeInvite': { name: 'revoking group invites', method: 'revokeGroupInvite', needs: WORKING },
  'group.participants': { name: 'changing group participants', method: 'updateGroupParticipants', needs: WORKING },
  'chat.delete': { name: 'deleting chats', method: 'deleteChat', needs: WORKING },
  'chat.picture': { name: 'chat pictures', method: 'chatPicture', needs: WORKING, reads: true },
  'chat.clearMessages': { name: 'clearing chats', method: 'clearMessages', needs: WORKING },
  'chat.read': { name: 'marking chats read', method: 'readChatMessages', needs: WORKING },
  'chat.archive': { name: 'archiving chats', method: 'archiveChat', needs: WORKING },
  'chat.unread': { name: 'marking chats unread', method: 'markChatUnread', needs: WORKING },
  'message.edit': { name: 'editing messages', method: 'editMessage', needs: WORKING },
  'message.delete': { name: 'deleting messages', method: 'deleteMessage', needs: WORKING },
  'message.pin': { name: 'pinning messages', method: 'pinMessage', needs: WORKING },
  'presence.set': { name: 'setting presence', method: 'setPresence', needs: WORKING },
  'presence.list': { name: 'reading presence', method: 'presences', needs: WORKING, reads: true },
  'presence.get': { name: 'reading presence', method: 'presence', needs: WORKING, reads: true },
  'presence.subscribe': { name: 'subscribing to presence', method: 'subscribePresence', needs: WORKING },
  'call.reject': { name: 'rejecting calls', method: 'rejectCall', needs: WORKING },
  'send.event': { name: 'event messages', method: 'sendEvent', needs: WORKING },
  'sandbox.simulate': { name: 'simulate', method: 'simulate', needs: LIVE },
  'contacts.list': { name: 'listing contacts', method: 'contacts', needs: WORKING, reads: true },
  'contacts.get': { name: 'reading contacts', method: 'contact', needs: WORKING, reads: true },
  'contacts.about': { name: "reading contacts' About text", method: 'contactAbout', needs: WORKING, reads: true },
  'contacts.picture': { name: "reading contacts' profile pictures", method: 'contactPicture', needs: WORKING, reads: true },
  'contacts.block': { name: 'blocking contacts', method: 'setBlocked', needs: WORKING },
  'contacts.unblock': { name: 'blocking contacts', method: 'setBlocked', needs: WORKING },
  'contacts.update': { name: 'editing contacts', method: 'updateContact', needs: WORKING },
  'labels.list': { name: 'labels', method: 'labels', needs: WORKING, reads: true },
  'labels.create': { name: 'labels', method: 'createLabel', needs: WORKING },
  'labels.update': { name: 'labels', method: 'updateLabel', needs: WORKING },
  'labels.delete': { name: 'labels', method: 'deleteLabel', needs: WORKING },
  'labels.ofChat': { name: 'labels', method: 'chatLabels', needs: WORKING, reads: true },
  'labels.setForChat': { name: 'labels', method: 'setChatLabels', needs: WORKING },
  'labels.chats': { name: 'labels', method: 'labelChats', needs: WORKING, reads: true },
  'channels.list': { name: 'listing channels', method: 'channels', needs: WORKING, reads: true },
  'channels.create': { name: 'creating channels', method: 'createChannel', needs: WORKING },
  'channels.get': { name: 'reading channels', method: 'channel', needs: WORKING, reads: true },
  'channels.delete': { name: 'deleting channels', method: 'deleteChannel', needs: WORKING },
  'channels.follow': { name: 'following channels', method: 'followChannel', needs: WORKING },
  'channels.unfollow': { name: 'following channels', method: 'unfollowChannel', needs: WORKING },
  'channels.mute': { name: 'muting channels', method: 'muteChannel', needs: WORKING },
  'channels.unmute': { name: 'muting channels', method: 'unmuteChannel', needs: WORKING },
  'channels.preview': { name: 'previewing channel posts', method: 'channelPosts', needs: WORKING },
  'channels.search': { name: 'searching the channel directory', method: 'searchChannels', needs: WORKING, reads: true },
  'status.text': { name: 'text statuses', method: 'sendTextStatus', needs: WORKING },
  'status.media': { name: 'statuses with files', method: 'sendMediaStatus', needs: WORKING },
  'status.delete': { name: 'deleting statuses', method: 'deleteStatus', needs: WORKING },
  'session.screenshot': { name: 'screenshots (a browser engine shows a page; this one has none)', method: 'screenshot', needs: LIVE, reads: true },
} as const satisfies Record<EngineOp, OperationFacts>;

/** The engine methods the ops need: engine-pod's `Engine` interface must have each (a compile-time check there). */
export type EngineMethod = NonNullable<(typeof OPERATIONS)[EngineOp]['method']>;

/** The ops and the engine method each needs (null: none), for derivations keyed by op. */
export function methodOf(op: EngineOp): EngineMethod | null {
  return OPERATIONS[op].method;
}
