import type { AddressInfo } from 'node:net';
import type { DatabaseSync } from 'node:sqlite';
import {
  DEFAULT_SANDBOX_OPTIONS,
  guardedAgent,
  type InvalidEvent,
  type MessageStore,
  type SandboxOptions,
  SendPacer,
  wentOut,
} from '@switchboard/engine-pod';
import { OutboundPolicy } from '@switchboard/kube';
import { type BuiltEngine, CLIENT_VERSION_ENGINES, clientVersionFromEnv, clientVersionVariable } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { type AdminKey, resolveAdminKey } from './admin-key.js';
import { ApiKeys } from '../auth/api-keys.js';
import { ApiKeyAuthenticator } from '../auth/authenticator.js';
import { apiKeySchema, KeyStore } from './sqlite-key-store.js';
import { OAuthVerifier } from '../auth/oauth.js';
import { buildApp } from '../app.js';
import { dashboardDir } from '../routes/dashboard.js';
import type { GatewayConfig } from '../config.js';
import { type EventBus, InProcessEventBus } from '../events/event-bus.js';
import { eventLogSchema, queuedEventLogSchema, SqliteEventLog } from './sqlite-event-log.js';
import { floorEventIds } from './event-id-floor.js';
import { createLogger } from '../logger.js';
import { AccountData } from './account-data.js';
import { messageSchema } from './sqlite-message-store.js';
import { mediaSchema } from './file-media-store.js';
import { GatewayMetrics } from '../metrics/gateway-metrics.js';
import { type EngineFactories, localEngineFactories } from './engine-factories.js';
import { LocalSessionBackend } from './local-backend.js';
import { SessionRegistry, sessionSchema } from './session-registry.js';
import { BackgroundWriter } from './store/background-writer.js';
import { type DataDirLock, lockDataDir } from './store/data-dir-lock.js';
import { databaseFile, HISTORY_FILE, openDatabase } from './store/database.js';
import { moveHistoryTables } from './store/history-file.js';
import { CommitGate, commitProbeSchema } from './store/commit-gate.js';
import { startWalCheckpointer } from './store/wal-checkpointer.js';
import { WriteBatch } from './store/write-batch.js';
import { TIER, VERSION } from '../version.js';
import { requireOperation } from '../sessions/engine-catalog.js';
import { sendQueueSchema, SqliteSendQueue } from './sqlite-send-queue.js';
import {
  OutboxDeadDeliveries,
  SqliteWebhookStates,
  WebhookDispatcher,
  WebhookFanout,
  WebhookOutbox,
  webhookOutboxSchema,
  webhookStatesSchema,
} from './webhooks/index.js';
import { countedWsHub } from '../ws/counted-hub.js';
import { countedConversionQueue } from '../conversions/counted-queue.js';
import type { EventLogWriter } from '../webhooks/ports.js';
import { webhookTargets } from '../webhooks/webhook-targets.js';

export interface LocalGatewayOptions extends GatewayConfig {
  readonly logger?: Logger;
  readonly sandbox?: SandboxOptions;
  /** Engines to make some of this build's engines with instead; tests put protocol-level fakes here. */
  readonly engines?: Partial<EngineFactories>;
  /** Per-request timeout of webhook deliveries. */
  readonly webhookTimeoutMs?: number;
  /** Told of each event dropped for not matching its schema (it is logged as well). */
  readonly onInvalidEvent?: (invalid: InvalidEvent) => void;
}

