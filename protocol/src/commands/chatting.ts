import { z } from 'zod';
import { MessageTextRequest } from '../chatting.js';
import {
  ChatArgs,
  MessageForwardArgs,
  MessageReactionArgs,
  MessageStarArgs,
  SendSeenArgs,
} from '../chatting-actions.js';
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

/**
 * Engine commands of spec 4.5 (chatting). The session travels beside the command, not in it.
 * `send.*` create a message; `message.*` act on one that exists; `chat.*` act on a chat.
 */
export const chattingCommands = [
  z.object({ op: z.literal('send.text'), args: MessageTextRequest.omit({ session: true }) }),
  z.object({ op: z.literal('send.media'), args: SendMediaArgs }),
  z.object({ op: z.literal('send.linkCustomPreview'), args: MessageLinkCustomPreviewArgs }),
  z.object({ op: z.literal('send.buttons'), args: SendButtonsArgs }),
  z.object({ op: z.literal('send.list'), args: SendListArgs }),
  z.object({ op: z.literal('send.poll'), args: MessagePollArgs }),
  z.object({ op: z.literal('send.pollVote'), args: MessagePollVoteArgs }),
  z.object({ op: z.literal('send.location'), args: MessageLocationArgs }),
  z.object({ op: z.literal('send.contactVcard'), args: MessageContactVcardArgs }),
  z.object({ op: z.literal('send.buttonReply'), args: MessageButtonReplyArgs }),
  z.object({ op: z.literal('message.forward'), args: MessageForwardArgs }),
  z.object({ op: z.literal('message.react'), args: MessageReactionArgs }),
  z.object({ op: z.literal('message.star'), args: MessageStarArgs }),
  z.object({ op: z.literal('chat.seen'), args: SendSeenArgs }),
  z.object({ op: z.literal('chat.typing'), args: ChatArgs.extend({ typing: z.boolean() }) }),
] as const;

