import { deflateSync } from 'node:zlib';
import { type BinaryNode, proto } from '@whiskeysockets/baileys';
import { newId } from './connection.js';

export const nowSeconds = () => String(Math.floor(Date.now() / 1000));

/** `<id>@s.whatsapp.net` for a bare number; jids pass through. */
export function userJid(who: string): string {
  return who.includes('@') ? who : `${who}@s.whatsapp.net`;
}

export interface MessageStanzaOptions {
  /** The chat: a contact, a group, or (for the phone's own messages) the account itself. */
  readonly from: string;
  /** The sender inside a group. */
  readonly participant?: string;
  readonly id?: string;
  /** The sender's push name (`notify`). */
  readonly pushName?: string;
  /** Stanza type: `text`, `reaction`, `poll`, `media`... */
  readonly type?: string;
  /** More attributes, e.g. `sender_pn` for a LID-addressed sender. */
  readonly attrs?: Record<string, string>;
}

/**
 * A message as the server delivers it, its content in a `plaintext` child: Baileys decodes that
 * without the signal session an `enc` child needs, so the fake's contacts need no sessions.
 */
export function messageStanza(options: MessageStanzaOptions, message: proto.IMessage): BinaryNode {
  const attrs: Record<string, string> = {
    id: options.id ?? newId(),
    from: userJid(options.from),
    t: nowSeconds(),
    type: options.type ?? 'text',
    ...(options.participant ? { participant: userJid(options.participant) } : {}),
    ...(options.pushName ? { notify: options.pushName } : {}),
    ...options.attrs,
  };
  return { tag: 'message', attrs, content: [{ tag: 'plaintext', attrs: {}, content: proto.Message.encode(message).finish() }] };
}

/** A chat the phone had before pairing, and its messages (text), as its first history sync carries it. */
export interface HistoryConversation {
  /** The chat's jid (`<number>@s.whatsapp.net`, `<id>@g.us`). */
  readonly jid: string;
  /** `status`: how far an own message came (proto.WebMessageInfo.Status: SERVER_ACK 2 ... READ 4). */
  readonly messages: readonly {
    readonly id: string;
    readonly fromMe: boolean;
    readonly text: string;
    readonly timestamp: number;
    readonly status?: number;
  }[];
}

/** A HistorySync, zlib'd as the phone sends it (inline, or encrypted on the media server). */
export function historySyncBlob(
  syncType: proto.HistorySync.HistorySyncType,
  conversations: readonly HistoryConversation[],
  pushnames: proto.IPushname[] = [],
): Buffer {
  const history = proto.HistorySync.encode({
    syncType,
    conversations: conversations.map(({ jid, messages }) => ({
      id: jid,
      messages: messages.map(({ id, fromMe, text, timestamp, status }, i) => ({
        msgOrderId: i + 1,
        message: { key: { remoteJid: jid, fromMe, id }, message: { conversation: text }, messageTimestamp: timestamp, status },
      })),
    })),
    pushnames,
    progress: 100,
  }).finish();
  return deflateSync(history);
}

/** The phone's first history sync, its payload inline (no media download). */
export function historySyncMessage(pushName: string, ownJid: string, conversations: readonly HistoryConversation[] = []): proto.IMessage {
  const syncType = proto.HistorySync.HistorySyncType.INITIAL_BOOTSTRAP;
  return {
    protocolMessage: {
      type: proto.Message.ProtocolMessage.Type.HISTORY_SYNC_NOTIFICATION,
      historySyncNotification: {
        syncType,
        initialHistBootstrapInlinePayload: historySyncBlob(syncType, conversations, [{ id: ownJid, pushname: pushName }]),
        progress: 100,
        chunkOrder: 0,
      },
    },
  };
}

/** A delivery (`type` unset), `read` or `played` receipt for a message the client sent. */
export function receiptStanza(id: string, from: string, type?: 'read' | 'played', participant?: string): BinaryNode {
  return {
    tag: 'receipt',
    attrs: {
      id,
      from: userJid(from),
      t: nowSeconds(),
      ...(type ? { type } : {}),
      ...(participant ? { participant: userJid(participant) } : {}),
    },
  };
}

export type PresenceKind = 'available' | 'unavailable' | 'composing' | 'recording' | 'paused';

/** `presence` for online/offline, `chatstate` for typing, recording and paused. */
export function presenceStanza(from: string, kind: PresenceKind, options: { lastSeen?: number; participant?: string } = {}): BinaryNode {
  const who = { from: userJid(from), ...(options.participant ? { participant: userJid(options.participant) } : {}) };
  if (kind === 'available' || kind === 'unavailable') {
    return {
      tag: 'presence',
      attrs: { ...who, ...(kind === 'unavailable' ? { type: 'unavailable' } : {}), ...(options.lastSeen ? { last: String(options.lastSeen) } : {}) },
    };
  }
  const state: BinaryNode = kind === 'recording' ? { tag: 'composing', attrs: { media: 'audio' } } : { tag: kind, attrs: {} };
  return { tag: 'chatstate', attrs: who, content: [state] };
}

export type CallKind = 'offer' | 'accept' | 'reject' | 'terminate';

export function callStanza(from: string, callId: string, kind: CallKind, options: { video?: boolean; group?: string } = {}): BinaryNode {
  const creator = userJid(from);
  const media: BinaryNode[] =
    kind === 'offer'
      ? [{ tag: 'audio', attrs: { enc: 'opus', rate: '16000' } }, ...(options.video ? [{ tag: 'video', attrs: { enc: 'vp8' } }] : [])]
      : [];
  return {
    tag: 'call',
    attrs: { from: creator, id: newId(), t: nowSeconds() },
    content: [
      {
        tag: kind,
        attrs: {
          'call-id': callId,
          'call-creator': creator,
          ...(options.group ? { type: 'group', 'group-jid': options.group } : {}),
        },
        content: media.length ? media : undefined,
      },
    ],
  };
}

/** A `w:gp2` notification: one change to a group (`add`, `remove`, `promote`, `subject`...). */
export function groupNotification(group: string, author: string, change: BinaryNode): BinaryNode {
  return {
    tag: 'notification',
    attrs: { from: group, type: 'w:gp2', id: newId(), participant: userJid(author), t: nowSeconds() },
    content: [change],
  };
}

export function serverSyncNotification(collection: string, version: number): BinaryNode {
  return {
    tag: 'notification',
    attrs: { from: '@s.whatsapp.net', type: 'server_sync', id: newId(), t: nowSeconds() },
    content: [{ tag: 'collection', attrs: { name: collection, version: String(version) } }],
  };
}
