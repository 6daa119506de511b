import { ACKS, type Ack, ackName, type Media, type MeInfo, type MessageRecord, messageId, wholeSeconds } from '@switchboard/protocol';
import {
  type BaileysEventMap,
  getContentType,
  isJidStatusBroadcast,
  normalizeMessageContent,
  proto,
  type WAMessage,
  type WAMessageKey,
} from '@whiskeysockets/baileys';
import type { EngineContext } from '../../engine.js';
import { isGroupJid } from './jids.js';
import { ackFromStatus, type MessageAddress, messageBody, toMessageRecord, toSeconds } from './message-record.js';
import { PollRegistry } from './polls.js';
import { RecentMessages } from './recent-messages.js';

/** What translating messages needs from the engine. */
/** Records per `engine.event` of a history sync, so that one event stays well under a NATS message's size (as GOWS). */
const HISTORY_BATCH = 50;

export interface MessageEventsDeps {
  readonly context: EngineContext;
  /** The account, or null before pairing. */
  me(): MeInfo | null;
  /** The account's own jid as the library knows it (`<number>:<device>@s.whatsapp.net`). */
  meJid(): string;
  /** A library jid as the interface addresses it (`@c.us`, or `@lid` when no phone is known). */
  contactId(jid: string, alt?: string | null): Promise<string>;
  /** The stored file of a media message (received-media.ts); unset: `media` stays null. */
  media?(msg: WAMessage, content: proto.IMessage): Promise<Media | null>;
}

/**
 * Library messages to `message`, `message.any`, `message.reaction`, `message.edited`,
 * `message.revoked`, `poll.vote` and `message.ack`. Reactions, edits, revokes and votes are
 * messages too in the library; they are delivered only as their own events (spec 6.2).
 */
export class MessageEvents {
  /** Polls seen or sent: what reading a vote, and voting, needs. */
  readonly polls = new PollRegistry();
  /** Messages seen or sent: what forwarding, quoting, reacting and read receipts need. */
  readonly recent = new RecentMessages();

  constructor(private readonly deps: MessageEventsDeps) {}

  async upsert({ messages, type }: BaileysEventMap['messages.upsert']): Promise<void> {
    if (type !== 'notify' && type !== 'append') return;
    const me = this.deps.me();
    if (!me) return;
    for (const msg of messages) {
      const content = normalizeMessageContent(msg.message);
      if (!content || !msg.key.remoteJid || isJidStatusBroadcast(msg.key.remoteJid)) continue;
      const address = await this.address(msg.key, me);
      if (content.protocolMessage) this.protocolMessage(msg, content.protocolMessage, address, me);
      else if (content.reactionMessage) await this.reaction(msg, content.reactionMessage, address, me);
      else if (content.pollUpdateMessage) await this.vote(msg, content.pollUpdateMessage, address, me);
      else if (getContentType(content)) {
        this.remember(msg, address);
        const record = toMessageRecord(msg, address, me, 'app');
        // Downloaded before the events go out, so that their `media.url` serves the file.
        if (record.hasMedia && this.deps.media) record.media = await this.deps.media(msg, content);
        if (!record.fromMe) this.deps.context.emit('message', record);
        this.deps.context.emit('message.any', record);
      }
    }
  }

  /**
   * The phone's history sync (at pairing): each message's record, mapped as a live one is, in
   * batches of HISTORY_BATCH for `engine.event` `messaging-history.set`, which the history
   * recorders of both modes keep, so the chats lists show what the phone had before pairing. No
   * `message` / `message.any`: they are not new. Reactions, edits, revokes and votes are left out.
   */
  async history({ messages }: BaileysEventMap['messaging-history.set']): Promise<MessageRecord[][]> {
    const me = this.deps.me();
    if (!me) return [];
    const batches: MessageRecord[][] = [];
    let batch: MessageRecord[] = [];
    for (const msg of messages) {
      const content = normalizeMessageContent(msg.message);
      if (!content || !msg.key.remoteJid || isJidStatusBroadcast(msg.key.remoteJid)) continue;
      if (content.protocolMessage || content.reactionMessage || content.pollUpdateMessage || !getContentType(content)) continue;
      const address = await this.address(msg.key, me);
      this.remember(msg, address);
      batch.push(toMessageRecord(msg, address, me, 'app'));
      if (batch.length === HISTORY_BATCH) {
        batches.push(batch);
        batch = [];
      }
    }
    if (batch.length > 0) batches.push(batch);
    return batches;
  }

  /** A message the engine sent or received, for the operations that name it later. */
  remember(msg: WAMessage, address: MessageAddress): void {
    const content = normalizeMessageContent(msg.message);
    if (content) this.polls.remember(msg, content, this.deps.meJid());
    this.recent.remember(msg, address);
  }

