import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { ApiKeyAuthenticator } from './auth/authenticator.js';
import { installErrorHandling } from './http/errors.js';
import './http/request-principal.js';
import { installJsonBodyParser } from './http/json-body.js';
import { chattingRoutes } from './routes/chatting.js';
import { registerDocs } from './routes/docs.js';
import { pairingRoutes } from './routes/pairing.js';
import { passkeyRoutes } from './routes/passkey.js';
import { sandboxRoutes } from './routes/sandbox.js';
import { sessionRoutes } from './routes/sessions.js';
import { deprecatedSessionRoutes } from './routes/sessions-deprecated.js';
import { wsRoutes } from './routes/ws.js';
import type { SessionBackend } from './sessions/backend.js';
import type { WsHub } from './ws/hub.js';

export interface AppDeps {
  readonly sessions: SessionBackend;
  readonly auth: ApiKeyAuthenticator;
  readonly hub: WsHub;
  readonly logger: FastifyBaseLogger;
  readonly version: string;
  /** Largest accepted request body, in bytes. */
  readonly bodyLimit?: number;
}

/** Builds the HTTP app from its dependencies; main.ts and the tests both call this. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger,
    bodyLimit: deps.bodyLimit ?? 1024 * 1024,
    // One line per request would drown the events that matter; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    routerOptions: { ignoreTrailingSlash: true },
  });
  app.setValidatorCompiler(validatorCompiler);
  // Responses are built from typed values; serializing them through zod again would only cost time.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  installJsonBodyParser(app);
  installErrorHandling(app);

  await registerDocs(app, deps.version);
  // In a scope of its own: the websocket plugin wraps every route handler it can see.
  await app.register(async (scope) => {
    await scope.register(fastifyWebsocket, { options: { maxPayload: 64 * 1024 } });
    await scope.register(wsRoutes, { hub: deps.hub, auth: deps.auth });
  });

  app.get('/health', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  // Declared up front so every request object keeps one shape (V8 hidden class).
  app.decorateRequest('principal', null);
  await app.register(async (api) => {
    api.addHook('onRequest', async (request) => {
      request.principal = deps.auth.authenticate(request.headers['x-api-key'], 'the X-Api-Key header');
    });
    const routeDeps = { sessions: deps.sessions };
    for (const routes of [sessionRoutes, deprecatedSessionRoutes, pairingRoutes, passkeyRoutes, chattingRoutes, sandboxRoutes]) {
      await api.register(routes, routeDeps);
    }
  });
  return app;
}
