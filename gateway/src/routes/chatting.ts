import { MessageRecord, MessageTextRequest, SendTextQuery } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { sessionAccess } from '../auth/access.js';
import type { RouteDeps } from './context.js';
import { typed } from './context.js';
import { sessionErrors } from './responses.js';

const tags = ['Chatting'];

/** Spec 4.5: sending. The session is named in the body (or query), not the path. */
export async function chattingRoutes(app: FastifyInstance, { sessions }: RouteDeps): Promise<void> {
  const r = typed(app);

  r.post('/api/sendText', {
    config: sessionAccess('use', 'body.session'),
    schema: {
      tags,
      summary: 'Send a text message',
      body: MessageTextRequest,
      response: { 201: MessageRecord, ...sessionErrors },
    },
    handler: async (request, reply) => {
      const { session, ...args } = request.body;
      const sent = (await sessions.command(session, { op: 'send.text', args })) as MessageRecord;
      return reply.code(201).send(sent);
    },
  });

  r.get('/api/sendText', {
    config: sessionAccess('use', 'query.session'),
    schema: {
      tags,
      deprecated: true,
      summary: 'Send a text message (query form)',
      querystring: SendTextQuery,
      response: { 200: MessageRecord, ...sessionErrors },
    },
    handler: async (request) => {
      const { session, phone: chatId, text } = request.query;
      return (await sessions.command(session, {
        op: 'send.text',
        args: { chatId, text, linkPreview: true },
      })) as MessageRecord;
    },
  });
}
