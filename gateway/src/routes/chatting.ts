import { MessageRecord, MessageReplyRequest, MessageTextRequest, SendTextQuery } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { sessionAccess } from '../auth/access.js';
import { chattingRoute } from './chatting-route.js';
import type { RouteDeps } from './context.js';
import { typed } from './context.js';
import { sessionErrors } from './responses.js';

/**
 * Spec 4.5: text. The session is named in the body (or query), not the path. The other sends are
 * in chatting-media.ts, chatting-interactive.ts and chatting-actions.ts.
 */
export async function chattingRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  chattingRoute(app, deps, {
    method: 'POST',
    url: '/api/sendText',
    summary: 'Send a text message',
    body: MessageTextRequest,
    status: 201,
    response: MessageRecord,
    paced: true,
    command: (args) => ({ op: 'send.text', args }),
  });

  chattingRoute(app, deps, {
    method: 'POST',
    url: '/api/reply',
    summary: 'Reply to a message with a text',
    description: 'Deprecated: send `reply_to` with POST /api/sendText (or any send) instead.',
    deprecated: true,
    body: MessageReplyRequest,
    status: 201,
    response: MessageRecord,
    paced: true,
    command: (args) => ({ op: 'send.text', args }),
  });

  typed(app).get('/api/sendText', {
    config: sessionAccess('use', 'query.session', 'send'),
    schema: {
      tags: ['Chatting'],
      deprecated: true,
      summary: 'Send a text message (query form)',
      querystring: SendTextQuery,
      response: { 200: MessageRecord, ...sessionErrors },
    },
    handler: async (request) => {
      const { session, phone: chatId, text } = request.query;
      return (await deps.sessions.command(session, {
        op: 'send.text',
        args: { chatId, text, linkPreview: true },
      })) as MessageRecord;
    },
  });
}
