import type { MessageEditedPayload, MessageReactionPayload, MessageRecord, MessageRevokedPayload } from '@switchboard/protocol';
import type { CommandArgs, OutgoingContacts } from '../../capabilities/chatting.js';
import { CommandError, invalidField } from '../../command-error.js';
import { catalogRefusal } from '../../command-rules.js';
import { ApiSendGate } from '../webjs/api-send-gate.js';
import { ECHO_WAIT_MS } from '../webjs/deps.js';
import { pollVotePayload, reactionPayload } from '../webjs/message-mapping.js';
import { parseKey, recordId } from '../webjs/webjs-ids.js';
import type { WppPage } from './wpp-client.js';
import type { WppConnection } from './wpp-connection.js';
import { type WppMessage, wppMessageRecord } from './wpp-messages.js';
import { describeWppError, type WppSendOptions, wppKeyOf, wppSendOptions } from './wpp-send-options.js';

type WppKey = string | { readonly _serialized: string };

/** What WPPConnect's listeners answer: something that stops listening. */
interface WppListener {
  dispose(): void;
}

/** A reaction as WPPConnect reports it (`onReactionMessage`, wa-js's `chat.new_reaction`). */
export interface WppReaction {
  readonly id: WppKey;
  readonly msgId: WppKey;
  readonly reactionText: string;
  readonly sender: WppKey;
  readonly timestamp?: number;
}

/** A vote on a poll (`onPollResponse`): the options chosen, indexed by their local ids. */
export interface WppPollResponse {
  readonly msgId: WppKey;
  readonly sender: WppKey;
  readonly selectedOptions: readonly ({ readonly name?: string; readonly localId: number } | null)[];
  readonly timestamp?: number;
}

/** An edit (`onMessageEdit`): the edited message in its new state. */
export interface WppEdit {
  readonly id: string;
  readonly msg: WppMessage;
}

/** A revoke (`onRevokedMessage`): the revoke's own key and the revoked message's (`refId`). */
export interface WppRevoke {
  readonly id: string;
  readonly refId: string;
}

/** The slice of WPPConnect's client the message operations use. */
export interface WppChattingClient {
  readonly page: Pick<WppPage, 'evaluate'>;
  sendReactionToMessage(msgId: string, reaction: string | false): Promise<unknown>;
  editMessage(msgId: string, newText: string, options?: { linkPreview?: boolean }): Promise<WppMessage>;
  deleteMessage(chatId: string, messageId: string, onlyLocal?: boolean, deleteMediaInDevice?: boolean): Promise<boolean>;
  forwardMessage(toChatId: string, msgId: string): Promise<unknown>;
  /** How many messages changed (WPPConnect's WAPI.starMessages). */
  starMessage(messageId: string, star?: boolean): Promise<number>;
  getMessageById(id: string): Promise<WppMessage>;
  sendPollMessage(chatId: string, name: string, choices: string[], options: { selectableCount: number } & WppSendOptions): Promise<WppMessage>;
  onAnyMessage(callback: (message: WppMessage) => void): WppListener;
  onReactionMessage(callback: (reaction: WppReaction) => void): WppListener;
  onMessageEdit(callback: (edit: WppEdit) => void): WppListener;
  onPollResponse(callback: (vote: WppPollResponse) => void): WppListener;
  onRevokedMessage(callback: (revoke: WppRevoke) => void): WppListener;
}

/** WhatsApp's pin durations (protocol's PIN_DURATIONS) as wa-js names them (`PinExpiryDurationOption`). */
const PIN_OPTIONS: Readonly<Record<number, string>> = { 86_400: 'OneDay', 604_800: 'SevenDays', 2_592_000: 'ThirtyDays' };

/** wa-js's send of a message it is given whole (`WPP.chat.sendRawMessage`). */
interface WppRawGlobals {
  WPP: { chat: { sendRawMessage(chatId: string, message: object, options: WppSendOptions): Promise<{ id: string }> } };
}

/** What the engine reads of wa-js in the page to pin (`window.WPP`). */
interface WppPinGlobals {
  WPP: { chat: { pinMsg(id: string, pin: boolean, duration?: string): Promise<{ result: string }> } };
}

const serialized = (key: WppKey): string => (typeof key === 'string' ? key : key._serialized);

/**
 * Spec 4.5's actions on a message for WPP, each through WPPConnect's client (wa-js's
 * `WPP.chat.*`), and the events of what happens to messages: reactions, edits and revokes, the
 * account's own through the API included, as WEBJS reports them.
 */
