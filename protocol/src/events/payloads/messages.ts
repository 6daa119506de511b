import { z } from 'zod';
import { MessageRecord, MessageSource } from '../../message.js';
import { rawData, unixSeconds } from './common.js';

export const ReactionContent = z
  .object({
    text: z.string().meta({ description: 'Emoji; empty string when the reaction is removed', examples: ['👍'] }),
    messageId: z.string().meta({
      description: 'Id of the message reacted to, in the message record format',
      examples: ['false_11111111111@c.us_AAAAAAAAAAAAAAAAAAAA'],
    }),
  })
  .meta({ id: 'WAReaction' });
export type ReactionContent = z.infer<typeof ReactionContent>;

/** `message.reaction`: sent for others' reactions and your own, removal included. */
export const MessageReactionPayload = z
  .object({
    id: z.string().meta({ description: 'Id of the reaction message, in the message record format' }),
    from: z.string(),
    fromMe: z.boolean(),
    participant: z.string().nullable().meta({ description: 'The reacting member in groups; null for direct chats' }),
    to: z.string(),
    timestamp: unixSeconds(),
    source: MessageSource.meta({ description: '`api` when reacted through this service, else `app` (as on message records)' }),
    reaction: ReactionContent,
  })
  .meta({ id: 'MessageReactionPayload' });
export type MessageReactionPayload = z.infer<typeof MessageReactionPayload>;

/**
 * `message.edited`. The spec names four fields and then "further message fields", which engines
 * fill unevenly, so the rest of the message record is accepted but not required.
 */
export const MessageEditedPayload = MessageRecord.partial()
  .extend({
    id: z.string().meta({
      description: 'Id of the edit action, `false_{chatId}_{actionMessageId}[_{participant}]`',
    }),
    editedMessageId: z.string().meta({
      description: 'Id of the edited message, without the chat id',
      examples: ['A06CA7BB5DD8C8F705628CDB7E3A33C9'],
    }),
    body: z.string().meta({ description: 'The new text' }),
    _data: rawData(),
  })
  .meta({ id: 'MessageEditedPayload' });
export type MessageEditedPayload = z.infer<typeof MessageEditedPayload>;

/** What engines know of a message around a revoke varies, so only its id is certain. */
const RevokedMessageSnapshot = MessageRecord.partial().extend({ id: z.string() });

/**
 * `message.revoked`, in its current form. The earlier form (no `revokedMessageId`, the revoked
 * message found by timestamp) is not emitted by this service.
 */
export const MessageRevokedPayload = z
  .object({
    after: RevokedMessageSnapshot.extend({
      id: z.string().meta({
        description: 'Id of the revoke action, `false_{chatId}_{actionMessageId}[_{participant}]`',
      }),
      _data: rawData(),
    }),
    revokedMessageId: z.string().meta({
      description: 'Id of the revoked message, without the chat id',
      examples: ['A06CA7BB5DD8C8F705628CDB7E3A33C9'],
    }),
    before: RevokedMessageSnapshot.nullable().meta({
      description: 'The message as it was; null in most cases, as engines rarely still hold it',
    }),
  })
  .meta({ id: 'MessageRevokedPayload' });
export type MessageRevokedPayload = z.infer<typeof MessageRevokedPayload>;
