import fastifyWebsocket from '@fastify/websocket';
import { type MediaStore, type MessageStore, type SendQueues } from '@switchboard/engine-pod';
import { OutboundPolicy } from '@switchboard/kube';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { ApiKeys } from './auth/api-keys.js';
import type { ApiKeyAuthenticator } from './auth/authenticator.js';
import { installRouteGuard } from './auth/route-guard.js';
import { ConversionQueue } from './conversions/conversion-queue.js';
import { clientErrorHandler, frameworkErrors, installErrorHandling, MAX_PARAM_LENGTH } from './http/errors.js';
import './http/request-principal.js';
import { installJsonBodyParser } from './http/json-body.js';
import { mcpRoutes } from './mcp/routes.js';
import type { GatewayMetrics } from './metrics/gateway-metrics.js';
import type { ClusterBackup } from './cluster/backup/cluster-backup.js';
import { adminBackupRoutes } from './routes/admin-backup.js';
import { appRoutes } from './routes/apps.js';
import { chatListRoutes } from './routes/chat-lists.js';
import { chatRoutes } from './routes/chats.js';
import { channelRoutes } from './routes/channels.js';
import { chattingRoutes } from './routes/chatting.js';
import { chattingActionRoutes } from './routes/chatting-actions.js';
import { chattingInteractiveRoutes } from './routes/chatting-interactive.js';
import { chattingMediaRoutes } from './routes/chatting-media.js';
import { contactBookRoutes } from './routes/contact-book.js';
import { contactRoutes } from './routes/contacts.js';
import { labelRoutes } from './routes/labels.js';
import { lidRoutes } from './routes/lids.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { deliveryRoutes } from './routes/deliveries.js';
import { fileRoutes } from './routes/files.js';
import { groupRoutes } from './routes/groups.js';
import { historyRoutes } from './routes/history.js';
import { registerDocs } from './routes/docs.js';
import { keyRoutes } from './routes/keys.js';
import { messageIdRoutes } from './routes/message-ids.js';
import { metricsRoutes } from './routes/metrics.js';
import { pairingRoutes } from './routes/pairing.js';
import { passkeyRoutes } from './routes/passkey.js';
import { presenceRoutes } from './routes/presence.js';
import { profileRoutes } from './routes/profile.js';
import { sandboxRoutes } from './routes/sandbox.js';
import { healthRoutes } from './routes/health.js';
import { type ServerDeps, serverRoutes } from './routes/server.js';
import { sendQueueRoutes } from './routes/send-queue.js';
import { sessionRoutes } from './routes/sessions.js';
import { deprecatedSessionRoutes } from './routes/sessions-deprecated.js';
import { selectProtocol, wsRoutes } from './routes/ws.js';
import { storyRoutes } from './routes/stories.js';
import { mediaConvertRoutes } from './routes/media-convert.js';
import { screenshotRoutes } from './routes/screenshot.js';
import type { SessionBackend } from './sessions/backend.js';
import type { DeadDeliveries, EventLog, WebhookStates } from './webhooks/ports.js';
import type { WsHub } from './ws/hub.js';

export interface AppDeps {
  readonly sessions: SessionBackend;
  /** The outbound address policy session configs' webhooks are checked against; default: the built-in rules. */
  readonly outbound?: OutboundPolicy;
  readonly auth: ApiKeyAuthenticator;
  /** Key management behind /api/keys (SQLite in local mode, NATS KV in cluster mode). */
  readonly keys: ApiKeys;
  readonly hub: WsHub;
  readonly logger: FastifyBaseLogger;
  readonly version: string;
  /** The Server routes: the default engine, the checks of `GET /health`, and what a stop does. */
  readonly server: ServerDeps;
  /** Largest accepted request body, in bytes. */
  readonly bodyLimit?: number;
  /** Largest body of the routes that take base64 files (spec 4.5 media), in bytes; default 16 MiB. */
  readonly mediaBodyLimit?: number;
  /** Media conversions (ffmpeg) at once; default: DEFAULT_CONVERSION_QUEUE's bounds, uncounted. */
  readonly conversions?: ConversionQueue;
  /** Dead webhook deliveries, the event log and the webhooks receivers disabled, for `routes/deliveries.ts`. */
  readonly deliveries?: { readonly dead: DeadDeliveries; readonly eventLog: EventLog; readonly states: WebhookStates };
  /** Served at GET /metrics; `public` drops the admin key check there. */
  readonly metrics?: { readonly registry: GatewayMetrics; readonly public: boolean };
  /** The sessions' message history, for `routes/history.ts`. */
  readonly messages?: MessageStore;
  /** Stored media, served by `routes/files.ts` at the `media.url` of message records. */
  readonly media?: MediaStore;
  /** The built dashboard's directory, served at /dashboard; absent: no dashboard (SWITCHBOARD_DASHBOARD=false). */
  readonly dashboard?: string | null;
  /** Cluster mode: backup and restore under /api/admin (local mode's state is its data directory). */
  readonly backup?: ClusterBackup;
  /** Paced sending (local mode): the sessions' send queues, and `/api/{session}/queue`. */
  readonly sendQueues?: SendQueues;
}

