import { AppIdParams, AppRecord, AppRequest, AppsListQuery, BUILT_APP_KINDS, type AppConfig } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { ulid } from 'ulid';
import { z } from 'zod';
import { ADMIN_ONLY, sessionAccess } from '../auth/access.js';
import { ApiError } from '../http/errors.js';
import type { SessionBackend } from '../sessions/backend.js';
import type { RouteDeps } from './context.js';
import { typed } from './context.js';
import { sessionErrors } from './responses.js';

const tags = ['Apps'];

/**
 * `/api/apps`: the peer product's CRUD over the apps of sessions (spec 2.3). An app lives in its
 * session's `apps`, so each change is a session update, checked as one is (a rejecting calls app
 * on an engine that cannot decline calls is a 422) and applied without a restart, in both modes.
 * Routes that name the session take the keys that may manage it; by id alone, only the admin.
 */
export async function appRoutes(app: FastifyInstance, { sessions }: RouteDeps): Promise<void> {
  const r = typed(app);

  r.get('/api/apps', {
    config: sessionAccess('read', 'query.session'),
    schema: { tags, summary: "A session's apps", querystring: AppsListQuery, response: { 200: z.array(AppRecord), ...sessionErrors } },
    handler: async (request) => appsOf(sessions, request.query.session),
  });

  r.post('/api/apps', {
    config: sessionAccess('manage', 'body.session'),
    schema: {
      tags,
      summary: 'Add an app to a session; its id is made up when none is given',
      body: AppRequest,
      response: { 201: AppRecord, ...sessionErrors },
    },
    handler: async (request, reply) => {
      const wanted = built(request.body);
      const id = wanted.id ?? `app_${ulid().toLowerCase()}`;
      // Taken, not by which session: that session may be one the calling key cannot see.
      if ((await allApps(sessions)).some((each) => each.id === id)) throw new ApiError(422, `app id '${id}' is taken`, { field: 'body.id', id });
      const current = await appsOf(sessions, wanted.session);
      const added: AppConfig = { app: 'calls', id, enabled: wanted.enabled, config: wanted.config };
      await sessions.update(wanted.session, { apps: [...current.map(withoutSession), added] });
      return reply.code(201).send({ ...added, session: wanted.session });
    },
  });

  r.get('/api/apps/:id', {
    config: ADMIN_ONLY,
    schema: { tags, summary: 'An app by its id', params: AppIdParams, response: { 200: AppRecord, ...sessionErrors } },
    handler: async (request) => find(await allApps(sessions), request.params.id),
  });

  r.put('/api/apps/:id', {
    config: sessionAccess('manage', 'body.session'),
    schema: { tags, summary: 'Replace an app of a session', params: AppIdParams, body: AppRequest, response: { 200: AppRecord, ...sessionErrors } },
    handler: async (request) => {
      const { id } = request.params;
      const wanted = built(request.body);
      if (wanted.id !== undefined && wanted.id !== id) {
        throw new ApiError(400, `the body names app '${wanted.id}' but the path names '${id}'`, [
          { path: 'body.id', reason: 'must match the app in the path' },
        ]);
      }
      const current = await appsOf(sessions, wanted.session);
      find(current, id);
      const replaced: AppConfig = { app: 'calls', id, enabled: wanted.enabled, config: wanted.config };
      await sessions.update(wanted.session, { apps: current.map((each) => (each.id === id ? replaced : withoutSession(each))) });
      return { ...replaced, session: wanted.session };
    },
  });

  r.delete('/api/apps/:id', {
    config: ADMIN_ONLY,
    schema: { tags, summary: 'Remove an app from its session', params: AppIdParams, response: { 200: AppRecord, ...sessionErrors } },
    handler: async (request) => {
      const removed = find(await allApps(sessions), request.params.id);
      const current = await appsOf(sessions, removed.session);
      await sessions.update(removed.session, { apps: current.filter((each) => each.id !== removed.id).map(withoutSession) });
      return removed;
    },
  });
}

/** The calls app the request asks for; any other kind is a 422 naming the kinds this build has. */
function built(request: AppRequest): Extract<AppRequest, { app: 'calls' }> {
  if (request.app === 'calls') return request;
  throw new ApiError(422, `app '${request.app}' is not in this build; it has ${BUILT_APP_KINDS.join(', ')}`, {
    field: 'body.app',
    app: request.app,
    available: BUILT_APP_KINDS,
  });
}

async function appsOf(sessions: SessionBackend, session: string): Promise<AppRecord[]> {
  const info = await sessions.get(session, { expandApps: true });
  return (info.apps ?? []).map((each) => ({ ...each, session }));
}

async function allApps(sessions: SessionBackend): Promise<AppRecord[]> {
  const all = await sessions.list({ all: true, expandApps: true });
  return all.flatMap((info) => (info.apps ?? []).map((each) => ({ ...each, session: info.name })));
}

function find(apps: readonly AppRecord[], id: string): AppRecord {
  const found = apps.find((each) => each.id === id);
  if (!found) throw new ApiError(404, `no app '${id}'`, { id });
  return found;
}

function withoutSession({ session: _session, ...app }: AppRecord): AppConfig {
  return app;
}
