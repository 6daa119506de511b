import { z } from 'zod';
import { ChatId, SessionName } from './ids.js';
import { MessageRecord, parseMessageId } from './message.js';
import { inChat, MessageRef, OF_CHAT } from './message-ref.js';
import { QueryBoolean } from './session.js';

/** `/api/{session}/chats...` (the peer product's Chats operations; the spec stops before them, 4.5). */

export const ChatPathParams = z.object({ session: SessionName, chatId: ChatId });
export type ChatPathParams = z.infer<typeof ChatPathParams>;

/** A message of the chat in the path, by its full id (spec 2.5). */
export const ChatMessagePathParams = z
  .object({ session: SessionName, chatId: ChatId, messageId: MessageRef.meta({ description: OF_CHAT }) })
  .refine((params) => inChat(params.chatId, params.messageId), { path: ['messageId'], message: 'must be a message of chatId' });
export type ChatMessagePathParams = z.infer<typeof ChatMessagePathParams>;

/**
 * The edit's path: the message by its full id, under any chat, as the peer takes it. Its n8n node
 * edits the message of a `message.any` item by default, whose `from` (the account, for its own
 * message) it sends as `chatId`. The message's own chat is the one edited (`chatOf`).
 */
export const EditMessagePathParams = z.object({
  session: SessionName,
  chatId: ChatId,
  messageId: MessageRef.meta({ description: 'The message; the chat it names is the one edited, whatever `chatId` is' }),
});

/** The chat a full message id (already checked as a `MessageRef`) names. */
export function chatOf(messageId: string): string {
  const key = parseMessageId(messageId);
  if (!key) throw new Error(`not a message id: ${messageId}`);
  return key.chatId;
}

/** The most chats one page may hold. */
export const CHATS_MAX_LIMIT = 1000;

/** As the history's `limit`: 0, which the peer's n8n node sends by default, sets no limit of its own. */
const chatsLimit = (fallback: number) =>
  z.coerce
    .number()
    .int()
    .min(0)
    .max(CHATS_MAX_LIMIT)
    .default(fallback)
    .transform((limit) => (limit === 0 ? CHATS_MAX_LIMIT : limit))
    .meta({ description: `How many chats: default ${fallback}, at most ${CHATS_MAX_LIMIT}; 0 sets no limit of its own (${CHATS_MAX_LIMIT})` });
const chatsOffset = () => z.coerce.number().int().min(0).default(0).meta({ description: 'How many chats to skip: default 0' });
const mergeChats = () =>
  QueryBoolean.default(true).meta({ description: 'Default true: a contact’s `@lid` and `@c.us` chats are one chat, under the address it last used' });

export const ChatsListQuery = z.object({
  sortBy: z
    .enum(['conversationTimestamp', 'id', 'name'])
    .default('conversationTimestamp')
    .meta({ description: '`conversationTimestamp` (the last message’s time, default), `id` or `name`' }),
  sortOrder: z.enum(['desc', 'asc']).default('desc').meta({ description: '`desc` (default) or `asc`' }),
  merge: mergeChats(),
  limit: chatsLimit(CHATS_MAX_LIMIT),
  offset: chatsOffset(),
});
export type ChatsListQuery = z.infer<typeof ChatsListQuery>;

/** A query parameter that may be given once or repeated (`ids=a&ids=b`). */
const repeated = <T extends z.ZodType>(item: T) =>
  z.preprocess((value) => (typeof value === 'string' ? [value] : value), z.array(item).max(CHATS_MAX_LIMIT));

export const ChatsOverviewQuery = z.object({
  merge: mergeChats(),
  limit: chatsLimit(20),
  offset: chatsOffset(),
  ids: repeated(ChatId)
    .optional()
    .meta({ description: 'Only these chats (repeat the parameter for each)', examples: [['111111111@c.us']] }),
});
export type ChatsOverviewQuery = z.infer<typeof ChatsOverviewQuery>;

/** `POST /api/{session}/chats/overview`: the GET's query as a body, for more ids than a URL holds. */
export const ChatsOverviewRequest = z
  .object({
    pagination: z.object({ merge: z.boolean().default(true), limit: chatsLimit(20), offset: chatsOffset() }),
    filter: z.object({ ids: z.array(ChatId).max(CHATS_MAX_LIMIT).optional() }).optional(),
  })
  .meta({ id: 'OverviewBodyRequest' });
