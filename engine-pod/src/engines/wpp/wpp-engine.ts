import { ACKS, type MessageReactionPayload, type MessageRecord, type RequestCodeRequest, type SendSeenResult } from '@switchboard/protocol';
import { CommandError } from '../../command-error.js';
import type { CommandArgs, OutgoingContacts } from '../../capabilities/chatting.js';
import type { Engine, EngineContext, EngineFactory, SendTextArgs } from '../../engine.js';
import { DEFAULT_WEBJS_OPTIONS, type WebjsOptions } from '../webjs/client-factory.js';
import { type CreateWppClient, WppConnection } from './wpp-connection.js';
import { createWppClient, type WppClientLike, type WppSendOptions } from './wpp-client.js';
import { type WppMessage, wppMessageRecord, wppRecordId } from './wpp-messages.js';
import { WppChatting } from './wpp-chatting.js';

/**
 * WPP: WhatsApp Web in our chromium driven by WPPConnect (`@wppconnect-team/wppconnect`, which
 * injects wa-js into the page, unmodified). The connection's life is wpp-connection.ts; here are
 * the operations, each through WPPConnect's client. What the catalog lists for WPP (protocol's
 * engine-catalog.ts) is what it does; the rest answers 422 (docs/compatibility.md).
 */
export class WppEngine implements Engine {
  readonly name = 'WPP' as const;
  private readonly connection: WppConnection;
  private readonly chatting: WppChatting;

  constructor(
    private readonly context: EngineContext,
    options: WebjsOptions,
    createClient: CreateWppClient = createWppClient,
  ) {
    this.connection = new WppConnection(context, options, createClient);
    this.chatting = new WppChatting(
      this.connection,
      (what, error, chatId) => this.failed(what, error, chatId),
      (chatId, run) => this.send(chatId, run),
    );
  }

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

  sendText(args: SendTextArgs): Promise<MessageRecord> {
    return this.send(args.chatId, (client) => client.sendText(args.chatId, args.text, sendOptions(args)));
  }

  sendLocation(args: CommandArgs<'send.location'>): Promise<MessageRecord> {
    const options = { lat: args.latitude, lng: args.longitude, ...(args.title ? { name: args.title } : {}), ...idOption(args) };
    // WPPConnect answers a location's id and ack only: the message is read back by its id.
    return this.send(args.chatId, async (client) => {
      const { id } = await client.sendLocation(args.chatId, options);
      return client.getMessageById(id);
    });
  }

  async sendSeen(args: CommandArgs<'chat.seen'>): Promise<SendSeenResult> {
    const named = [...new Set([...(args.messageIds ?? []), ...(args.messageId ? [args.messageId] : [])])];
    await this.connection
      .workingClient()
      .sendSeen(args.chatId)
      .catch((error: unknown) => this.failed(`mark ${args.chatId} read`, error, args.chatId));
    return { chatId: args.chatId, messageIds: named };
  }

  async setTyping(args: CommandArgs<'chat.typing'>): Promise<void> {
    const client = this.connection.workingClient();
    await (args.typing ? client.startTyping(args.chatId) : client.stopTyping(args.chatId)).catch((error: unknown) =>
      this.failed(`update typing in ${args.chatId}`, error, args.chatId),
    );
  }

  // Actions on messages, and sends of contact cards and polls (wpp-chatting.ts).
  react(args: CommandArgs<'message.react'>): Promise<MessageReactionPayload> {
    return this.chatting.react(args);
  }

  editMessage(args: CommandArgs<'message.edit'>): Promise<void> {
    return this.chatting.editMessage(args);
  }

  deleteMessage(args: CommandArgs<'message.delete'>): Promise<void> {
    return this.chatting.deleteMessage(args);
  }

  forwardMessage(args: CommandArgs<'message.forward'>): Promise<MessageRecord> {
    return this.chatting.forwardMessage(args);
  }

  star(args: CommandArgs<'message.star'>): Promise<void> {
    return this.chatting.star(args);
  }

  pinMessage(args: CommandArgs<'message.pin'>): Promise<void> {
    return this.chatting.pinMessage(args);
  }

  sendContactVcard(args: OutgoingContacts): Promise<MessageRecord> {
    return this.chatting.sendContactVcard(args);
  }

  sendPoll(args: CommandArgs<'send.poll'>): Promise<MessageRecord> {
    return this.chatting.sendPoll(args);
  }

  /**
   * One send through the send gate: its `message.any` (api) once, before its acks, and the record
   * as the message was made (PENDING): WPPConnect resolves a send once the servers took it, and
   * that ack follows as `message.ack`, as for every engine.
   */
  private async send(chatId: string, run: (client: WppClientLike) => Promise<WppMessage>): Promise<MessageRecord> {
    const client = this.connection.workingClient();
    const me = this.connection.meId();
    const sentRecord = (message: WppMessage) => wppMessageRecord({ ...message, ack: ACKS.PENDING }, 'api', me);
    const sent = await this.connection.gate.send(
      () => run(client).catch((error: unknown) => this.failed(`send to ${chatId}`, error, chatId)),
      (message) => wppRecordId(message),
      (message) => this.context.emit('message.any', sentRecord(message)),
    );
    return sentRecord(sent);
  }

  /** wa-js's refusals as the command's: a chat it does not know is NOT_FOUND, the rest ENGINE_ERROR. */
  private failed(what: string, error: unknown, chatId: string): never {
    const message = describe(error);
    if (/chat_not_found|not found/i.test(message)) throw new CommandError('NOT_FOUND', `WhatsApp Web has no chat ${chatId}`, { chatId });
    throw new CommandError('ENGINE_ERROR', `WhatsApp Web could not ${what}: ${message}`);
  }
}

/** A pre-generated id, as the key of our own message in that chat (wa-js's `messageId`). */
function idOption(args: { readonly chatId: string; readonly id?: string | null }): { messageId?: string } {
  return args.id ? { messageId: `true_${args.chatId}_${args.id}` } : {};
}

/** A text send's options as wa-js takes them: a reply, a pre-generated id, the link preview. */
function sendOptions(args: SendTextArgs): WppSendOptions {
  return { linkPreview: args.linkPreview, ...(args.reply_to ? { quotedMsg: args.reply_to } : {}), ...idOption(args) };
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (error && typeof error === 'object' && 'message' in error) return String(error.message);
  return String(error);
}

/** WPP's options are the browser engines' (Chromium, profiles, a pinned web page): WEBJS's shape. */
export function wppEngineFactory(options: WebjsOptions = { ...DEFAULT_WEBJS_OPTIONS }): EngineFactory {
  return (context) => new WppEngine(context, options);
}