export interface LocalGateway {
  readonly app: FastifyInstance;
  readonly adminKey: AdminKey;
  readonly dispatcher: WebhookDispatcher;
  readonly metrics: GatewayMetrics;
  /** The in-process event bus: what the engines publish to, and every fan-out reads. */
  readonly events: EventBus;
  /**
   * The event log and the message history, as the gateway writes them: what sendText's baseline
   * route in the benchmark (bench/src/send-text.ts) writes to, so both sides pay the same SQLite.
   */
  readonly history: { readonly eventLog: EventLogWriter; readonly messages: MessageStore };
  /** The current QR value of a session waiting for a scan (SWITCHBOARD_TERMINAL_QR prints it). */
  qr(session: string): Promise<string>;
  /** Listens, then starts again the sessions that were running. Returns the base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** Local mode: every part in this process, state in SQLite files under the data dir (store/database.ts). */
export async function createLocalGateway(options: LocalGatewayOptions): Promise<LocalGateway> {
  // First of all: a second gateway on the same data dir would run every session twice.
  const lock = lockDataDir(options.dataDir);
  try {
    return await assembleLocalGateway(options, lock);
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function assembleLocalGateway(options: LocalGatewayOptions, lock: DataDirLock): Promise<LocalGateway> {
  const logger = options.logger ?? createLogger(options.logLevel, undefined, options.logFormat);
  const outbound = options.outbound ?? new OutboundPolicy();
  const db: DatabaseSync = openDatabase(options.dataDir, [
    sessionSchema,
    apiKeySchema,
    webhookOutboxSchema,
    webhookStatesSchema,
    queuedEventLogSchema,
    mediaSchema,
    commitProbeSchema,
    sendQueueSchema,
  ]);
  const checkpointer = startWalCheckpointer(db, databaseFile(options.dataDir), (message) =>
    logger.warn({ err: message }, 'SQLite checkpoint in the background failed; the next one tries again'),
  );
  // The message history and the events no webhook takes: their own file, written by a thread of
  // their own every 20 ms (store/background-writer.ts; docs/architecture.md, "What a crash may lose").
  const historyDb = openDatabase(options.dataDir, [eventLogSchema, messageSchema], HISTORY_FILE);
  moveHistoryTables(db, databaseFile(options.dataDir, HISTORY_FILE));
  floorEventIds([
    { db, table: 'webhook_event_log' },
    { db: historyDb, table: 'event_log' },
  ]);
  // The outbox rows of a turn's events share one commit. One that fails (a full disk) fails the
  // calls that made them, and refuses the next ones until commits work again.
  const commits = new CommitGate(db);
  const historyWrites = new BackgroundWriter({
    file: databaseFile(options.dataDir, HISTORY_FILE),
    delayMs: 20,
    onError: (message, count) => logger.error({ err: message, writes: count }, 'event log and message history rows not committed: they are lost'),
    // Rows it cannot write (a full disk) are held and retried; calls that store wait meanwhile (507).
    onHolding: (held) => {
      commits.holding('the message history', held?.reason ?? null);
      if (held)
        logger.error({ err: held.reason }, 'event log and message history rows cannot be written: held and retried; sends answer 507 until they are');
      else logger.info('event log and message history rows written again');
    },
  });
  const keyStore = new KeyStore(db);
  const adminKey = resolveAdminKey(options.apiKey, keyStore);
  const bus = new InProcessEventBus((error) => logger.error({ err: error }, 'event consumer failed'));
  const writes = new WriteBatch(db, (error, count) => {
    commits.failed(error);
    logger.error({ err: error, writes: count }, 'webhook deliveries and their event log rows not committed: the calls that made them answer 507');
  });
  // Message history and media, kept per account and forgotten on logout and delete.
  const accountData = new AccountData({
    db,
    history: { db: historyDb, writes: historyWrites },
    dataDir: options.dataDir,
    bus,
    mediaLifetimeMs: options.mediaLifetimeMs,
    mediaMaxBytes: options.mediaMaxBytes,
    baseUrl: () => options.baseUrl ?? `http://localhost:${(app.server.address() as AddressInfo).port}`,
    log: logger,
  });
  const metrics = new GatewayMetrics();
  // A queue sends to its webhook as the session has it now; `sessions` is made below.
  const outbox = new WebhookOutbox(db, {
    targetOf: (session, targetId) =>
      webhookTargets(sessions.webhooksOf(session), options.globalWebhook).find(({ id }) => id === targetId)?.config ?? null,
  });
  const webhookStates = new SqliteWebhookStates(db);
  const dispatcher = new WebhookDispatcher({
    outbox,
    states: webhookStates,
    log: logger,
    observer: metrics,
    // Delivered rows move their queue's cursor in the outbox batch's next commit.
    writes,
    policy: outbound,
    ...(options.webhookTimeoutMs ? { timeoutMs: options.webhookTimeoutMs } : {}),
  });
  // The events queued for a webhook are logged by the outbox (they are its queue), the others by the history writer.
  const eventLog = new SqliteEventLog({ db: historyDb, queued: db, log: logger, writes: historyWrites });
  const registry = new SessionRegistry(db);
  // One creation of a session is its creation time: keys limited to a session are bound to it.
  const incarnations = (session: string): string | undefined => registry.get(session)?.createdAt.toString();
  const sessions = new LocalSessionBackend({
    registry,
    engines: { ...(await localEngineFactories({ sandbox: options.sandbox ?? DEFAULT_SANDBOX_OPTIONS, outbound })), ...options.engines },
    defaultEngine: options.defaultEngine,
    dataDir: options.dataDir,
    environment: { tier: TIER, version: VERSION },
    // The hosts publish only events that match their schema (engine-pod/src/engine-host.ts, `emit`).
    publish: (event) => bus.publish(event),
    log: logger,
    onInvalidEvent: options.onInvalidEvent,
    media: accountData.engineMedia,
    downloads: guardedAgent(outbound),
    forget: async (session) => {
      // A new pairing is a new account: its warm-up starts again.
      sendQueue.forgetPairing(session);
      await accountData.forget(session);
    },
    ending: async (session) => {
      sendQueue.forgetSession(session);
      outbox.forgetSession(session);
      dispatcher.forgetSession(session);
      webhookStates.forgetSession(session);
      await eventLog.forget(session);
      // Its keys too: a session made again with the name is not open to them.
      await keys.forgetSession(session);
    },
    commits,
    deleted: (session) => metrics.forgetSession(session),
    clientVersions: configuredClientVersions(),
    ...(options.rolloutWorkingTimeoutMs ? { rolloutWorkingTimeoutMs: options.rolloutWorkingTimeoutMs } : {}),
  });
  // Paced sending (issue 32): each session's queue in switchboard.db, sent by one pacer.
  const sendQueue = new SqliteSendQueue(db);
  const pacer = new SendPacer({
    store: sendQueue,
    execute: (session, command) => sessions.command(session, command),
    sendingOf: (session) => registry.get(session)?.config.sending,
    admit: (session, command) => requireOperation(session, registry.get(session)?.engine ?? options.defaultEngine, command),
    alreadySent: async (session, chatId, id) => wentOut(await accountData.messages.get(session, chatId, id)),
    log: logger,
    observer: metrics,
  });
  const stopPacing = bus.subscribe(({ envelope }) => {
    if (envelope.event !== 'session.status' || envelope.payload.status !== 'WORKING') return;
    // The first time the gateway sees the account working is its pairing date (the warm-up's day 0).
    sendQueue.setPairedAt(envelope.session, Date.now());
    pacer.working(envelope.session);
  });
  metrics.sendQueueDepths(() => {
    const depths = sendQueue.depths();
    for (const { name, config } of registry.all()) if (config.sending && !depths.has(name)) depths.set(name, 0);
    return depths;
  });
  const fanout = new WebhookFanout({
    bus,
    outbox,
    dispatcher,
    webhooksOf: (name) => sessions.webhooksOf(name),
    globalHook: options.globalWebhook,
    writes,
    eventLog,
  });
  const keys = new ApiKeys(keyStore, sessions, incarnations);
  const hub = countedWsHub(metrics, bus, logger, options);
  const conversions = countedConversionQueue(metrics, options);
  const stopCounting = metrics.countEvents(bus);
  metrics.readSessionStatuses(() => sessions.list({ all: true, expandApps: false }));
  metrics.gauge('switchboard_webhook_deliveries_pending', 'Webhook deliveries waiting to be sent or retried', () => outbox.pendingCount());
  const app = await buildApp({
    sessions,
    outbound,
    auth: new ApiKeyAuthenticator(adminKey.hash, keyStore.ring, options.oauth ? new OAuthVerifier(options.oauth) : null, incarnations),
    keys,
    hub,
    conversions,
    logger,
    version: VERSION,
    server: {
      defaultEngine: options.defaultEngine,
      debugRoutes: options.debugRoutes ?? false,
      checks: {
        database: () => db.prepare('SELECT 1').get(),
        history: () => historyDb.prepare('SELECT 1').get(),
      },
      stop: (force) => (options.onStopRequested ?? (() => void gateway.close()))(force),
    },
    deliveries: {
      dead: new OutboxDeadDeliveries({
        outbox,
        dispatcher,
        webhooksOf: (name) => sessions.webhooksOf(name),
        globalHook: options.globalWebhook,
      }),
      eventLog,
      states: webhookStates,
    },
    metrics: { registry: metrics, public: options.metricsPublic ?? false },
    dashboard: options.dashboard === false ? null : dashboardDir(),
    messages: accountData.messages,
    media: accountData.media,
    sendQueues: pacer,
  });
  fanout.start();
  accountData.start();
  eventLog.start();
  dispatcher.start();

  let closing: Promise<void> | undefined;
  const gateway: LocalGateway = {
    app,
    adminKey,
    dispatcher,
    metrics,
    events: bus,
    history: { eventLog, messages: accountData.messages },
    qr: async (session) => ((await sessions.command(session, { op: 'auth.qr' })) as { value: string }).value,
    async listen() {
      const url = await app.listen({ port: options.port, host: options.host });
      // Before the sessions start: a send the crash left `sending` goes first when its session works.
      await pacer.recover();
      await sessions.resume();
      return url;
    },
    close: () => (closing ??= closeAll()),
  };
  return gateway;

  async function closeAll(): Promise<void> {
    hub.close();
    await app.close();
    stopPacing();
    await pacer.stop();
    await sessions.close();
    fanout.stop();
    eventLog.stop();
    writes.flush();
    commits.stop();
    stopCounting();
    // Records what the recorder still has queued, then commits it with the event log's rows.
    await accountData.close();
    await historyWrites.close();
    historyDb.close();
    await dispatcher.stop();
    await checkpointer.stop();
    db.close();
    lock.release();
  }
}

/** Each socket engine's client version from its variable, as the engines themselves read it at start. */
function configuredClientVersions(): Partial<Record<BuiltEngine, string>> {
  const versions: Partial<Record<BuiltEngine, string>> = {};
  for (const engine of CLIENT_VERSION_ENGINES) {
    const version = clientVersionFromEnv(process.env, clientVersionVariable(engine));
    if (version) versions[engine] = version;
  }
  return versions;
}
