import { KubeConfig } from '@kubernetes/client-node';
import { DEFAULT_SANDBOX_OPTIONS, purgeSessionAuth } from '@switchboard/engine-pod';
import type { FastifyInstance } from 'fastify';
import { connect } from 'nats';
import type { Logger } from 'pino';
import { configuredKeyHash } from '../auth/api-key.js';
import { ApiKeyAuthenticator } from '../auth/authenticator.js';
import { buildApp } from '../app.js';
import { type GatewayConfig, requireClusterSettings } from '../config.js';
import { InProcessEventBus } from '../events/event-bus.js';
import { createLogger } from '../logger.js';
import { localEngineCatalog } from '../sessions/engine-catalog.js';
import { VERSION } from '../version.js';
import { WsHub } from '../ws/hub.js';
import { ClusterSessionBackend } from './cluster-backend.js';
import { LiveEventFeed } from './event-source.js';
import { SessionCache } from './session-cache.js';
import { SessionCommandChannel } from './session-commands.js';
import { SessionResources } from './session-resources.js';
import { JetStreamWebhookWorker } from './webhook-worker.js';

export interface ClusterGatewayOptions extends Omit<GatewayConfig, 'mode' | 'dataDir'> {
  readonly logger?: Logger;
  /** Default: client-node's `loadFromDefault` (KUBECONFIG, ~/.kube/config, or the pod's service account). */
  readonly kubeConfig?: KubeConfig;
  /** Per-request timeout of webhook deliveries. */
  readonly webhookTimeoutMs?: number;
  /** Ack wait of the shared webhook consumer: how soon another replica takes over a dead one's events. */
  readonly webhookAckWaitMs?: number;
  /** How long an engine pod has to answer a command. */
  readonly commandTimeoutMs?: number;
  /** How long stop waits for STOPPED and delete for the resource to be gone. */
  readonly settleTimeoutMs?: number;
  /** How long start-up waits for the first list of MessagingSessions. */
  readonly syncTimeoutMs?: number;
}

export interface ClusterGateway {
  readonly app: FastifyInstance;
  readonly sessions: ClusterSessionBackend;
  readonly webhooks: JetStreamWebhookWorker;
  /** Listens; returns the base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/**
 * Cluster mode: sessions are MessagingSession resources in one namespace, engine pods answer
 * commands and publish events over NATS. The HTTP app is the same as in local mode. Any number
 * of replicas may run side by side: each serves `/api` and `/ws` (every replica sees every
 * event), and they share webhook delivery through one JetStream consumer.
 */
export async function createClusterGateway(options: ClusterGatewayOptions): Promise<ClusterGateway> {
  const { apiKey, natsUrl } = requireClusterSettings(options);
  const auth = new ApiKeyAuthenticator(configuredKeyHash(apiKey));
  const logger = options.logger ?? createLogger(options.logLevel);
  const kubeConfig = options.kubeConfig ?? defaultKubeConfig();
  const namespace = options.namespace ?? kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace ?? 'default';
  const nc = await connect({ servers: natsUrl.split(','), name: 'switchboard-gateway', maxReconnectAttempts: -1 });

  const bus = new InProcessEventBus((error) => logger.error({ err: error }, 'event consumer failed'));
  const resources = new SessionResources(kubeConfig, namespace);
  const cache = new SessionCache({ resources, kubeConfig, log: logger });
  const sessions = new ClusterSessionBackend({
    resources,
    cache,
    commands: new SessionCommandChannel(nc, options.commandTimeoutMs),
    purgeAuth: (session) => purgeSessionAuth(nc, session),
    // Engine pods run this same build, so what this build can run is what they can run.
    engines: localEngineCatalog({ sandbox: DEFAULT_SANDBOX_OPTIONS }),
    defaultEngine: options.defaultEngine,
    log: logger,
    events: bus,
    settleTimeoutMs: options.settleTimeoutMs,
  });
  const hub = new WsHub({ bus, log: logger });
  const started: { feed?: LiveEventFeed; webhooks?: JetStreamWebhookWorker } = {};
  try {
    await cache.start();
    // Webhook targets come from the cache: an event handled before it is synced would find none.
    await cache.whenSynced(options.syncTimeoutMs ?? 60_000);
    const feed = (started.feed = await LiveEventFeed.start({ nc, bus, log: logger }));
    const webhooks = (started.webhooks = await JetStreamWebhookWorker.start({
      nc,
      log: logger,
      webhooksOf: (name) => sessions.webhooksOf(name),
      globalHook: options.globalWebhook,
      timeoutMs: options.webhookTimeoutMs,
      ackWaitMs: options.webhookAckWaitMs,
    }));
    const app = await buildApp({ sessions, auth, hub, logger, version: VERSION });
    return {
      app,
      sessions,
      webhooks,
      listen: () => app.listen({ port: options.port, host: options.host }),
      async close() {
        hub.close();
        await app.close();
        await webhooks.stop();
        await feed.stop();
        await sessions.close();
        await nc.drain();
      },
    };
  } catch (error) {
    hub.close();
    await started.webhooks?.stop();
    await started.feed?.stop();
    await sessions.close();
    await nc.close();
    throw error;
  }
}

function defaultKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromDefault();
  return kubeConfig;
}
