import { KubeConfig } from '@kubernetes/client-node';
import { NatsMediaStore, NatsMessageStore, purgeSessionMedia, purgeSessionMessages } from '@switchboard/engine-pod';
import {
  DEFAULT_MEDIA_LIFETIME_MS,
  OutboundPolicy,
  purgeSessionAuth,
  purgeSessionSendQueue,
  reusingConnections,
  sessionNameOf,
  useReplicas,
} from '@switchboard/kube';
import type { FastifyInstance } from 'fastify';
import { INBOX_PREFIXES, resourceNameFor } from '@switchboard/protocol';
import { connect, credsAuthenticator } from 'nats';
import type { Logger } from 'pino';
import { configuredKeyHash } from '../auth/api-key.js';
import { ApiKeys } from '../auth/api-keys.js';
import { ApiKeyAuthenticator } from '../auth/authenticator.js';
import { OAuthVerifier } from '../auth/oauth.js';
import { buildApp } from '../app.js';
import { dashboardDir } from '../routes/dashboard.js';
import { type GatewayConfig, requireClusterSettings } from '../config.js';
import { InProcessEventBus } from '../events/event-bus.js';
import { createLogger } from '../logger.js';
import { GatewayMetrics } from '../metrics/gateway-metrics.js';
import { VERSION } from '../version.js';
import { countedWsHub } from '../ws/counted-hub.js';
import { countedConversionQueue } from '../conversions/counted-queue.js';
import { ClusterSessionBackend } from './cluster-backend.js';
import { StreamDeadDeliveries } from './dead-letters.js';
import { LiveEventFeed } from './event-source.js';
import { onDeletedSessions } from './deleted-sessions.js';
import { ForgedEventGuard } from './forged-events.js';
import { StreamEventLog } from './stream-event-log.js';
import { StreamReplicaReadings } from './stream-replicas.js';
import { keepMediaLifetimes } from './media-lifetimes.js';
import { dropSessionStreams } from './session-streams.js';
import { SessionCache } from './session-cache.js';
import { SessionCommandChannel } from './session-commands.js';
import { ClusterSendQueues } from './paced-sending.js';
import { SessionResources } from './session-resources.js';
import { SessionSecrets } from './session-secrets.js';
import { followWebhookSecrets } from './follow-webhook-secrets.js';
import { ClusterBackup } from './backup/cluster-backup.js';
import { KvKeyStore } from './kv-key-store.js';
import { KvWebhookStates } from './kv-webhook-states.js';
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
  readonly metrics: GatewayMetrics;
  /** Listens; returns the base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/**
 * Cluster mode: sessions are MessagingSession resources in one namespace, engine pods answer
 * commands and publish events over NATS. The HTTP app is the same as in local mode. Any number
 * of replicas may run side by side: each serves `/api` and `/ws` (every replica sees every
 * event), and they share webhook delivery through one JetStream consumer per (session, webhook).
 */