export class WppChatting {
  /** Own reactions made here are `message.reaction` (api) once; the phone's are `app`. */
  private readonly reactions = new ApiSendGate();

  constructor(
    private readonly connection: WppConnection,
    private readonly engineFailed: (what: string, error: unknown, chatId: string) => never,
    /** The engine's one send: through the send gate, answered as made (wpp-engine.ts). */
    private readonly send: (chatId: string, run: (client: WppChattingClient) => Promise<WppMessage>) => Promise<MessageRecord>,
  ) {
    connection.attach((client) => {
      client.onReactionMessage((reaction) => this.reacted(client, reaction));
      client.onMessageEdit((edit) => this.edited(client, edit));
      client.onRevokedMessage((revoke) => void this.revoked(client, revoke));
      client.onPollResponse((vote) => this.voted(client, vote));
    });
  }

  /**
   * The cards as given, through wa-js's `sendRawMessage` as its `sendVCardContactMessage` sends
   * those it builds (WPPConnect's `sendContactVcard` builds them from contact ids only): one card
   * is a `vcard` message, several one `multi_vcard`.
   */
  sendContactVcard(args: OutgoingContacts): Promise<MessageRecord> {
    const cards = args.vcards.map((vcard) => ({ vcard, displayName: /^FN:(.*)$/m.exec(vcard)?.[1]?.trim() ?? '' }));
    const [card] = cards;
    const raw =
      cards.length === 1 ? { type: 'vcard', body: card!.vcard, vcardFormattedName: card!.displayName } : { type: 'multi_vcard', vcardList: cards };
    return this.send(args.chatId, async (client) => {
      const { id } = await client.page.evaluate(
        ({ chatId, message, options }) => (globalThis as unknown as WppRawGlobals).WPP.chat.sendRawMessage(chatId, message, options),
        { chatId: args.chatId, message: raw, options: wppSendOptions(args) },
      );
      return client.getMessageById(id);
    });
  }

  /** WPPConnect's `sendPollMessage`: one answer (`selectableCount` 1) or any number of them (0). */
  sendPoll(args: CommandArgs<'send.poll'>): Promise<MessageRecord> {
    const { poll } = args;
    return this.send(args.chatId, (client) =>
      client.sendPollMessage(args.chatId, poll.name, [...poll.options], { selectableCount: poll.multipleAnswers ? 0 : 1, ...wppSendOptions(args) }),
    );
  }

  /** The reaction's own key is made in the page: the op waits for WPPConnect to report it. */
  async react(args: CommandArgs<'message.react'>): Promise<MessageReactionPayload> {
    const client = this.connection.workingClient();
    const me = this.connection.meId();
    const payload = await this.reactions.send(
      async () => {
        const [reaction] = await this.echo(
          client.onReactionMessage.bind(client),
          (r: WppReaction) =>
            parseKey(serialized(r.id)).fromMe && recordId(serialized(r.msgId)) === args.messageId && r.reactionText === args.reaction,
          () => client.sendReactionToMessage(args.messageId, args.reaction || false),
          `the reaction to ${args.messageId}`,
        ).catch((error: unknown) => this.failed(`react to ${args.messageId}`, error, parseKey(args.messageId).chatId, args.messageId));
        return { ...wppReactionPayload(reaction, me), source: 'api' as const };
      },
      (sent) => sent.id,
      (sent) => this.connection.context.emit('message.reaction', sent),
    );
    return payload;
  }

  /** `message.edited` follows from WPPConnect's report of the edit, as for the phone's edits. */
  async editMessage(args: CommandArgs<'message.edit'>): Promise<void> {
    const client = this.connection.workingClient();
    await client.editMessage(args.messageId, args.text, { linkPreview: args.linkPreview }).catch((error: unknown) => {
      if (/edit_message_error|cannot edit/i.test(describeWppError(error))) {
        throw new CommandError(
          'INVALID',
          `WhatsApp Web will not edit ${args.messageId}: only your own text messages (and captions) can be edited, for 15 minutes`,
          { messageId: args.messageId },
        );
      }
      return this.failed(`edit ${args.messageId}`, error, parseKey(args.messageId).chatId, args.messageId);
    });
  }

