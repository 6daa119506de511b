import { createRequire } from 'node:module';
import type {
  WebjsCall,
  WebjsChannel,
  WebjsChat,
  WebjsClientInfo,
  WebjsContact,
  WebjsContentClasses,
  WebjsGroupNotification,
  WebjsLabel,
  WebjsMessage,
  WebjsPollVote,
  WebjsReaction,
} from '../../src/engines/webjs/webjs-client.js';

/*
 * whatsapp-web.js structures built by the library's own classes from data shaped as the browser
 * hands it over (src/util/Injected/Utils.js `getMessageModel`, Client.js `onReaction` ...), so
 * the engine is tested against what the library really emits.
 */

type Structure<T> = new (client: unknown, data: unknown) => T;
/** The library's classes, as `whatsapp-web.js`'s index exports them (the same modules). */
export const structures = createRequire(import.meta.url)('whatsapp-web.js/src/structures/index.js') as {
  Message: Structure<WebjsMessage>;
  Chat: Structure<WebjsChat>;
  Contact: Structure<WebjsContact>;
  Label: Structure<WebjsLabel>;
  MessageMedia: WebjsContentClasses['MessageMedia'];
  Location: WebjsContentClasses['Location'];
  Poll: WebjsContentClasses['Poll'];
  ScheduledEvent: WebjsContentClasses['ScheduledEvent'];
  Reaction: Structure<WebjsReaction>;
  Call: Structure<WebjsCall>;
  Channel: Structure<WebjsChannel>;
  GroupNotification: Structure<WebjsGroupNotification>;
  PollVote: Structure<WebjsPollVote>;
  GroupChat: Structure<WebjsChat>;
  ClientInfo: Structure<WebjsClientInfo>;
};

/** A Wid as the browser serializes it. */
export function widOf(id: string) {
  const [user = '', server = ''] = id.split('@');
  return { server, user, _serialized: id };
}

export interface KeySpec {
  readonly fromMe: boolean;
  readonly chatId: string;
  readonly id: string;
  readonly participant?: string;
}

export function keyOf({ fromMe, chatId, id, participant }: KeySpec) {
  return {
    fromMe,
    remote: chatId,
    id,
    ...(participant ? { participant: widOf(participant) } : {}),
    _serialized: `${fromMe}_${chatId}_${id}${participant ? `_${participant}` : ''}`,
  };
}

export const ME = '15550000000@c.us';

export function clientInfo(client: unknown, id = ME, pushname = 'Switchboard Test'): WebjsClientInfo {
  return new structures.ClientInfo(client, { pushname, wid: widOf(id), platform: 'android' });
}

export interface MessageSpec extends KeySpec {
  readonly body?: string;
  readonly ack?: number;
  readonly t?: number;
  readonly type?: string;
  readonly extra?: Record<string, unknown>;
}

/** The raw model `getMessageModel` serializes, as `message`, `message_create` ... carry it. */
export function messageData(spec: MessageSpec): Record<string, unknown> {
  const { fromMe, chatId, participant } = spec;
  const sender = fromMe ? ME : (participant ?? chatId);
  return {
    id: keyOf(spec),
    body: spec.body ?? 'hello',
    type: spec.type ?? 'chat',
    t: spec.t ?? 1_795_265_504,
    notifyName: 'Someone',
    from: widOf(fromMe ? ME : chatId),
    to: widOf(fromMe ? chatId : ME),
    ...(chatId.endsWith('@g.us') ? { author: widOf(sender) } : {}),
    ack: spec.ack ?? 1,
    isNewMsg: true,
    star: false,
    broadcast: false,
    mentionedJidList: [],
    links: [],
    ...spec.extra,
  };
}

export function message(client: unknown, spec: MessageSpec): WebjsMessage {
  return new structures.Message(client, messageData(spec));
}

export function reaction(client: unknown, key: KeySpec, parent: KeySpec, text: string, sender: string): WebjsReaction {
  return new structures.Reaction(client, {
    msgKey: keyOf(key),
    parentMsgKey: keyOf(parent),
    senderUserJid: sender,
    reactionText: text,
    timestamp: 1_795_265_510,
    orphan: 0,
    read: false,
    ack: 1,
  });
}

export function call(client: unknown, from: string, outgoing = false): WebjsCall {
  return new structures.Call(client, callData(from, outgoing));
}

/** A call offer as the browser's call model serializes it. */
export function callData(from: string, outgoing = false): Record<string, unknown> {
  return {
    id: 'CALL5F1C0A2B9D',
    peerJid: from,
    offerTime: 1_795_265_520,
    isVideo: true,
    isGroup: false,
    outgoing,
    canHandleLocally: false,
    webClientShouldHandle: false,
    participants: [],
  };
}

/** A gp2 message: `subtype` is the change, `recipients` the members it is about. */
export function groupNotification(
  client: unknown,
  groupId: string,
  subtype: string,
  recipients: readonly string[],
  extra: Record<string, unknown> = {},
): WebjsGroupNotification {
  return new structures.GroupNotification(client, {
    id: keyOf({ fromMe: false, chatId: groupId, id: `GP2${subtype.toUpperCase()}01`, participant: '15551112222@c.us' }),
    type: 'gp2',
    subtype,
    t: 1_795_265_530,
    author: widOf('15551112222@c.us'),
    recipients: recipients.map(widOf),
    body: '',
    ...extra,
  });
}

/** A direct chat as `getChatById` answers it (`ChatFactory`: a PrivateChat's data). */
export function chatData(chatId: string): Record<string, unknown> {
  return { id: widOf(chatId), formattedTitle: 'Someone', isGroup: false, t: 1_795_265_530, unreadCount: 2, archive: false, pin: 0 };
}

export function groupChatData(groupId: string): Record<string, unknown> {
  return {
    id: widOf(groupId),
    formattedTitle: 'Switchboard testers',
    isGroup: true,
    t: 1_795_265_530,
    groupMetadata: {
      id: widOf(groupId),
      subject: 'Switchboard testers',
      desc: 'Where tests meet',
      announce: false,
      restrict: true,
      memberAddMode: 'admin_add',
      membershipApprovalMode: true,
      participants: [
        { id: widOf('15551112222@c.us'), isAdmin: true, isSuperAdmin: true },
        { id: widOf(ME), isAdmin: false, isSuperAdmin: false },
      ],
    },
  };
}

export function pollVote(client: unknown, voter: string, poll: KeySpec, options: readonly string[], chosen: readonly number[]): WebjsPollVote {
  return new structures.PollVote(client, {
    sender: widOf(voter),
    selectedOptionLocalIds: chosen,
    senderTimestampMs: 1_795_265_540_000,
    parentMsgKey: keyOf(poll),
    parentMessage: messageData({
      ...poll,
      type: 'poll_creation',
      extra: { pollName: 'Lunch?', pollOptions: options.map((name, localId) => ({ name, localId })) },
    }),
  });
}

/** A contact as `WWebJS.getContactModel` serializes it; `known` false is one WhatsApp Web made up for an id. */
export function contactData(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const [user = ''] = id.split('@');
  return {
    id: widOf(id),
    userid: user,
    name: undefined,
    pushname: undefined,
    shortName: undefined,
    type: 'in',
    isMe: id === ME,
    isUser: !id.endsWith('@g.us'),
    isGroup: id.endsWith('@g.us'),
    isWAContact: false,
    isMyContact: false,
    isBlocked: false,
    isBusiness: false,
    isEnterprise: false,
    ...extra,
  };
}
