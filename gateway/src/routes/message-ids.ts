import { NewMessageIDResponse, SessionPathParams } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { sessionAccess } from '../auth/access.js';
import type { RouteDeps } from './context.js';
import { typed } from './context.js';
import { sessionErrors } from './responses.js';

/** `GET /api/{session}/new-message-id`: an id to send with, known before the send. */
export async function messageIdRoutes(app: FastifyInstance, { sessions }: RouteDeps): Promise<void> {
  typed(app).get('/api/:session/new-message-id', {
    config: sessionAccess('use'),
    schema: {
      tags: ['Chatting'],
      summary: 'Generate a new message id',
      description: 'Send it as the `id` of a send to know the message id before the send answers.',
      params: SessionPathParams,
      response: { 200: NewMessageIDResponse, ...sessionErrors },
    },
    handler: async (request) => (await sessions.command(request.params.session, { op: 'account.newMessageId' })) as NewMessageIDResponse,
  });
}
