import { SessionDTO, SessionLogoutDeprecatedRequest, SessionStartDeprecatedRequest, SessionStopDeprecatedRequest } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { sessionAccess } from '../auth/access.js';
import { ApiError } from '../http/errors.js';
import type { RouteDeps } from './context.js';
import { typed } from './context.js';
import { NoBody, sessionErrors } from './responses.js';
import { webhookAddressCheck } from './webhook-addresses.js';
import { prepareWebhookSigning, showGenerated } from '../sessions/webhook-signing.js';

const tags = ['Sessions (deprecated)'];

/** Spec 4.3, the deprecated forms that name the session in the body. */
export async function deprecatedSessionRoutes(app: FastifyInstance, { sessions, outbound }: RouteDeps): Promise<void> {
  const r = typed(app);

  r.post('/api/sessions/start', {
    config: sessionAccess('manage', 'body.name'),
    schema: {
      tags,
      deprecated: true,
      summary: 'Upsert and start: creates the session if missing, else updates its config, then starts it',
      body: SessionStartDeprecatedRequest,
      response: { 201: SessionDTO, ...sessionErrors },
    },
    preHandler: webhookAddressCheck(outbound),
    handler: async (request, reply) => {
      const { config, generated } = prepareWebhookSigning(request.body.config);
      return reply.code(201).send(showGenerated(await sessions.upsertAndStart({ ...request.body, config }), generated));
    },
  });

  r.post('/api/sessions/stop', {
    config: sessionAccess('control', 'body.name'),
    schema: {
      tags,
      deprecated: true,
      summary: 'Stop a session, and log out unless logout is false; an unknown session is already stopped (201)',
      body: SessionStopDeprecatedRequest,
      response: { 201: NoBody, ...sessionErrors },
    },
    handler: async (request, reply) => {
      const { name, logout } = request.body;
      try {
        await sessions.stop(name);
        if (logout) await sessions.logout(name);
      } catch (error) {
        if (!isUnknownSession(error)) throw error;
      }
      return reply.code(201).send();
    },
  });

  r.post('/api/sessions/logout', {
    // It deletes the session: a general key limited by `actions` needs `delete`, not `setting`.
    config: sessionAccess('manage', 'body.name', 'delete'),
    schema: {
      tags,
      deprecated: true,
      summary: 'Stop, log out and delete a session; an unknown session is already gone (201)',
      body: SessionLogoutDeprecatedRequest,
      response: { 201: NoBody, ...sessionErrors },
    },
    handler: async (request, reply) => {
      await sessions.delete(request.body.name);
      return reply.code(201).send();
    },
  });
}

/**
 * The deprecated stop answers an unknown session as the deprecated logout (a delete, idempotent)
 * does, and as the peer product does: there is nothing to stop or to log out, so it is done.
 */
function isUnknownSession(error: unknown): boolean {
  return error instanceof ApiError && error.statusCode === 404;
}
