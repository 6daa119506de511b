import { CommandError } from '@switchboard/engine-pod';
import { PasskeyAssertionRequest, SessionPathParams } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { sessionAccess } from '../auth/access.js';
import type { RouteDeps } from './context.js';
import { typed } from './context.js';
import { sessionErrors } from './responses.js';

const tags = ['Pairing'];

/**
 * Spec 4.1, passkey pairing. No engine of this build supports it yet, so each operation answers
 * 422 naming the session's engine (after the usual 404 for an unknown session and 400 for a bad
 * assertion), rather than a 404 for a route that the interface has.
 */
export async function passkeyRoutes(app: FastifyInstance, { sessions }: RouteDeps): Promise<void> {
  const r = typed(app);
  const unsupported = async (session: string): Promise<never> => {
    const { engine } = await sessions.get(session, { expandApps: false });
    throw new CommandError('NOT_SUPPORTED', `passkey pairing is not supported by engine ${engine} (session '${session}')`, {
      session,
      engine,
    });
  };

  r.get('/api/:session/auth/passkey/challenge', {
    config: sessionAccess('control'),
    schema: { tags, summary: 'The WebAuthn challenge, while PASSKEY_REQUIRED', params: SessionPathParams, response: sessionErrors },
    handler: async (request) => unsupported(request.params.session),
  });
  r.post('/api/:session/auth/passkey', {
    config: sessionAccess('control'),
    schema: {
      tags,
      summary: 'Finish pairing with a passkey assertion',
      params: SessionPathParams,
      body: PasskeyAssertionRequest,
      response: sessionErrors,
    },
    handler: async (request) => unsupported(request.params.session),
  });
  r.get('/api/:session/auth/passkey/confirmation', {
    config: sessionAccess('control'),
    schema: { tags, summary: 'The confirmation code, while PASSKEY_CONFIRMATION_REQUIRED', params: SessionPathParams, response: sessionErrors },
    handler: async (request) => unsupported(request.params.session),
  });
  r.post('/api/:session/auth/passkey/confirm', {
    config: sessionAccess('control'),
    schema: { tags, summary: 'Confirm the code (manual-code case only)', params: SessionPathParams, response: sessionErrors },
    handler: async (request) => unsupported(request.params.session),
  });
}