/** Builds the HTTP app from its dependencies; main.ts and the tests both call this. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger,
    bodyLimit: deps.bodyLimit ?? 1024 * 1024,
    // One line per request would drown the events that matter; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    clientErrorHandler,
  });
  app.setValidatorCompiler(validatorCompiler);
  // Responses are built from typed values; serializing them through zod again would only cost time.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  installJsonBodyParser(app);
  installErrorHandling(app);
  // Before any route: it gives every /api route its key check, and refuses one without access.
  installRouteGuard(app, deps.auth);

  await registerDocs(app, deps.version, { oauth: deps.auth.acceptsBearerTokens });
  // In a scope of its own: the websocket plugin wraps every route handler it can see.
  await app.register(async (scope) => {
    await scope.register(fastifyWebsocket, { options: { maxPayload: 64 * 1024, handleProtocols: selectProtocol } });
    await scope.register(wsRoutes, { hub: deps.hub, auth: deps.auth });
  });

  // In a scope of its own: its security headers are for the page only.
  if (deps.dashboard) {
    await app.register(dashboardRoutes, { root: deps.dashboard });
  }

  await app.register(healthRoutes, { checks: deps.server.checks });
  if (deps.metrics) {
    await app.register(metricsRoutes, { metrics: deps.metrics.registry, auth: deps.auth, public: deps.metrics.public });
  }

  // Outside /api: it takes the key itself, and each tool call goes through the /api route's own checks.
  await app.register(mcpRoutes, { auth: deps.auth, version: deps.version });

  // Declared up front so every request object keeps one shape (V8 hidden class).
  app.decorateRequest('principal', null);
  await app.register(async (api) => {
    const routeDeps = {
      sessions: deps.sessions,
      outbound: deps.outbound ?? new OutboundPolicy(),
      conversions: deps.conversions ?? new ConversionQueue(),
      ...(deps.mediaBodyLimit === undefined ? {} : { mediaBodyLimit: deps.mediaBodyLimit }),
      // For routes/chats.ts, whose chat delete forgets the chat's history.
      ...(deps.messages ? { messages: deps.messages } : {}),
      ...(deps.sendQueues ? { sendQueues: deps.sendQueues } : {}),
    };
    for (const routes of [
      sessionRoutes,
      deprecatedSessionRoutes,
      pairingRoutes,
      passkeyRoutes,
      profileRoutes,
      chattingRoutes,
      chattingMediaRoutes,
      chattingInteractiveRoutes,
      chattingActionRoutes,
      chatRoutes,
      presenceRoutes,
      messageIdRoutes,
      contactRoutes,
      groupRoutes,
      contactBookRoutes,
      labelRoutes,
      appRoutes,
      sandboxRoutes,
      channelRoutes,
      storyRoutes,
      mediaConvertRoutes,
      screenshotRoutes,
    ]) {
      await api.register(routes, routeDeps);
    }
    if (deps.deliveries) await api.register(deliveryRoutes, { ...routeDeps, ...deps.deliveries });
    if (deps.messages) await api.register(historyRoutes, { ...routeDeps, messages: deps.messages });
    if (deps.messages) await api.register(chatListRoutes, { ...routeDeps, messages: deps.messages });
    if (deps.messages) await api.register(lidRoutes, { ...routeDeps, messages: deps.messages });
    if (deps.media) await api.register(fileRoutes, { media: deps.media });
    if (deps.sendQueues) await api.register(sendQueueRoutes, { sessions: deps.sessions, sendQueues: deps.sendQueues });
    await api.register(keyRoutes, { keys: deps.keys, incarnations: deps.auth.incarnations });
    await api.register(serverRoutes, deps.server);
    if (deps.backup) await api.register(adminBackupRoutes, { backup: deps.backup });
  });
  return app;
}