  /**
   * Revoked for everyone. WhatsApp Web reports no revoke of its own: `message.revoked` is emitted
   * here, with the message as it was and as it is now.
   */
  async deleteMessage(args: CommandArgs<'message.delete'>): Promise<void> {
    const client = this.connection.workingClient();
    const { chatId } = parseKey(args.messageId);
    const me = this.connection.meId();
    const before = await client
      .getMessageById(args.messageId)
      .catch((error: unknown) => this.failed(`find ${args.messageId}`, error, chatId, args.messageId));
    await client
      .deleteMessage(chatId, args.messageId, false, false)
      .catch((error: unknown) => this.failed(`delete ${args.messageId}`, error, chatId, args.messageId));
    const after = await client.getMessageById(args.messageId).catch(() => null);
    const payload: MessageRevokedPayload = {
      after: wppMessageRecord(after ?? before, 'app', me),
      revokedMessageId: parseKey(args.messageId).id,
      before: wppMessageRecord(before, 'app', me),
    };
    this.connection.context.emit('message.revoked', payload);
  }

  /** WPPConnect answers whether it forwarded: the copy is the new own message it reports in that chat. */
  async forwardMessage(args: CommandArgs<'message.forward'>): Promise<MessageRecord> {
    if (args.id) throw catalogRefusal(this.connection.context.session, 'WPP', 'message.forward', 'id');
    const client = this.connection.workingClient();
    const me = this.connection.meId();
    const sent = await this.connection.gate.send(
      async () => {
        const [copy] = await this.echo(
          client.onAnyMessage.bind(client),
          (m: WppMessage) => parseKey(wppKeyOf(m)).fromMe && parseKey(wppKeyOf(m)).chatId === args.chatId && Boolean(m.isForwarded),
          () => client.forwardMessage(args.chatId, args.messageId),
          `the forwarded copy in ${args.chatId}`,
        ).catch((error: unknown) => this.failed(`forward ${args.messageId}`, error, args.chatId, args.messageId));
        return wppMessageRecord(copy, 'api', me);
      },
      (record) => record.id,
      (record) => this.connection.context.emit('message.any', record),
    );
    return sent;
  }

  /**
   * WPPConnect's client pins chats only: messages are pinned with wa-js's `WPP.chat.pinMsg` in the
   * page, for one of the durations WhatsApp offers (validated by then), named as its option.
   */
  async pinMessage(args: CommandArgs<'message.pin'>): Promise<void> {
    const client = this.connection.workingClient();
    const pinning = args.duration !== null;
    const doing = pinning ? 'pin' : 'unpin';
    const chatId = parseKey(args.messageId).chatId;
    const option = pinning ? PIN_OPTIONS[args.duration!] : undefined;
    if (pinning && !option) throw invalidField('duration', `must be one of ${Object.keys(PIN_OPTIONS).join(', ')} (seconds)`);
    const result = await client.page
      .evaluate(
        async ({ id, pin, duration }) => {
          const { WPP } = globalThis as unknown as WppPinGlobals;
          return (await (pin ? WPP.chat.pinMsg(id, true, duration) : WPP.chat.pinMsg(id, false))).result;
        },
        { id: args.messageId, pin: pinning, duration: option },
      )
      .catch((error: unknown) => {
        // Already so: done, as a second star is.
        if (/is already (pinned|unpinned)/.test(describeWppError(error))) return 'OK';
        return this.failed(`${doing} ${args.messageId}`, error, chatId, args.messageId);
      });
    if (result !== 'OK')
      throw new CommandError('ENGINE_ERROR', `WhatsApp did not ${doing} ${args.messageId} (${result})`, { messageId: args.messageId });
  }

  /**
   * WPPConnect answers how many messages changed, and 0 both for one already so and for a failure
   * (it swallows those): then the message is read back to tell which.
   */
  async star(args: CommandArgs<'message.star'>): Promise<void> {
    const client = this.connection.workingClient();
    const doing = args.star ? 'star' : 'unstar';
    const chatId = parseKey(args.messageId).chatId;
    const changed = await client
      .starMessage(args.messageId, args.star)
      .catch((error: unknown) => this.failed(`${doing} ${args.messageId}`, error, chatId, args.messageId));
    if (changed !== 0) return;
    const message = await client
      .getMessageById(args.messageId)
      .catch((error: unknown) => this.failed(`find ${args.messageId}`, error, chatId, args.messageId));
    if (Boolean(message.star) !== args.star)
      throw new CommandError('ENGINE_ERROR', `WhatsApp Web did not ${doing} ${args.messageId}`, { messageId: args.messageId });
  }

