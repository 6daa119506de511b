import { ACKS, type Media, type MeInfo, type MessageRecord, parseMessageId } from '@switchboard/protocol';
import type makeWASocket from '@whiskeysockets/baileys';
import {
  type BinaryNode,
  generateWAMessageFromContent,
  getContentType,
  jidNormalizedUser,
  type proto,
  type WAMessage,
} from '@whiskeysockets/baileys';
import { CommandError } from '../../command-error.js';
import type { EngineContext } from '../../engine.js';
import { isGroupJid, toLibraryJid } from './jids.js';
import type { MessageEvents } from './message-events.js';
import { type MessageAddress, toMessageRecord } from './message-record.js';

type WASocket = ReturnType<typeof makeWASocket>;

/** The live connection and the account it is logged in as. */
export interface Account {
  readonly socket: WASocket;
  readonly me: MeInfo;
  /** `<number>:<device>@s.whatsapp.net`, as the library knows it. */
  readonly jid: string;
  /** `<lid>:<device>@lid`, once the server told it. */
  readonly lid: string | null;
}

export interface OutgoingDeps {
  readonly context: EngineContext;
  readonly messages: MessageEvents;
  /** The account while WORKING; WRONG_STATUS otherwise. */
  account(): Account;
}

/** Where a send goes: the fields every send request has (protocol `sendFields`). */
export interface SendTarget {
  readonly chatId: string;
  readonly id?: string | null | undefined;
  readonly reply_to?: string | null | undefined;
}

export interface SendOptions {
  /** The stored copy of a file the message carries (`media` of the record). */
  readonly media?: Media | null;
  /** Children of the stanza besides the encrypted ones (a poll's `meta`). */
  readonly additionalNodes?: BinaryNode[];
  /** A status (to `status@broadcast`): the users whose devices get its sender key, as the library takes them. */
  readonly statusJidList?: string[];
}

/** What the library's `relayMessage` takes besides the message: a status's recipients, a revoke's `edit`. */
export interface RelayExtras {
  readonly statusJidList?: string[];
  readonly additionalAttributes?: Record<string, string>;
}

/**
 * Sending a message: the library's message is built here (with our id, the quoted message) and
 * handed to `relayMessage`, which encrypts and writes it. Not `sendMessage`: that would report
 * the message again as an upsert, which the engine would take for one sent from the phone.
 */
export class Outgoing {
  constructor(private readonly deps: OutgoingDeps) {}

  /**
   * The record of spec 2.5 (PENDING, source `api`), `message.any` with it, then the stanza, and
   * SERVER once it is written (the library does not report the server's own ack), ERROR if it
   * could not be. DEVICE, READ and PLAYED follow from receipts (MessageEvents).
   */
  async send(target: SendTarget, content: proto.IMessage, options: SendOptions = {}): Promise<MessageRecord> {
    const account = this.deps.account();
    const jid = toLibraryJid(target.chatId);
    const msg = this.build(account, jid, target, content);
    const address: MessageAddress = { chatId: target.chatId, participant: isGroupJid(jid) ? account.me.id : null };
    const record: MessageRecord = { ...toMessageRecord(msg, address, account.me, 'api'), ...(options.media ? { media: options.media } : {}) };
    this.deps.messages.remember(msg, address);
    this.deps.context.emit('message.any', record);
    try {
      await this.relay(account, jid, msg, options.additionalNodes, options.statusJidList ? { statusJidList: options.statusJidList } : {});
    } catch (error) {
      this.deps.messages.ack(msg.key, address, account.me, ACKS.ERROR);
      throw error;
    }
    this.deps.messages.ack(msg.key, address, account.me, ACKS.SERVER);
    return record;
  }

  /** Writes a message that is not one of the interface's (a reaction, a vote): no record, no acks. */
  async relay(account: Account, jid: string, msg: WAMessage, additionalNodes?: BinaryNode[], extras: RelayExtras = {}): Promise<void> {
    try {
      await account.socket.relayMessage(jid, msg.message!, { messageId: msg.key.id!, ...(additionalNodes ? { additionalNodes } : {}), ...extras });
    } catch (error) {
      throw new CommandError('ENGINE_ERROR', `NOWEB could not send to ${toChatName(jid)}: ${(error as Error).message}`);
    }
  }

  /**
   * The library's message. A reply quotes the message with its content when this engine saw it
   * (the library copies it into the context), else by id and author alone.
   */
  private build(account: Account, jid: string, target: SendTarget, content: proto.IMessage): WAMessage {
    const options = { userJid: account.jid, messageId: target.id ?? undefined };
    if (!target.reply_to) return generateWAMessageFromContent(jid, content, options);
    // Plain text has no context to carry the quote: it becomes an extended text.
    const replying: proto.IMessage = content.conversation != null ? { extendedTextMessage: { text: content.conversation } } : content;
    const quoted = this.deps.messages.recent.find(target.reply_to);
    if (quoted) return generateWAMessageFromContent(jid, replying, { ...options, quoted: quoted.msg });
    return generateWAMessageFromContent(jid, withContext(replying, replyContext(target.reply_to, jid, account.jid)), options);
  }
}

/** The quoted message by its full id: the id says who wrote it; a bare id is taken as is. */
function replyContext(replyTo: string, jid: string, meJid: string): proto.IContextInfo {
  const key = parseMessageId(replyTo);
  if (!key) return { stanzaId: replyTo };
  const author = key.fromMe ? jidNormalizedUser(meJid) : toLibraryJid(key.participant ?? key.chatId);
  const chat = toLibraryJid(key.chatId);
  return { stanzaId: key.id, participant: author, ...(chat !== jid ? { remoteJid: chat } : {}) };
}

/** The content with `contextInfo` merged into its one message (as the library does for `contextInfo`). */
function withContext(content: proto.IMessage, context: proto.IContextInfo): proto.IMessage {
  const type = getContentType(content);
  const inner = type ? (content[type] as { contextInfo?: proto.IContextInfo | null } | null | undefined) : undefined;
  if (!type || !inner || typeof inner !== 'object') return content;
  return { ...content, [type]: { ...inner, contextInfo: { ...inner.contextInfo, ...context } } };
}

/** A library jid as the interface names chats, for messages. */
function toChatName(jid: string): string {
  return jid.replace('@s.whatsapp.net', '@c.us');
}
