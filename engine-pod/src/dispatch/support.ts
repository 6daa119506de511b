import type { EngineCommand, EngineOp } from '@switchboard/protocol';
import type { Engine } from '../engine.js';
import { capability } from './types.js';

/**
 * The engine method each op needs; null for what every engine has (the `Engine` interface
 * requires it) or the host answers itself (`me`). protocol's ENGINE_CATALOG lists an op for an
 * engine exactly when its class has this method (engine-pod/test/engine-catalog.test.ts).
 */
export const METHOD_OF: Readonly<Record<EngineOp, keyof Engine | null>> = {
  'auth.qr': null,
  'auth.requestCode': null,
  'auth.passkey.challenge': 'passkeyChallenge',
  'auth.passkey.submit': 'submitPasskey',
  'auth.passkey.confirmation': 'passkeyConfirmation',
  'auth.passkey.confirm': 'confirmPasskey',
  me: null,
  'account.newMessageId': 'newMessageId',
  'account.checkNumber': 'checkNumber',
  'profile.get': 'profile',
  'profile.setName': 'setProfileName',
  'profile.setStatus': 'setProfileStatus',
  'profile.setPicture': 'setProfilePicture',
  'profile.deletePicture': 'deleteProfilePicture',
  'send.text': null,
  'send.media': 'sendMedia',
  'send.linkCustomPreview': 'sendLinkCustomPreview',
  'send.buttons': 'sendButtons',
  'send.list': 'sendList',
  'send.poll': 'sendPoll',
  'send.pollVote': 'sendPollVote',
  'send.location': 'sendLocation',
  'send.contactVcard': 'sendContactVcard',
  'send.buttonReply': 'sendButtonReply',
  'message.forward': 'forwardMessage',
  'message.react': 'react',
  'message.star': 'star',
  'chat.seen': 'sendSeen',
  'chat.typing': 'setTyping',
  'group.create': 'createGroup',
  'group.list': 'groups',
  'group.refresh': 'groups',
  'group.get': 'group',
  'group.delete': 'deleteGroup',
  'group.leave': 'leaveGroup',
  'group.joinInfo': 'groupJoinInfo',
  'group.join': 'joinGroup',
  'group.picture': 'groupPicture',
  'group.setPicture': 'setGroupPicture',
  'group.deletePicture': 'deleteGroupPicture',
  'group.setSubject': 'setGroupSubject',
  'group.setDescription': 'setGroupDescription',
  'group.settings': 'groupSettings',
  'group.setSetting': 'setGroupSetting',
  'group.inviteCode': 'groupInviteCode',
  'group.revokeInvite': 'revokeGroupInvite',
  'group.participants': 'updateGroupParticipants',
  'chat.delete': 'deleteChat',
  'chat.picture': 'chatPicture',
  'chat.clearMessages': 'clearMessages',
  'chat.read': 'readChatMessages',
  'chat.archive': 'archiveChat',
  'chat.unread': 'markChatUnread',
  'message.edit': 'editMessage',
  'message.delete': 'deleteMessage',
  'message.pin': 'pinMessage',
  'presence.set': 'setPresence',
  'presence.list': 'presences',
  'presence.get': 'presence',
  'presence.subscribe': 'subscribePresence',
  'call.reject': 'rejectCall',
  'send.event': 'sendEvent',
  'sandbox.simulate': 'simulate',
  'contacts.list': 'contacts',
  'contacts.get': 'contact',
  'contacts.about': 'contactAbout',
  'contacts.picture': 'contactPicture',
  'contacts.block': 'setBlocked',
  'contacts.unblock': 'setBlocked',
  'contacts.update': 'updateContact',
  'labels.list': 'labels',
  'labels.create': 'createLabel',
  'labels.update': 'updateLabel',
  'labels.delete': 'deleteLabel',
  'labels.ofChat': 'chatLabels',
  'labels.setForChat': 'setChatLabels',
  'labels.chats': 'labelChats',
  'channels.list': 'channels',
  'channels.create': 'createChannel',
  'channels.get': 'channel',
  'channels.delete': 'deleteChannel',
  'channels.follow': 'followChannel',
  'channels.unfollow': 'unfollowChannel',
  'channels.mute': 'muteChannel',
  'channels.unmute': 'unmuteChannel',
  'channels.preview': 'channelPosts',
  'channels.search': 'searchChannels',
  'status.text': 'sendTextStatus',
  'status.media': 'sendMediaStatus',
  'status.delete': 'deleteStatus',
  'session.screenshot': 'screenshot',
};

/**
 * The 422 NOT_SUPPORTED naming the engine, when it lacks what the command needs in every status.
 * The host asks before it checks the status: a NOWEB session asking for a passkey challenge
 * learns that NOWEB has no passkey pairing, not that it needs PASSKEY_REQUIRED, a status NOWEB
 * never reaches.
 */
export function requireSupport(engine: Engine, command: EngineCommand, session: string): void {
  const method = METHOD_OF[command.op];
  if (method) capability(engine, engine[method], command, session);
}
