import {
  type MessageKey,
  type MessageReactionPayload,
  messageId,
  parseMessageId,
  type PollVotePayload,
  type SendSeenResult,
} from '@switchboard/protocol';
import { generateWAMessageFromContent, jidNormalizedUser, type proto, type WAMessageKey } from '@whiskeysockets/baileys';
import type { CommandArgs } from '../../capabilities/chatting.js';
import { CommandError, invalidField, reasonOf } from '../../command-error.js';
import type { EngineContext } from '../../engine.js';
import { isGroupJid, isLid, toLibraryJid } from './jids.js';
import type { MessageEvents } from './message-events.js';
import { toSeconds } from './message-record.js';
import type { Account, Outgoing } from './outgoing.js';
import { encryptPollVote } from './polls.js';

export interface MessageActionsDeps {
  readonly context: EngineContext;
  readonly messages: MessageEvents;
  readonly outgoing: Outgoing;
  account(): Account;
}

/**
 * Spec 4.5 operations on messages and chats that exist: reactions and votes (messages of their
 * own that point at another), read receipts, typing, stars. A message they name is taken from the
 * engine's recent messages when it is there (its key as the library wrote it: a LID, the sender
 * in a group); otherwise its full id says enough, except for votes, which need the poll itself.
 */
export class MessageActions {
  constructor(private readonly deps: MessageActionsDeps) {}

  /** A reaction message pointing at the message; `message.reaction` from the account once sent. */
  async react(args: CommandArgs<'message.react'>): Promise<MessageReactionPayload> {
    const account = this.deps.account();
    const target = parseMessageId(args.messageId)!;
    const jid = toLibraryJid(target.chatId);
    const content: proto.IMessage = {
      reactionMessage: { key: this.libraryKey(target), text: args.reaction, senderTimestampMs: Date.now() },
    };
    const msg = generateWAMessageFromContent(jid, content, { userJid: account.jid });
    await this.deps.outgoing.relay(account, jid, msg);
    const payload: MessageReactionPayload = {
      id: messageId(true, target.chatId, msg.key.id!),
      from: account.me.id,
      fromMe: true,
      participant: isGroupJid(jid) ? account.me.id : null,
      to: target.chatId,
      timestamp: toSeconds(msg.messageTimestamp),
      source: 'api',
      reaction: { text: args.reaction, messageId: args.messageId },
    };
    this.deps.context.emit('message.reaction', payload);
    return payload;
  }

  /**
   * A vote, encrypted with the poll's secret: only a poll this process saw or sent has one here.
   * The options must be the poll's, one of them unless it takes several; none takes the vote back.
   */
  async sendPollVote(args: CommandArgs<'send.pollVote'>): Promise<PollVotePayload> {
    const account = this.deps.account();
    const pollKey = parseMessageId(args.pollMessageId)!;
    const poll = this.deps.messages.polls.find(pollKey.id);
    if (!poll) {
      throw new CommandError(
        'NOT_FOUND',
        `session '${this.deps.context.session}' knows no poll ${args.pollMessageId}: NOWEB can vote on polls it received or sent since it started (a vote is encrypted with a secret the poll message carries)`,
        { session: this.deps.context.session, pollMessageId: args.pollMessageId },
      );
    }
    const options = new Set(poll.options.values());
    const unknown = args.votes.find((vote) => !options.has(vote));
    if (unknown !== undefined) throw invalidField('votes', `"${unknown}" is not an option of the poll`);
    if (poll.selectable > 0 && args.votes.length > poll.selectable) {
      throw invalidField('votes', poll.selectable === 1 ? 'the poll takes one answer' : `the poll takes at most ${poll.selectable} answers`);
    }
    const jid = toLibraryJid(args.chatId);
    // The voter as the chat addresses the account: its LID in a LID-addressed chat.
    const voterJid = isLid(jid) && account.lid ? jidNormalizedUser(account.lid) : jidNormalizedUser(account.jid);
    const vote = encryptPollVote(args.votes, { pollMsgId: pollKey.id, pollCreatorJid: poll.creatorJid, voterJid, secret: poll.secret });
    const content: proto.IMessage = {
      pollUpdateMessage: { pollCreationMessageKey: this.libraryKey(pollKey), vote, senderTimestampMs: Date.now() },
    };
    const msg = generateWAMessageFromContent(jid, content, { userJid: account.jid });
    await this.deps.outgoing.relay(account, jid, msg, [{ tag: 'meta', attrs: { polltype: 'vote' } }]);
    const pollFromMe = pollKey.fromMe;
    const payload: PollVotePayload = {
      vote: {
        id: messageId(true, args.chatId, msg.key.id!),
        to: args.chatId,
        from: account.me.id,
        fromMe: true,
        selectedOptions: [...args.votes],
        timestamp: toSeconds(msg.messageTimestamp),
      },
      poll: {
        id: args.pollMessageId,
        to: pollFromMe ? args.chatId : account.me.id,
        from: pollFromMe ? account.me.id : args.chatId,
        fromMe: pollFromMe,
      },
    };
    this.deps.context.emit('poll.vote', payload);
    return payload;
  }

