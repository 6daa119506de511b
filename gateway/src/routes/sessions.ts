import {
  SessionCreateRequest,
  SessionDTO,
  SessionGetQuery,
  SessionInfo,
  SessionListQuery,
  SessionPathParams,
  SessionUpdateRequest,
  MeInfo,
} from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { SESSIONS_LIST, sessionAccess } from '../auth/access.js';
import type { RouteDeps } from './context.js';
import { typed } from './context.js';
import { ApiError } from '../http/errors.js';
import { commonErrors, NoBody, sessionErrors } from './responses.js';
import { webhookAddressCheck } from './webhook-addresses.js';
import { prepareWebhookSigning, showGenerated } from '../sessions/webhook-signing.js';

const tags = ['Sessions'];

/** Spec 4.3: session lifecycle. */
export async function sessionRoutes(app: FastifyInstance, { sessions, outbound }: RouteDeps): Promise<void> {
  const r = typed(app);
  const checkWebhooks = webhookAddressCheck(outbound);

  r.get('/api/sessions', {
    config: SESSIONS_LIST,
    schema: {
      tags,
      summary: 'List sessions (STOPPED ones only with all=true)',
      querystring: SessionListQuery,
      response: { 200: SessionInfo.array(), ...commonErrors },
    },
    handler: async (request) => sessions.list({ all: request.query.all ?? false, expandApps: request.query.expand.includes('apps') }),
  });

  r.post('/api/sessions', {
    config: sessionAccess('manage', 'body.name'),
    schema: {
      tags,
      summary: 'Create a session, and start it unless start is false',
      body: SessionCreateRequest,
      response: { 201: SessionDTO, ...sessionErrors },
    },
    preHandler: checkWebhooks,
    handler: async (request, reply) => {
      const { config, generated } = prepareWebhookSigning(request.body.config);
      return reply.code(201).send(showGenerated(await sessions.create({ ...request.body, config }), generated));
    },
  });

  r.get('/api/sessions/:session', {
    config: sessionAccess('read'),
    schema: {
      tags,
      summary: 'Get a session',
      params: SessionPathParams,
      querystring: SessionGetQuery,
      response: { 200: SessionInfo, ...commonErrors },
    },
    handler: async (request) => sessions.get(request.params.session, { expandApps: request.query.expand.includes('apps') }),
  });

  r.put('/api/sessions/:session', {
    config: sessionAccess('manage'),
    schema: {
      tags,
      summary: 'Update a session (config, apps, engine)',
      params: SessionPathParams,
      body: SessionUpdateRequest,
      response: { 200: SessionDTO, ...sessionErrors },
    },
    preHandler: checkWebhooks,
    handler: async (request) => {
      const { config, generated } = prepareWebhookSigning(request.body.config);
      return showGenerated(await sessions.update(request.params.session, { ...request.body, config }), generated);
    },
  });

  r.delete('/api/sessions/:session', {
    config: sessionAccess('manage'),
    schema: {
      tags,
      summary: 'Stop, log out and remove a session (idempotent)',
      params: SessionPathParams,
      response: { 200: NoBody, ...commonErrors },
    },
    handler: async (request, reply) => {
      await sessions.delete(request.params.session);
      return reply.code(200).send();
    },
  });

  r.get('/api/sessions/:session/me', {
    config: sessionAccess('read'),
    schema: {
      tags,
      summary: 'The authenticated account; 422 while the session has none (not paired yet, or logged out)',
      params: SessionPathParams,
      response: { 200: MeInfo, ...sessionErrors },
    },
    handler: async (request) => {
      const name = request.params.session;
      const me = (await sessions.command(name, { op: 'me' })) as MeInfo | null;
      if (me) return me;
      // The peer document answers a MeInfo (id and pushName required) or nothing: no `null`.
      const { status } = await sessions.get(name, { expandApps: false });
      throw new ApiError(422, `session '${name}' has no account yet (it is ${status}): it has one once it is paired`, {
        session: name,
        status,
      });
    },
  });

  const actions = {
    start: { summary: 'Start a session (idempotent)', run: (name: string) => sessions.start(name) },
    stop: { summary: 'Stop a session (idempotent)', run: (name: string) => sessions.stop(name) },
    logout: { summary: 'Log out; restarts the session unless it was STOPPED', run: (name: string) => sessions.logout(name) },
    restart: { summary: 'Stop and start a session', run: (name: string) => sessions.restart(name) },
  } as const;
  for (const [action, { summary, run }] of Object.entries(actions)) {
    r.post(`/api/sessions/:session/${action}`, {
      config: sessionAccess('control'),
      schema: { tags, summary, params: SessionPathParams, response: { 201: SessionDTO, ...sessionErrors } },
      handler: async (request, reply) => reply.code(201).send(await run(request.params.session)),
    });
  }
}