export type ChatsOverviewRequest = z.infer<typeof ChatsOverviewRequest>;

/** One chat as the chats list and overview show it, from the session's message history. */
export const ChatSummary = z
  .object({
    id: z.string().meta({ description: 'Chat id', examples: ['11111111111@c.us'] }),
    name: z.string().nullable().meta({ description: 'The sender’s push name of the chat’s last received direct message; null when unknown' }),
    picture: z.string().nullable().meta({ description: 'Not looked up in lists: null (GET /api/{session}/chats/{chatId}/picture has it)' }),
    lastMessage: MessageRecord.meta({ description: 'The chat’s newest message' }),
    _chat: z
      .object({
        id: z.string(),
        conversationTimestamp: z.number().int(),
        messages: z.number().int().meta({ description: 'Messages in the history' }),
      })
      .meta({ description: 'What the history knows of the chat' }),
  })
  .meta({ id: 'ChatSummary' });
export type ChatSummary = z.infer<typeof ChatSummary>;

export const ChatPictureQuery = z.object({
  refresh: QueryBoolean.default(false).meta({ description: 'Ask the messaging service again rather than answer a remembered address' }),
});

export const ChatPictureArgs = z.object({ chatId: ChatId, refresh: z.boolean().default(false) });

export const ChatPictureResponse = z
  .object({ url: z.string().nullable().meta({ description: 'Where the picture can be downloaded; null when the chat has none, or hides it' }) })
  .meta({ id: 'ChatPictureResponse' });
export type ChatPictureResponse = z.infer<typeof ChatPictureResponse>;

export const ReadChatMessagesQuery = z.object({
  messages: z.coerce
    .number()
    .int()
    .min(1)
    .max(CHATS_MAX_LIMIT)
    .optional()
    .meta({ description: 'Mark at most this many of the newest unread messages' }),
  days: z.coerce.number().int().min(1).max(365).default(7).meta({ description: 'Only unread messages of the last this many days: default 7' }),
});

export const ReadChatMessagesArgs = z.object({ chatId: ChatId, messages: z.number().int().min(1).optional(), days: z.number().int().min(1) });

export const ReadChatMessagesResponse = z
  .object({ ids: z.array(z.string()).meta({ description: 'Ids of the messages marked read' }) })
  .meta({ id: 'ReadChatMessagesResponse' });
export type ReadChatMessagesResponse = z.infer<typeof ReadChatMessagesResponse>;

export const EditMessageRequest = z
  .object({
    text: z
      .string()
      .min(1)
      .max(65_536)
      .meta({ description: 'The new text', examples: ['Hello, world!'] }),
    linkPreview: z.boolean().default(true),
    linkPreviewHighQuality: z.boolean().default(false),
  })
  .meta({ id: 'EditMessageRequest' });

/** How long a pin lasts: what WhatsApp offers (24 hours, 7 days, 30 days). */
export const PIN_DURATIONS = [86_400, 604_800, 2_592_000] as const;

export const PinMessageRequest = z
  .object({
    duration: z
      .number()
      .refine((duration) => (PIN_DURATIONS as readonly number[]).includes(duration), {
        message: `must be one of ${PIN_DURATIONS.join(', ')} (seconds)`,
      })
      .meta({ description: 'Seconds: 86400 (24 hours), 604800 (7 days) or 2592000 (30 days)', examples: [86_400] }),
  })
  .meta({ id: 'PinMessageRequest' });

/** Arguments of the message operations: the chat, and its message by full id. */
const messageOfChat = { chatId: ChatId, messageId: MessageRef };

export const EditMessageArgs = z.object({ ...messageOfChat, ...EditMessageRequest.shape });
export const MessageOfChatArgs = z.object(messageOfChat);
export const PinMessageArgs = z.object({
  ...messageOfChat,
  duration: z.number().nullable().meta({ description: 'Seconds the pin lasts; null unpins' }),
});
export const ArchiveChatArgs = z.object({ chatId: ChatId, archive: z.boolean() });