  /**
   * Read receipts to the senders. The messages named, or (none named) every incoming message of
   * the chat this engine received and has not marked read. The account's own are skipped: there
   * is nobody to tell.
   */
  async sendSeen(args: CommandArgs<'chat.seen'>): Promise<SendSeenResult> {
    const account = this.deps.account();
    const named = [...new Set([...(args.messageIds ?? []), ...(args.messageId ? [args.messageId] : [])])];
    const recent = this.deps.messages.recent;
    const targets = named.length
      ? named.map((id) => {
          const key = parseMessageId(id)!;
          const known = recent.byKey(key);
          const participant = key.participant ?? args.participant ?? null;
          return { id, known, key: known?.msg.key ?? this.libraryKey({ ...key, participant }) };
        })
      : recent.unread(args.chatId).map((known) => ({
          id: messageId(false, known.address.chatId, known.msg.key.id!, known.address.participant),
          known,
          key: known.msg.key,
        }));
    const incoming = targets.filter((target) => !target.key.fromMe);
    if (incoming.length) {
      await account.socket.readMessages(incoming.map((target) => target.key)).catch((error: unknown) => {
        throw new CommandError('ENGINE_ERROR', `NOWEB could not send read receipts to ${args.chatId}: ${reasonOf(error)}`);
      });
    }
    for (const target of incoming) if (target.known) target.known.read = true;
    return { chatId: args.chatId, messageIds: incoming.map((target) => target.id) };
  }

  /** "typing..." (composing) or its end (paused), shown to the chat. */
  async setTyping(args: CommandArgs<'chat.typing'>): Promise<void> {
    const account = this.deps.account();
    await account.socket.sendPresenceUpdate(args.typing ? 'composing' : 'paused', toLibraryJid(args.chatId)).catch((error: unknown) => {
      throw new CommandError('ENGINE_ERROR', `NOWEB could not update typing in ${args.chatId}: ${reasonOf(error)}`);
    });
  }

  /** A star is app state: a patch the library uploads, which the account's other devices sync. */
  async star(args: CommandArgs<'message.star'>): Promise<void> {
    const account = this.deps.account();
    const key = parseMessageId(args.messageId)!;
    const known = this.deps.messages.recent.byKey(key);
    const jid = known?.msg.key.remoteJid ?? toLibraryJid(args.chatId);
    await account.socket.star(jid, [{ id: key.id, fromMe: key.fromMe }], args.star).catch((error: unknown) => {
      throw new CommandError('ENGINE_ERROR', `NOWEB could not ${args.star ? 'star' : 'unstar'} ${args.messageId}: ${reasonOf(error)}`);
    });
  }

  /** The key of a message as the library writes it: from the recent messages, else from its full id. */
  libraryKey(key: MessageKey): WAMessageKey {
    const known = this.deps.messages.recent.byKey(key)?.msg.key;
    if (known)
      return { remoteJid: known.remoteJid, fromMe: known.fromMe, id: known.id, ...(known.participant ? { participant: known.participant } : {}) };
    return {
      remoteJid: toLibraryJid(key.chatId),
      fromMe: key.fromMe,
      id: key.id,
      ...(key.participant ? { participant: toLibraryJid(key.participant) } : {}),
    };
  }
}