export async function createClusterGateway(options: ClusterGatewayOptions): Promise<ClusterGateway> {
  const { apiKey, natsUrl } = requireClusterSettings(options);
  const logger = options.logger ?? createLogger(options.logLevel, undefined, options.logFormat);
  const outbound = options.outbound ?? new OutboundPolicy();
  // One kept connection pool for every API client the gateway makes (kube/src/kube-connections.ts).
  const kubeConfig = reusingConnections(options.kubeConfig ?? defaultKubeConfig());
  const namespace = options.namespace ?? kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace ?? 'default';
  const nc = await connect({
    servers: natsUrl.split(','),
    name: 'switchboard-gateway',
    maxReconnectAttempts: -1,
    ...(options.natsCredentials ? { authenticator: credsAuthenticator(new TextEncoder().encode(options.natsCredentials)) } : {}),
    // The one inbox prefix the gateway's NATS user may subscribe to.
    inboxPrefix: INBOX_PREFIXES.gateway,
  });
  // The streams and buckets it makes (dead letters, replays, keys, media) get the copies asked for.
  useReplicas(nc, options.natsReplicas ?? 1, options.natsSeed);

  const bus = new InProcessEventBus((error) => logger.error({ err: error }, 'event consumer failed'));
  const resources = new SessionResources(kubeConfig, namespace);
  const cache = new SessionCache({ resources, kubeConfig, log: logger });
  const secrets = new SessionSecrets({ kubeConfig, namespace });
  const stopFollowing = followWebhookSecrets(cache, secrets, logger);
  // Made once the key bucket is open; sessions deleted before that have no keys to forget here.
  let keys: ApiKeys | undefined;
  const started: { feed?: LiveEventFeed; webhooks?: JetStreamWebhookWorker; keys?: KvKeyStore; states?: KvWebhookStates } = {};
  /**
   * A deleted session's events, queues and dead letters go (session-streams.ts): before the API's
   * delete answers, and on every replica that sees a resource go (a kubectl delete too), unless
   * a session of the name is back by then. This replica's queues of the session stop first.
   */
  const dropStreams = async (session: string): Promise<void> => {
    await started.webhooks?.sync();
    if (cache.list()?.some((resource) => sessionNameOf(resource) === session)) return;
    await dropSessionStreams(nc, session);
    await started.states?.forgetSession(session);
    // Its send queue, recent sends and pairing date: a session made again with the name starts empty.
    await purgeSessionSendQueue(nc, session);
  };
  const commands = new SessionCommandChannel(nc, options.commandTimeoutMs);
  const sessions = new ClusterSessionBackend({
    resources,
    cache,
    secrets,
    commands,
    purgeAuth: (session) => purgeSessionAuth(nc, session),
    forget: async (session) => {
      await Promise.all([purgeSessionMessages(nc, session), purgeSessionMedia(nc, session)]);
    },
    forgetKeys: async (session, madeBefore) => keys?.forgetSession(session, madeBefore),
    ended: (session) => dropStreams(session),
    // Engine pods run this same build, so what this build can run is what they can run.
    defaultEngine: options.defaultEngine,
    log: logger,
    events: bus,
    settleTimeoutMs: options.settleTimeoutMs,
  });
  // Every replica reads every event, so each one's event counters count them all.
  const metrics = new GatewayMetrics();
  const stopCounting = metrics.countEvents(bus);
  metrics.readSessionStatuses(() => sessions.list({ all: true, expandApps: false }));
  const hub = countedWsHub(metrics, bus, logger, options);
  // Every reader of the events stream drops an event whose body names another session.
  const guard = new ForgedEventGuard(metrics, logger);
  const conversions = countedConversionQueue(metrics, options);
  const streamReplicas = new StreamReplicaReadings(nc, logger);
  metrics.streamReplicas(() => streamReplicas.read());
  try {
    cache.start();
    // Webhook targets come from the cache: an event handled before it is synced would find none.
    await cache.whenSynced(options.syncTimeoutMs ?? 60_000);
    const stopForgetting = onDeletedSessions(cache, (session) => {
      metrics.forgetSession(session);
      dropStreams(session).catch((error: unknown) =>
        logger.warn({ err: error, session }, 'deleted session’s events and webhook queues not dropped; a delete through the API drops them'),
      );
    });
    // One creation of a session is its resource's uid: its webhook queues are
    // named by it, and keys limited to a session are bound to it, so a session deleted while no
    // gateway saw it (kubectl) leaves neither its queued events nor its keys to the next one.
    const incarnations = (session: string): string | undefined => {
      const resource = cache.lookup(resourceNameFor(session));
      return resource && sessionNameOf(resource) === session ? resource.metadata?.uid : undefined;
    };
    const feed = (started.feed = await LiveEventFeed.start({ nc, bus, log: logger, guard }));
    const webhookStates = (started.states = await KvWebhookStates.open(nc, logger));
    const webhooks = (started.webhooks = await JetStreamWebhookWorker.start({
      nc,
      log: logger,
      guard,
      webhooksOf: (name) => sessions.webhooksOf(name),
      globalHook: options.globalWebhook,
      secretValue: (ref) => secrets.value(ref),
      sessions: () => cache.list()?.map(sessionNameOf),
      incarnationOf: incarnations,
      onSessionsChange: (listener) => cache.subscribe(() => listener()),
      observer: metrics,
      timeoutMs: options.webhookTimeoutMs,
      ackWaitMs: options.webhookAckWaitMs,
      policy: outbound,
      states: webhookStates,
    }));
    // Keys made through /api/keys, shared by every replica; the configured key stays the admin.
    const keyStore = (started.keys = await KvKeyStore.open(nc, logger));
    const auth = new ApiKeyAuthenticator(
      configuredKeyHash(apiKey),
      keyStore.ring,
      options.oauth ? new OAuthVerifier(options.oauth) : null,
      incarnations,
    );
    const apiKeys = (keys = new ApiKeys(keyStore, sessions, incarnations));
    // A session deleted elsewhere (another replica, kubectl) takes its keys too. Keys made since
    // its delete began are kept: a session of the same name may be there again already.
    const stopForgettingKeys = onDeletedSessions(cache, (session, last) => {
      const deleting = last.metadata?.deletionTimestamp ? new Date(last.metadata.deletionTimestamp).getTime() : Date.now();
      apiKeys.forgetSession(session, deleting).catch((error: unknown) => {
        logger.error({ err: error, session }, 'could not delete the API keys of a deleted session');
      });
    });
    // Engine pods write history and media; every replica reads them. The gateway owns the media
    // lifetime: it brings each session's bucket's TTL to its own setting.
    const messages = await NatsMessageStore.open(nc);
    const media = await NatsMediaStore.open(nc, { lifetimeMs: options.mediaLifetimeMs ?? DEFAULT_MEDIA_LIFETIME_MS });
    const stopKeepingLifetimes = keepMediaLifetimes(cache, (session) => media.keepLifetime(session), logger);
    const app = await buildApp({
      sessions,
      // Paced sending: each session's queue is its engine pod's (paced-sending.ts).
      sendQueues: new ClusterSendQueues({ nc, sessions, marginMs: commands.timeoutMs }),
      outbound,
      auth,
      keys: apiKeys,
      hub,
      conversions,
      logger,
      version: VERSION,
      server: {
        defaultEngine: options.defaultEngine,
        debugRoutes: options.debugRoutes ?? false,
        checks: {
          nats: () => {
            if (nc.isClosed()) throw new Error('the NATS connection is closed');
          },
          kubernetes: () => {
            if (cache.list() === undefined) throw new Error('the MessagingSession cache has not listed the sessions yet');
          },
        },
        stop: (force) => (options.onStopRequested ?? (() => void gateway.close()))(force),
      },
      messages,
      media,
      deliveries: {
        dead: new StreamDeadDeliveries({ nc, webhooksOf: (name) => sessions.webhooksOf(name), globalHook: options.globalWebhook }),
        eventLog: new StreamEventLog(nc, guard),
        states: webhookStates,
      },
      metrics: { registry: metrics, public: options.metricsPublic ?? false },
      dashboard: options.dashboard === false ? null : dashboardDir(),
      backup: new ClusterBackup({ nc, namespace, resources, cache, keys: keyStore, secrets, log: logger }),
    });
    let closing: Promise<void> | undefined;
    const closeAll = async () => {
      hub.close();
      await app.close();
      await webhooks.stop();
      await feed.stop();
      stopCounting();
      stopForgetting();
      stopFollowing();
      stopForgettingKeys();
      stopKeepingLifetimes();
      keyStore.close();
      webhookStates.close();
      await sessions.close();
      await nc.drain();
    };
    const gateway: ClusterGateway = {
      app,
      sessions,
      webhooks,
      metrics,
      listen: () => app.listen({ port: options.port, host: options.host }),
      close: () => (closing ??= closeAll()),
    };
    return gateway;
  } catch (error) {
    stopFollowing();
    hub.close();
    await started.webhooks?.stop();
    await started.feed?.stop();
    started.keys?.close();
    started.states?.close();
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
