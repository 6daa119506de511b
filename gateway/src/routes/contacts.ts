import { CheckNumberQuery, CheckNumberRequest, WANumberExistResult } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { sessionAccess } from '../auth/access.js';
import type { RouteDeps } from './context.js';
import { typed } from './context.js';
import { sessionErrors } from './responses.js';

/**
 * Whether a phone number is registered with the messaging service: the spec's POST, the
 * reference's GET with the same fields as a query, and the deprecated chatting form.
 */
export async function contactRoutes(app: FastifyInstance, { sessions }: RouteDeps): Promise<void> {
  const r = typed(app);
  const response = { 200: WANumberExistResult, ...sessionErrors };
  const check = async ({ session, phone }: CheckNumberRequest) =>
    (await sessions.command(session, { op: 'account.checkNumber', args: { phone } })) as WANumberExistResult;

  r.post('/api/contacts/check-exists', {
    // A lookup changes nothing: a key limited to reading may make it.
    config: sessionAccess('use', 'body.session', 'read'),
    schema: { tags: ['Contacts'], summary: 'Check a phone number is registered', body: CheckNumberRequest, response },
    handler: async (request) => check(request.body),
  });

  r.get('/api/contacts/check-exists', {
    config: sessionAccess('use', 'query.session'),
    schema: { tags: ['Contacts'], summary: 'Check a phone number is registered (query form)', querystring: CheckNumberQuery, response },
    handler: async (request) => check(request.query),
  });

  r.get('/api/checkNumberStatus', {
    config: sessionAccess('use', 'query.session'),
    schema: {
      tags: ['Chatting'],
      deprecated: true,
      summary: 'Check number status',
      description: 'Deprecated: use POST /api/contacts/check-exists.',
      querystring: CheckNumberQuery,
      response,
    },
    handler: async (request) => check(request.query),
  });
}