  /** Status changes of messages (direct chats): receipts, and errors the server reports. */
  async update(updates: BaileysEventMap['messages.update']): Promise<void> {
    const me = this.deps.me();
    if (!me) return;
    for (const { key, update } of updates) {
      if (update.status === undefined || update.status === null || !key.id || !key.remoteJid) continue;
      const address = await this.address(key, me);
      this.ack(key, address, me, ackFromStatus(update.status));
    }
  }

  /** Group receipts: one per member, the group variant of `message.ack`. */
  async receipts(updates: BaileysEventMap['message-receipt.update']): Promise<void> {
    const me = this.deps.me();
    if (!me) return;
    for (const { key, receipt } of updates) {
      if (!key.id || !key.remoteJid || !receipt.userJid) continue;
      const reader = await this.deps.contactId(receipt.userJid);
      const ack: Ack = receipt.playedTimestamp ? ACKS.PLAYED : receipt.readTimestamp ? ACKS.READ : ACKS.DEVICE;
      this.deps.context.emit('message.ack', {
        id: `${messageId(!!key.fromMe, key.remoteJid, key.id)}_${reader}`,
        from: key.remoteJid,
        to: me.id,
        participant: reader,
        fromMe: !!key.fromMe,
        ack,
        ackName: ackName(ack),
      });
    }
  }

  /** `message.ack` for a message this engine knows the address of (its own sends among them). */
  ack(key: WAMessageKey, address: MessageAddress, me: MeInfo, ack: Ack): void {
    const fromMe = !!key.fromMe;
    // Own messages: the group variant (a member's receipt) comes from `receipts`.
    const participant = fromMe ? null : address.participant;
    this.deps.context.emit('message.ack', {
      id: messageId(fromMe, address.chatId, key.id ?? '', participant),
      from: address.chatId,
      to: me.id,
      participant,
      fromMe,
      ack,
      ackName: ackName(ack),
    });
  }

  async address(key: WAMessageKey, me: MeInfo): Promise<MessageAddress> {
    const chat = key.remoteJid ?? '';
    if (!isGroupJid(chat)) return { chatId: await this.deps.contactId(chat, key.remoteJidAlt), participant: null };
    const participant = key.fromMe ? me.id : await this.deps.contactId(key.participant ?? '', key.participantAlt);
    return { chatId: chat, participant };
  }

  private protocolMessage(msg: WAMessage, protocol: proto.Message.IProtocolMessage, address: MessageAddress, me: MeInfo): void {
    const targetId = protocol.key?.id;
    if (!targetId) return;
    const action = toMessageRecord(msg, address, me, 'app');
    if (protocol.type === proto.Message.ProtocolMessage.Type.MESSAGE_EDIT) {
      const body = messageBody(normalizeMessageContent(protocol.editedMessage));
      this.deps.context.emit('message.edited', { ...action, body, editedMessageId: targetId });
    } else if (protocol.type === proto.Message.ProtocolMessage.Type.REVOKE) {
      this.deps.context.emit('message.revoked', { after: action, revokedMessageId: targetId, before: null });
    }
  }

  private async reaction(msg: WAMessage, reaction: proto.Message.IReactionMessage, address: MessageAddress, me: MeInfo): Promise<void> {
    const target = reaction.key;
    const targetFromMe = !!target?.fromMe;
    const targetParticipant =
      isGroupJid(address.chatId) && !targetFromMe && target?.participant ? await this.deps.contactId(target.participant) : null;
    const record = toMessageRecord(msg, address, me, 'app');
    this.deps.context.emit('message.reaction', {
      id: record.id,
      from: record.from,
      fromMe: record.fromMe,
      participant: record.participant,
      to: record.to,
      timestamp: record.timestamp,
      source: 'app',
      reaction: { text: reaction.text ?? '', messageId: messageId(targetFromMe, address.chatId, target?.id ?? '', targetParticipant) },
    });
  }

  private async vote(msg: WAMessage, update: proto.Message.IPollUpdateMessage, address: MessageAddress, me: MeInfo): Promise<void> {
    const selected = this.polls.read(msg, update, this.deps.meJid());
    const record = toMessageRecord(msg, address, me, 'app');
    const pollKey = update.pollCreationMessageKey;
    const pollFromMe = !!pollKey?.fromMe;
    const pollParticipant = isGroupJid(address.chatId) && !pollFromMe && pollKey?.participant ? await this.deps.contactId(pollKey.participant) : null;
    const payload = {
      vote: {
        id: record.id,
        to: record.to,
        from: record.from,
        fromMe: record.fromMe,
        selectedOptions: selected ?? [],
        timestamp: update.senderTimestampMs ? wholeSeconds(toSeconds(update.senderTimestampMs)) : toSeconds(msg.messageTimestamp),
      },
      poll: {
        id: messageId(pollFromMe, address.chatId, pollKey?.id ?? '', pollParticipant),
        to: pollFromMe ? address.chatId : me.id,
        from: pollFromMe ? me.id : address.chatId,
        fromMe: pollFromMe,
      },
    };
    this.deps.context.emit(selected ? 'poll.vote' : 'poll.vote.failed', payload);
  }
}