  /** wa-js's refusals: a message it has not (`msg_not_found`) is NOT_FOUND naming it; the rest as the engine's. */
  private failed(what: string, error: unknown, chatId: string, messageId: string): never {
    if (/msg_not_found|Message \S+ not found/i.test(describeWppError(error)))
      throw new CommandError('NOT_FOUND', `WhatsApp Web has no message ${messageId}`, { messageId });
    return this.engineFailed(what, error, chatId);
  }

  private reacted(client: unknown, reaction: WppReaction): void {
    if (!this.connection.isCurrent(client)) return;
    const payload = wppReactionPayload(reaction, this.connection.meId());
    const emit = () => this.connection.context.emit('message.reaction', payload);
    if (payload.fromMe) this.reactions.created(payload.id, emit);
    else emit();
  }

  private edited(client: unknown, edit: WppEdit): void {
    if (!this.connection.isCurrent(client)) return;
    const { msg } = edit;
    const record = wppMessageRecord(msg, 'app', this.connection.meId());
    const editKey = msg.latestEditMsgKey as WppKey | undefined;
    const payload: MessageEditedPayload = {
      ...record,
      id: editKey ? recordId(serialized(editKey)) : record.id,
      editedMessageId: parseKey(wppKeyOf(msg)).id,
      body: msg.body ?? (typeof msg.caption === 'string' ? msg.caption : ''),
    };
    this.connection.context.emit('message.edited', payload);
  }

  /** A vote on a poll, the account's (on the phone) or another's: `poll.vote`, as WEBJS maps it. */
  private voted(client: unknown, vote: WppPollResponse): void {
    if (!this.connection.isCurrent(client)) return;
    const selectedOptions = vote.selectedOptions.filter((option): option is NonNullable<typeof option> => option !== null);
    const payload = pollVotePayload(
      { parentMsgKey: serialized(vote.msgId), voter: serialized(vote.sender), selectedOptions, interractedAtTs: vote.timestamp ?? Date.now() },
      this.connection.meId(),
    );
    this.connection.context.emit('poll.vote', payload);
  }

  /** A revoke WhatsApp Web processed (the phone's, or a member's): the message read back as it is now. */
  private async revoked(client: unknown, revoke: WppRevoke): Promise<void> {
    if (!this.connection.isCurrent(client)) return;
    const me = this.connection.meId();
    const message = await this.connection
      .workingClient()
      .getMessageById(revoke.refId)
      .catch(() => null);
    if (!this.connection.isCurrent(client)) return;
    const now = message ? wppMessageRecord(message, 'app', me) : null;
    const payload: MessageRevokedPayload = {
      after: { ...(now ?? {}), id: recordId(revoke.id), _data: { ...revoke } },
      revokedMessageId: parseKey(revoke.refId).id,
      before: null,
    };
    this.connection.context.emit('message.revoked', payload);
  }

  /** Listens with `listen`, runs `act`, and answers the first event that `matches`, within ECHO_WAIT_MS. */
  private echo<T>(
    listen: (callback: (event: T) => void) => WppListener,
    matches: (event: T) => boolean,
    act: () => Promise<unknown>,
    what: string,
  ): Promise<[T]> {
    return new Promise<[T]>((resolve, reject) => {
      const timer = setTimeout(() => {
        listener.dispose();
        reject(new Error(`WhatsApp Web did not report ${what} within ${ECHO_WAIT_MS / 1000}s`));
      }, ECHO_WAIT_MS);
      const listener = listen((event) => {
        if (!matches(event)) return;
        clearTimeout(timer);
        listener.dispose();
        resolve([event]);
      });
      act().catch((error: unknown) => {
        clearTimeout(timer);
        listener.dispose();
        reject(error instanceof Error ? error : new Error(describeWppError(error)));
      });
    });
  }
}

/** WEBJS's mapping, from wa-js's reaction (its timestamp in seconds or, from some sources, milliseconds). */
export function wppReactionPayload(reaction: WppReaction, me: string): MessageReactionPayload {
  const timestamp = typeof reaction.timestamp === 'number' ? reaction.timestamp : Date.now() / 1000;
  return reactionPayload(
    {
      id: serialized(reaction.id),
      msgId: serialized(reaction.msgId),
      senderId: serialized(reaction.sender),
      reaction: reaction.reactionText ?? '',
      timestamp: Math.floor(timestamp > 1e12 ? timestamp / 1000 : timestamp),
    },
    me,
  );
}
