import { z } from 'zod';
import { MessageTextRequest } from '../chatting.js';
import { ChatArgs, MessageForwardArgs, MessageReactionArgs, MessageStarArgs, SendSeenArgs } from '../chatting-actions.js';
import {
  MessageButtonReplyArgs,
  MessageContactVcardArgs,
  MessageLocationArgs,
  MessagePollArgs,
  MessagePollVoteArgs,
  SendButtonsArgs,
  SendListArgs,
} from '../chatting-interactive.js';
import { MessageLinkCustomPreviewArgs, SendMediaArgs } from '../chatting-media.js';
import { command } from './command.js';

/**
 * Engine commands of spec 4.5 (chatting). The session travels beside the command, not in it.
 * `send.*` create a message; `message.*` act on one that exists; `chat.*` act on a chat.
 */
export const chattingCommands = [
  command('send.text', MessageTextRequest.omit({ session: true })),
  command('send.media', SendMediaArgs),
  command('send.linkCustomPreview', MessageLinkCustomPreviewArgs),
  command('send.buttons', SendButtonsArgs),
  command('send.list', SendListArgs),
  command('send.poll', MessagePollArgs),
  command('send.pollVote', MessagePollVoteArgs),
  command('send.location', MessageLocationArgs),
  command('send.contactVcard', MessageContactVcardArgs),
  command('send.buttonReply', MessageButtonReplyArgs),
  command('message.forward', MessageForwardArgs),
  command('message.react', MessageReactionArgs),
  command('message.star', MessageStarArgs),
  command('chat.seen', SendSeenArgs),
  command('chat.typing', ChatArgs.extend({ typing: z.boolean() })),
] as const;
