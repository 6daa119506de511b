import { type MessageStore, type StoredChat } from '@switchboard/engine-pod';
import {
  ChatMessagePathParams,
  ChatsListQuery,
  ChatsOverviewQuery,
  ChatsOverviewRequest,
  ChatSummary,
  MessageRecord,
  parseMessageId,
  QueryBoolean,
  SessionPathParams,
  withMediaUrl,
} from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { sessionAccess } from '../auth/access.js';
import { ApiError } from '../http/errors.js';
import type { RouteDeps } from './context.js';
import { typed } from './context.js';
import { sessionErrors } from './responses.js';

export interface ChatListRouteDeps extends RouteDeps {
  readonly messages: MessageStore;
}

const tags = ['Chats'];

interface ChatPage {
  readonly merge: boolean;
  readonly limit: number;
  readonly offset: number;
  readonly ids?: readonly string[] | undefined;
  readonly sortBy: 'conversationTimestamp' | 'id' | 'name';
  readonly sortOrder: 'asc' | 'desc';
}

const newer = (a: StoredChat, b: StoredChat) => (b.last.timestamp > a.last.timestamp ? b : a);

/**
 * The chats of a session as its message history has them (docs/api.md "History"): every chat
 * that has a message since the session was paired, on every engine, running or not. With
 * `merge`, a contact's `@lid` and `@c.us` chats are one, under the address its newest message used.
 */
async function chatsOf(store: MessageStore, session: string, page: ChatPage): Promise<ChatSummary[]> {
  let chats = await store.chats(session);
  if (page.merge) {
    const byId = new Map(chats.map((chat) => [chat.chatId, chat]));
    const merged: StoredChat[] = [];
    for (const chat of chats) {
      if (!byId.has(chat.chatId)) continue;
      const alias = await store.aliasOf(session, chat.chatId);
      const other = alias ? byId.get(alias) : undefined;
      if (!other) {
        merged.push(chat);
        continue;
      }
      byId.delete(other.chatId);
      const last = newer(chat, other);
      merged.push({ chatId: last.chatId, last: last.last, messages: chat.messages + other.messages });
    }
    chats = merged;
  }
  if (page.ids) {
    const wanted = new Set(page.ids);
    chats = chats.filter((chat) => wanted.has(chat.chatId));
  }
  const direction = page.sortOrder === 'asc' ? 1 : -1;
  const order = (a: StoredChat, b: StoredChat) =>
    page.sortBy === 'conversationTimestamp'
      ? a.last.timestamp - b.last.timestamp || a.chatId.localeCompare(b.chatId)
      : a.chatId.localeCompare(b.chatId);
  return chats
    .sort((a, b) => direction * order(a, b))
    .slice(page.offset, page.offset + page.limit)
    .map(({ chatId, last, messages }) => ({
      id: chatId,
      name: null,
      picture: null,
      lastMessage: withMediaUrl(last),
      _chat: { id: chatId, conversationTimestamp: Math.trunc(last.timestamp), messages },
    }));
}

const GetMessageQuery = z.object({
  downloadMedia: QueryBoolean.default(true).meta({ description: 'Default true; false: `media` is null' }),
  merge: QueryBoolean.default(true).meta({ description: 'Default true: look under the chat’s other address (`@lid` / `@c.us`) too' }),
});

/** The chats list and overview, and one message, from the session's message history. */
export async function chatListRoutes(app: FastifyInstance, { sessions, messages }: ChatListRouteDeps): Promise<void> {
  const r = typed(app);
  // An unknown session is a 404, not an empty list.
  const known = async (session: string) => sessions.get(session, { expandApps: false });

  r.get('/api/:session/chats', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'The chats, newest conversation first unless sorted otherwise',
      description: 'Every chat with a message in the session’s history.',
      params: SessionPathParams,
      querystring: ChatsListQuery,
      response: { 200: z.array(ChatSummary), ...sessionErrors },
    },
    handler: async (request) => {
      await known(request.params.session);
      return chatsOf(messages, request.params.session, request.query);
    },
  });

  const overview = { sortBy: 'conversationTimestamp', sortOrder: 'desc' } as const;

  r.get('/api/:session/chats/overview', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'Chats overview: id, name, picture and last message of each, newest first',
      params: SessionPathParams,
      querystring: ChatsOverviewQuery,
      response: { 200: z.array(ChatSummary), ...sessionErrors },
    },
    handler: async (request) => {
      await known(request.params.session);
      return chatsOf(messages, request.params.session, { ...request.query, ...overview });
    },
  });

  r.post('/api/:session/chats/overview', {
    config: sessionAccess('use', 'params.session', 'read'),
    schema: {
      tags,
      summary: 'Chats overview, with the chat ids in the body (for more than a URL holds)',
      params: SessionPathParams,
      body: ChatsOverviewRequest,
      response: { 201: z.array(ChatSummary), ...sessionErrors },
    },
    handler: async (request, reply) => {
      await known(request.params.session);
      const { pagination, filter } = request.body;
      return reply.code(201).send(await chatsOf(messages, request.params.session, { ...pagination, ids: filter?.ids, ...overview }));
    },
  });

  r.get('/api/:session/chats/:chatId/messages/:messageId', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'One message of the chat',
      params: ChatMessagePathParams,
      querystring: GetMessageQuery,
      response: { 200: MessageRecord, ...sessionErrors },
    },
    handler: async (request) => {
      const { session, chatId, messageId } = request.params;
      await known(session);
      const id = parseMessageId(messageId)!.id;
      const alias = request.query.merge ? await messages.aliasOf(session, chatId) : null;
      for (const chat of alias ? [chatId, alias] : [chatId]) {
        const record = await messages.get(session, chat, id);
        if (record) return withMediaUrl(request.query.downloadMedia ? record : { ...record, media: null });
      }
      throw new ApiError(404, `session '${session}' has no message ${messageId} in its history`, { session, messageId });
    },
  });
}
