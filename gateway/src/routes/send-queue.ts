import { ErrorBody, QueuedSendParams, SendQueuePage, SendQueueQuery, SessionPathParams } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { sessionAccess } from '../auth/access.js';
import { ApiError } from '../http/errors.js';
import type { SendQueues } from '@switchboard/engine-pod';
import type { SessionBackend } from '../sessions/backend.js';
import { typed } from './context.js';
import { NoBody, sessionErrors } from './responses.js';

/**
 * Paced sending (docs/api.md "Paced sending"): what waits in a session's send queue, and
 * cancelling a send before it goes. A key that may send may see and cancel its session's sends
 * (the `send` key action, for the list as for the cancel).
 */
export async function sendQueueRoutes(
  app: FastifyInstance,
  { sessions, sendQueues }: { sessions: SessionBackend; sendQueues: SendQueues },
): Promise<void> {
  typed(app).get('/api/:session/queue', {
    config: sessionAccess('use', 'params.session', 'send'),
    schema: {
      tags: ['Chatting'],
      summary: "List the session's queued sends (paced sending)",
      description: 'Oldest first, paged by `limit` and `offset`; empty when the session does not pace its sends.',
      params: SessionPathParams,
      querystring: SendQueueQuery,
      response: { 200: SendQueuePage, ...sessionErrors },
    },
    handler: async (request) => {
      const { session } = request.params;
      // A session that does not exist is a 404, as on every session route.
      await sessions.get(session, { expandApps: false });
      return sendQueues.list(session, request.query);
    },
  });

  typed(app).delete('/api/:session/queue/:id', {
    config: sessionAccess('use', 'params.session', 'send'),
    schema: {
      tags: ['Chatting'],
      summary: 'Cancel a queued send (paced sending)',
      description: 'Only a send still waiting: one being sent or already sent answers 404.',
      params: QueuedSendParams,
      response: { 204: NoBody, ...sessionErrors, 404: ErrorBody },
    },
    handler: async (request, reply) => {
      const { session, id } = request.params;
      await sessions.get(session, { expandApps: false });
      if (!(await sendQueues.cancel(session, id))) {
        throw new ApiError(404, `session '${session}' has no queued send '${id}': it was sent, is being sent, was cancelled or never queued`, {
          session,
          id,
        });
      }
      return reply.code(204).send();
    },
  });
}
