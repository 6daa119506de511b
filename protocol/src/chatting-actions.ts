import { z } from 'zod';
import { sendFields, withSession } from './chatting.js';
import { ChatId } from './ids.js';
import { inChat, MessageRef, OF_CHAT } from './message-ref.js';

/** Operations on chats and on messages already there (spec 4.5): forward, seen, typing, react, star. */

export const MessageForwardArgs = z.object({
  chatId: sendFields.chatId.meta({ description: 'The chat to forward to' }),
  messageId: MessageRef.meta({ description: 'The message to forward' }),
  id: sendFields.id,
});
export const MessageForwardRequest = withSession(MessageForwardArgs).meta({ id: 'MessageForwardRequest' });

export const SendSeenArgs = z
  .object({
    chatId: ChatId,
    messageId: MessageRef.nullish().meta({ description: `Deprecated: use messageIds. ${OF_CHAT}`, deprecated: true }),
    messageIds: z
      .array(MessageRef)
      .max(1000)
      .nullish()
      .meta({ description: `The messages read; none means every unread one. Each must be a message of \`chatId\`.` }),
    participant: ChatId.nullish().meta({ description: 'The sender in a group (NOWEB)' }),
  })
  .superRefine((args, ctx) => {
    if (!inChat(args.chatId, args.messageId)) ctx.addIssue({ code: 'custom', path: ['messageId'], message: 'must be a message of chatId' });
    args.messageIds?.forEach((id, index) => {
      if (!inChat(args.chatId, id)) ctx.addIssue({ code: 'custom', path: ['messageIds', index], message: 'must be a message of chatId' });
    });
  });
export const SendSeenRequest = withSession(SendSeenArgs).meta({ id: 'SendSeenRequest' });

/** What sendSeen marked as read. */
export const SendSeenResult = z.object({ chatId: z.string(), messageIds: z.array(z.string()) }).meta({ id: 'SendSeenResult' });
export type SendSeenResult = z.infer<typeof SendSeenResult>;

export const ChatArgs = z.object({ chatId: ChatId });
export const ChatRequest = withSession(ChatArgs).meta({ id: 'ChatRequest' });

const segmenter = new Intl.Segmenter();
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u;

/** One emoji (one grapheme, skin tones and joined sequences included), or '' to take it back. */
export function isReaction(text: string): boolean {
  if (text === '') return true;
  let graphemes = 0;
  for (const _ of segmenter.segment(text)) if (++graphemes > 1) return false;
  return EMOJI.test(text);
}

export const MessageReactionArgs = z.object({
  messageId: MessageRef,
  reaction: z
    .string()
    .max(64)
    .refine(isReaction, { message: 'must be one emoji, or "" to remove the reaction' })
    .meta({ description: 'One emoji (one grapheme: skin tones and joined sequences count as one), or "" to remove the reaction', examples: ['👍'] }),
});
export const MessageReactionRequest = withSession(MessageReactionArgs).meta({ id: 'MessageReactionRequest' });

export const MessageStarArgs = z
  .object({ messageId: MessageRef.meta({ description: OF_CHAT }), chatId: ChatId, star: z.boolean() })
  .refine((args) => inChat(args.chatId, args.messageId), { path: ['messageId'], message: 'must be a message of chatId' });
export const MessageStarRequest = withSession(MessageStarArgs).meta({ id: 'MessageStarRequest' });

/** The answer of operations with nothing to report (typing, star): an empty JSON object. */
export const EmptyResult = z.object({}).meta({ id: 'EmptyResult' });
