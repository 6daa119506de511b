import type { DatabaseSync } from 'node:sqlite';
import { DEFAULT_SANDBOX_OPTIONS, type SandboxOptions } from '@switchboard/engine-pod';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { type AdminKey, resolveAdminKey } from './auth/admin-key.js';
import { ApiKeyAuthenticator } from './auth/authenticator.js';
import { apiKeySchema, KeyStore } from './auth/key-store.js';
import { buildApp } from './app.js';
import type { GatewayConfig } from './config.js';
import { InProcessEventBus } from './events/event-bus.js';
import { createLogger } from './logger.js';
import { localEngineCatalog } from './sessions/engine-catalog.js';
import { LocalSessionBackend } from './sessions/local-backend.js';
import { SessionRegistry, sessionSchema } from './sessions/registry.js';
import { openDatabase } from './store/database.js';
import { TIER, VERSION } from './version.js';
import { WebhookDispatcher, WebhookFanout, WebhookOutbox, webhookOutboxSchema } from './webhooks/index.js';
import { WsHub } from './ws/hub.js';

export interface LocalGatewayOptions extends GatewayConfig {
  readonly logger?: Logger;
  readonly sandbox?: SandboxOptions;
  /** Per-request timeout of webhook deliveries. */
  readonly webhookTimeoutMs?: number;
}

export interface LocalGateway {
  readonly app: FastifyInstance;
  readonly adminKey: AdminKey;
  readonly dispatcher: WebhookDispatcher;
  /** Listens, then starts again the sessions that were running. Returns the base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** Local mode: every part in this process, state in one SQLite file under the data dir. */
export async function createLocalGateway(options: LocalGatewayOptions): Promise<LocalGateway> {
  const logger = options.logger ?? createLogger(options.logLevel);
  const db: DatabaseSync = openDatabase(options.dataDir, [sessionSchema, apiKeySchema, webhookOutboxSchema]);
  const adminKey = resolveAdminKey(options.apiKey, new KeyStore(db));
  const bus = new InProcessEventBus((error) => logger.error({ err: error }, 'event consumer failed'));
  const sessions = new LocalSessionBackend({
    registry: new SessionRegistry(db),
    engines: localEngineCatalog({ sandbox: options.sandbox ?? DEFAULT_SANDBOX_OPTIONS }),
    defaultEngine: options.defaultEngine,
    dataDir: options.dataDir,
    environment: { tier: TIER, version: VERSION },
    publish: (event) => bus.publish(event),
    log: logger,
  });
  const outbox = new WebhookOutbox(db);
  const dispatcher = new WebhookDispatcher({
    outbox,
    log: logger,
    ...(options.webhookTimeoutMs ? { timeoutMs: options.webhookTimeoutMs } : {}),
  });
  const fanout = new WebhookFanout({
    bus,
    outbox,
    dispatcher,
    webhooksOf: (name) => sessions.webhooksOf(name),
    globalHook: options.globalWebhook,
  });
  const hub = new WsHub({ bus, log: logger });
  const app = await buildApp({
    sessions,
    auth: new ApiKeyAuthenticator(adminKey.hash),
    hub,
    logger,
    version: VERSION,
  });
  fanout.start();
  dispatcher.start();

  return {
    app,
    adminKey,
    dispatcher,
    async listen() {
      const url = await app.listen({ port: options.port, host: options.host });
      await sessions.resume();
      return url;
    },
    async close() {
      hub.close();
      await app.close();
      await sessions.close();
      fanout.stop();
      await dispatcher.stop();
      db.close();
    },
  };
}
