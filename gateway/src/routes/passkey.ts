import { PasskeyAssertionRequest, PasskeyChallenge, PasskeyConfirmationResponse, SessionPathParams } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { sessionAccess } from '../auth/access.js';
import type { RouteDeps } from './context.js';
import { typed } from './context.js';
import { NoBody, sessionErrors } from './responses.js';

const tags = ['Pairing'];

/**
 * Spec 4.1, passkey pairing: PASSKEY_REQUIRED → challenge → assertion → WORKING, with
 * PASSKEY_CONFIRMATION_REQUIRED → confirmation code → confirm in between when the service asks
 * for it. Engines without passkey pairing answer 422 naming the engine, in any status.
 */
export async function passkeyRoutes(app: FastifyInstance, { sessions }: RouteDeps): Promise<void> {
  const r = typed(app);

  r.get('/api/:session/auth/passkey/challenge', {
    config: sessionAccess('control'),
    schema: {
      tags,
      summary: 'The WebAuthn challenge, while PASSKEY_REQUIRED',
      description: 'Pass it to navigator.credentials.get({ publicKey }) on the messaging web client origin.',
      params: SessionPathParams,
      response: { 200: PasskeyChallenge, ...sessionErrors },
    },
    handler: async (request) => (await sessions.command(request.params.session, { op: 'auth.passkey.challenge' })) as PasskeyChallenge,
  });

  r.post('/api/:session/auth/passkey', {
    config: sessionAccess('control'),
    schema: {
      tags,
      summary: 'Finish pairing with a passkey assertion',
      description: 'A 400 names each part of the assertion that does not hold (challenge, origin, signature ...).',
      params: SessionPathParams,
      body: PasskeyAssertionRequest,
      response: { 201: NoBody, ...sessionErrors },
    },
    handler: async (request, reply) => {
      await sessions.command(request.params.session, { op: 'auth.passkey.submit', args: request.body });
      return reply.code(201).send();
    },
  });

  r.get('/api/:session/auth/passkey/confirmation', {
    config: sessionAccess('control'),
    schema: {
      tags,
      summary: 'The confirmation code, while PASSKEY_CONFIRMATION_REQUIRED',
      params: SessionPathParams,
      response: { 200: PasskeyConfirmationResponse, ...sessionErrors },
    },
    handler: async (request) => (await sessions.command(request.params.session, { op: 'auth.passkey.confirmation' })) as PasskeyConfirmationResponse,
  });

  r.post('/api/:session/auth/passkey/confirm', {
    config: sessionAccess('control'),
    schema: {
      tags,
      summary: 'Confirm the code (manual-code case only)',
      params: SessionPathParams,
      response: { 201: NoBody, ...sessionErrors },
    },
    handler: async (request, reply) => {
      await sessions.command(request.params.session, { op: 'auth.passkey.confirm' });
      return reply.code(201).send();
    },
  });
}
