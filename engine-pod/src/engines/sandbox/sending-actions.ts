import {
  type MessagePoll,
  type MessageReactionPayload,
  type MessageRecord,
  messageId,
  type PollVotePayload,
  type SendSeenResult,
  wholeSeconds,
} from '@switchboard/protocol';
import type { CommandArgs } from '../../capabilities/chatting.js';
import { invalidField } from '../../command-error.js';
import { sandboxMessageId } from './codes.js';
import type { SandboxSide } from './sandbox-side.js';
import { outgoing, publish } from './sending.js';
import { isGroupChat, knownMessage, messageKey } from './simulations/addressing.js';

/*
 * Spec 4.5 operations on messages and chats that exist (docs/sandbox.md). A message they name must
 * be one the session sent or received (404 otherwise) where its content matters: forward, vote.
 */

/** A new message with the original's content, marked forwarded. */
export async function forwardMessage(side: SandboxSide, args: CommandArgs<'message.forward'>): Promise<MessageRecord> {
  side.requireWorking();
  const { record } = knownMessage(side, args.messageId);
  const { body, hasMedia, media, vCards, location } = record;
  const content = { body, hasMedia, media, vCards, ...(location ? { location } : {}) };
  return publish(side, outgoing(side, args, { ...content, _data: { ...record._data, isForwarded: true, forwardedFrom: record.id } }));
}

/** `message.reaction` from you; the reaction is a message of its own, with its own id. */
export async function react(side: SandboxSide, args: CommandArgs<'message.react'>): Promise<MessageReactionPayload> {
  const me = side.requireWorking();
  const { chatId } = messageKey(args.messageId, 'messageId');
  const payload: MessageReactionPayload = {
    id: messageId(true, chatId, sandboxMessageId()),
    from: me.id,
    fromMe: true,
    participant: isGroupChat(chatId) ? me.id : null,
    to: chatId,
    timestamp: wholeSeconds(),
    source: 'api',
    reaction: { text: args.reaction, messageId: args.messageId },
  };
  side.context.emit('message.reaction', payload);
  return payload;
}

/** Starring is kept on the phone only; no event tells of it (spec 6.2 has none). */
export async function star(side: SandboxSide, _args: CommandArgs<'message.star'>): Promise<void> {
  side.requireWorking();
}

/**
 * Read receipts go to the senders; your own session gets no event for them. The answer lists the
 * messages named (none named means the whole chat, which the sandbox does not enumerate).
 */
export async function sendSeen(side: SandboxSide, args: CommandArgs<'chat.seen'>): Promise<SendSeenResult> {
  side.requireWorking();
  const named = [...(args.messageIds ?? []), ...(args.messageId ? [args.messageId] : [])];
  return { chatId: args.chatId, messageIds: [...new Set(named)] };
}

/** Typing shows on the other side only: no event here. */
export async function setTyping(side: SandboxSide, _args: CommandArgs<'chat.typing'>): Promise<void> {
  side.requireWorking();
}

/** Your vote on a poll the session knows, checked against its options: `poll.vote` from you. */
export async function sendPollVote(side: SandboxSide, args: CommandArgs<'send.pollVote'>): Promise<PollVotePayload> {
  const me = side.requireWorking();
  const { record } = knownMessage(side, args.pollMessageId);
  const poll = record._data['type'] === 'poll_creation' ? (record._data['poll'] as MessagePoll | undefined) : undefined;
  if (!poll) throw invalidField('pollMessageId', 'is not a poll');
  const unknown = args.votes.find((vote) => !poll.options.includes(vote));
  if (unknown !== undefined) throw invalidField('votes', `"${unknown}" is not an option of the poll`);
  if (!poll.multipleAnswers && args.votes.length > 1) throw invalidField('votes', 'the poll takes one answer');
  const payload: PollVotePayload = {
    vote: {
      id: messageId(true, args.chatId, sandboxMessageId()),
      to: args.chatId,
      from: me.id,
      fromMe: true,
      selectedOptions: args.votes,
      timestamp: wholeSeconds(),
    },
    poll: { id: record.id, to: record.to, from: record.from, fromMe: record.fromMe },
  };
  side.context.emit('poll.vote', payload);
  return payload;
}
