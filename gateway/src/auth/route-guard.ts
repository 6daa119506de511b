import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  preHandlerHookHandler,
  preSerializationHookHandler,
  RouteOptions,
} from 'fastify';
import { ApiError } from '../http/errors.js';
import type { SessionField } from './access.js';
import type { ApiKeyAuthenticator } from './authenticator.js';
import { authorize, type RouteRule, ruleFor } from './authorize.js';
import { type Incarnations, isStale, sessionLimit } from './principal.js';

const KEY_HEADER = 'the X-Api-Key header';

/** Every path under /api is an API operation: it needs a key and declares what the key may do. */
function isApiRoute(url: string): boolean {
  return url === '/api' || url.startsWith('/api/');
}

type Fields = Record<string, unknown> | null | undefined;

/** Reads the session a request names; one function per field, shared by every route. */
const SESSION_OF: Record<SessionField, (request: FastifyRequest) => unknown> = {
  'params.session': (request) => (request.params as Fields)?.session,
  'query.session': (request) => (request.query as Fields)?.session,
  'body.session': (request) => (request.body as Fields)?.session,
  'body.name': (request) => (request.body as Fields)?.name,
};

/**
 * Puts the key check on every /api route as it is registered (an onRoute hook on the root, so
 * it reaches routes of every plugin): `onRequest` authenticates (401, before anything is read
 * or validated, so a stranger learns nothing), `preValidation` refuses a key that may not use
 * the session the raw request names (403, so an unauthorized caller does not get validation
 * details either), `preHandler` judges the validated request, where defaults such as session
 * `default` are applied. A route under /api that declares no `config.access` is an error here,
 * at start-up.
 */
export function installRouteGuard(app: FastifyInstance, auth: ApiKeyAuthenticator): void {
  const authenticateKey: onRequestHookHandler = (request, _reply, done) => {
    try {
      const key = request.headers['x-api-key'];
      if (key === undefined && bearerToken(request) !== null) {
        throw new ApiError(
          401,
          'this route takes an API key in the X-Api-Key header; OAuth 2.0 bearer tokens only list sessions (GET /api/sessions)',
        );
      }
      request.principal = auth.authenticate(key, KEY_HEADER);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  };

  const authenticateKeyOrBearer: onRequestHookHandler = (request, reply, done) => {
    const token = request.headers['x-api-key'] === undefined ? bearerToken(request) : null;
    if (token === null) return authenticateKey.call(app, request, reply, done);
    auth.bearer(token).then((principal) => {
      request.principal = principal;
      done();
    }, done);
  };

  app.addHook('onRoute', (route) => {
    if (!isApiRoute(route.url)) return;
    const access = route.config?.access;
    if (!access) {
      throw new Error(
        `${String(route.method)} ${route.url} declares no access: every /api route needs ` +
          `config: sessionAccess(...), ADMIN_ONLY or SESSIONS_LIST (gateway/src/auth/access.ts)`,
      );
    }
    const rule = ruleFor(access, methodOf(route));
    route.onRequest = [...hooks(route.onRequest), access.kind === 'sessions.list' ? authenticateKeyOrBearer : authenticateKey];
    if (access.kind === 'session') {
      const sessionOf = SESSION_OF[access.from];
      route.preValidation = [...hooks(route.preValidation), checkRawSession(rule, sessionOf, auth.incarnations)];
      route.preHandler = [...hooks(route.preHandler), checkRequest(rule, sessionOf, auth.incarnations)];
    } else {
      // Nothing in the request changes the answer: judged before the body is validated.
      route.preValidation = [...hooks(route.preValidation), checkRequest(rule, () => undefined, auth.incarnations)];
    }
    if (access.kind === 'sessions.list') route.preSerialization = [...hooks(route.preSerialization), onlyOwnSession(auth.incarnations)];
  });
}

/** Before validation: judged only when the request names its session as a string already. */
function checkRawSession(rule: RouteRule, sessionOf: (request: FastifyRequest) => unknown, incarnations: Incarnations): preHandlerHookHandler {
  return (request, _reply, done) => {
    const principal = request.principal!;
    if (principal.kind !== 'admin') {
      const session = sessionOf(request);
      if (typeof session === 'string') {
        try {
          authorize(principal, rule, session, incarnations);
        } catch (error) {
          done(error as Error);
          return;
        }
      }
    }
    done();
  };
}

function checkRequest(rule: RouteRule, sessionOf: (request: FastifyRequest) => unknown, incarnations: Incarnations): preHandlerHookHandler {
  return (request, _reply, done) => {
    const principal = request.principal!;
    if (principal.kind !== 'admin') {
      try {
        authorize(principal, rule, sessionOf(request), incarnations);
      } catch (error) {
        done(error as Error);
        return;
      }
    }
    done();
  };
}

/**
 * The session list, as a key limited to one session sees it: that session only, and none when
 * the key was made for an earlier session of that name.
 */
function onlyOwnSession(incarnations: Incarnations): preSerializationHookHandler<unknown> {
  return (request: FastifyRequest, _reply: FastifyReply, payload: unknown, done: (error: Error | null, payload?: unknown) => void) => {
    const principal = request.principal;
    const limit = principal ? sessionLimit(principal) : null;
    if (limit === null || !Array.isArray(payload)) return done(null, payload);
    const stale = principal != null && principal.kind !== 'oauth' && principal.kind !== 'admin' && isStale(principal, limit, incarnations);
    done(
      null,
      payload.filter((session: { name?: unknown }) => !stale && session?.name === limit),
    );
  };
}

function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (header === undefined || header.length < 8 || header.slice(0, 7).toLowerCase() !== 'bearer ') return null;
  const token = header.slice(7).trim();
  return token === '' ? null : token;
}

function methodOf(route: RouteOptions): string {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  return methods.includes('GET') ? 'GET' : String(methods[0]);
}

function hooks<T>(existing: T | T[] | undefined): T[] {
  if (existing === undefined) return [];
  return Array.isArray(existing) ? existing : [existing];
}
