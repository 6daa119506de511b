import { type MessageStore, readHistory } from '@switchboard/engine-pod';
import { ChatMessagesParams, ChatMessagesQuery, historyQuery, MessageRecord, MessagesQuery, withMediaUrl } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { sessionAccess } from '../auth/access.js';
import type { RouteDeps } from './context.js';
import { typed } from './context.js';
import { sessionErrors } from './responses.js';

export interface HistoryRouteDeps extends RouteDeps {
  readonly messages: MessageStore;
}

const response = { 200: z.array(MessageRecord), ...sessionErrors };

/**
 * A chat's messages, from the session's message history (docs/api.md "History"): every message
 * in and out since the session was paired, on every engine, whether or not it is running.
 */
export async function historyRoutes(app: FastifyInstance, { sessions, messages }: HistoryRouteDeps): Promise<void> {
  const r = typed(app);

  const read = async (session: string, chatId: string, query: ChatMessagesQuery): Promise<MessageRecord[]> => {
    // An unknown session is a 404, not an empty history.
    await sessions.get(session, { expandApps: false });
    const records = await readHistory(messages, session, historyQuery(chatId, query));
    return records.map((record) => withMediaUrl(query.downloadMedia ? record : { ...record, media: null }));
  };

  r.get('/api/:session/chats/:chatId/messages', {
    config: sessionAccess('use'),
    schema: {
      tags: ['Chats'],
      summary: 'Messages of a chat, newest first unless sortOrder=asc',
      params: ChatMessagesParams,
      querystring: ChatMessagesQuery,
      response,
    },
    handler: async (request) => read(request.params.session, request.params.chatId, request.query),
  });

  r.get('/api/messages', {
    config: sessionAccess('use', 'query.session'),
    schema: {
      tags: ['Chatting'],
      deprecated: true,
      summary: 'Messages of a chat (use GET /api/{session}/chats/{chatId}/messages)',
      querystring: MessagesQuery,
      response,
    },
    handler: async (request) => {
      const { session, chatId, ...query } = request.query;
      return read(session, chatId, query);
    },
  });
}
