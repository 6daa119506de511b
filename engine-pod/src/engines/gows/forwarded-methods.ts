import {
  ChatPictureResponse,
  ChatPresences,
  GroupInfo,
  GroupParticipant,
  Contact,
  Label,
  LabelledChat,
  Channel,
  ChannelListResult,
  ChannelMessage,
  MessageReactionPayload,
  MessageRecord,
  MyProfile,
  PasskeyChallenge,
  PasskeyConfirmationResponse,
  PollVotePayload,
  ReadChatMessagesResponse,
  SendSeenResult,
  WANumberExistResult,
} from '@switchboard/protocol';
import { z } from 'zod';
import type { Engine } from '../../engine.js';

/** The Engine methods a messaging engine may have or not (SANDBOX's `simulate` and the browser's `screenshot` are no such ones). */
export type ForwardedMethod = Exclude<
  {
    [K in keyof Engine]-?: undefined extends Engine[K] ? K : never;
  }[keyof Engine],
  'simulate' | 'screenshot'
>;

/** A method whose answer is nothing: the engine's `null` (or whatever it sent) is dropped. */
const NOTHING = z.unknown().transform(() => undefined);

/**
 * How the proxy forwards each optional Engine method over the engine RPC: the name of its one
 * argument when that is not an object (`checkNumber(phone)` sends `{ "phone": ... }`; an object
 * argument is sent as it is, none as `{}`), and the schema its result is checked against before
 * it reaches the host (engines/gows/PROTOCOL.md).
 */
export const FORWARDED_METHODS: Readonly<Record<ForwardedMethod, { readonly param?: string; readonly result: z.ZodType }>> = {
  passkeyChallenge: { result: PasskeyChallenge },
  submitPasskey: { result: NOTHING },
  passkeyConfirmation: { result: PasskeyConfirmationResponse },
  confirmPasskey: { result: NOTHING },
  newMessageId: { result: z.string() },
  checkNumber: { param: 'phone', result: WANumberExistResult },
  profile: { result: MyProfile },
  setProfileName: { param: 'name', result: NOTHING },
  setProfileStatus: { param: 'status', result: NOTHING },
  // The picture is a file: sent as { mimetype, filename, data } like every file.
  setProfilePicture: { result: NOTHING },
  deleteProfilePicture: { result: NOTHING },
  sendMedia: { result: MessageRecord },
  sendLinkCustomPreview: { result: MessageRecord },
  sendButtons: { result: MessageRecord },
  sendList: { result: MessageRecord },
  sendPoll: { result: MessageRecord },
  sendPollVote: { result: PollVotePayload },
  sendLocation: { result: MessageRecord },
  sendContactVcard: { result: MessageRecord },
  sendButtonReply: { result: MessageRecord },
  forwardMessage: { result: MessageRecord },
  react: { result: MessageReactionPayload },
  star: { result: NOTHING },
  sendSeen: { result: SendSeenResult },
  setTyping: { result: NOTHING },
  rejectCall: { result: NOTHING },
  createGroup: { result: GroupInfo },
  groups: { param: 'refresh', result: z.array(GroupInfo) },
  group: { param: 'id', result: GroupInfo },
  deleteGroup: { param: 'id', result: NOTHING },
  leaveGroup: { param: 'id', result: NOTHING },
  groupJoinInfo: { param: 'code', result: GroupInfo },
  joinGroup: { param: 'code', result: z.string() },
  groupPicture: { result: z.string().nullable() },
  setGroupPicture: { result: NOTHING },
  deleteGroupPicture: { param: 'id', result: NOTHING },
  setGroupSubject: { result: NOTHING },
  setGroupDescription: { result: NOTHING },
  groupSettings: { param: 'id', result: z.object({ infoAdminOnly: z.boolean(), messagesAdminOnly: z.boolean() }) },
  setGroupSetting: { result: NOTHING },
  groupInviteCode: { param: 'id', result: z.string() },
  revokeGroupInvite: { param: 'id', result: z.string() },
  updateGroupParticipants: { result: z.array(GroupParticipant) },
  deleteChat: { result: NOTHING },
  chatPicture: { result: ChatPictureResponse },
  clearMessages: { result: NOTHING },
  readChatMessages: { result: ReadChatMessagesResponse },
  archiveChat: { result: NOTHING },
  markChatUnread: { result: NOTHING },
  editMessage: { result: NOTHING },
  deleteMessage: { result: NOTHING },
  pinMessage: { result: NOTHING },
  sendEvent: { result: MessageRecord },
  setPresence: { result: NOTHING },
  presences: { result: z.array(ChatPresences) },
  presence: { result: ChatPresences },
  subscribePresence: { result: NOTHING },
  contacts: { result: z.array(Contact) },
  contact: { param: 'id', result: Contact },
  contactAbout: { param: 'id', result: z.string().nullable() },
  contactPicture: { param: 'id', result: z.string().nullable() },
  setBlocked: { result: NOTHING },
  updateContact: { result: NOTHING },
  labels: { result: z.array(Label) },
  createLabel: { result: Label },
  updateLabel: { result: Label },
  deleteLabel: { param: 'id', result: NOTHING },
  chatLabels: { param: 'chatId', result: z.array(Label) },
  setChatLabels: { result: NOTHING },
  labelChats: { param: 'id', result: z.array(LabelledChat) },
  channels: { param: 'role', result: z.array(Channel) },
  // A picture is a file: sent as { mimetype, filename, data } like every file.
  createChannel: { result: Channel },
  channel: { result: Channel },
  deleteChannel: { param: 'id', result: NOTHING },
  followChannel: { param: 'id', result: NOTHING },
  unfollowChannel: { param: 'id', result: NOTHING },
  muteChannel: { param: 'id', result: NOTHING },
  unmuteChannel: { param: 'id', result: NOTHING },
  channelPosts: { result: z.array(ChannelMessage) },
  searchChannels: { result: ChannelListResult },
  sendTextStatus: { result: MessageRecord },
  sendMediaStatus: { result: MessageRecord },
  deleteStatus: { result: NOTHING },
};

export function isForwarded(method: string): method is ForwardedMethod {
  return Object.hasOwn(FORWARDED_METHODS, method);
}

/** The RPC params of a call: files' bytes as base64 (Buffers anywhere in the arguments). */
export function wireParams(method: ForwardedMethod, args: readonly unknown[]): Record<string, unknown> {
  const param = FORWARDED_METHODS[method].param;
  if (args.length === 0) return {};
  const wire = toWire(args[0]);
  if (param) return { [param]: wire };
  return wire !== null && typeof wire === 'object' && !Array.isArray(wire) ? (wire as Record<string, unknown>) : {};
}

function toWire(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (Array.isArray(value)) return value.map(toWire);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toWire(item)]));
  return value;
}
