import { ensureClusterStores, keepReplicas, raiseReplicas, reusingConnections, useReplicas, whileSeedJoins } from '@switchboard/kube';
import { INBOX_PREFIXES, resourceNameFor } from '@switchboard/protocol';
import { connect, credsAuthenticator } from 'nats';
import type { Logger } from 'pino';
import type { OperatorConfig } from './config.js';
import { EventRecorder } from './event-recorder.js';
import { startOperatorHttp } from './http-server.js';
import { OperatorInformers } from './informers.js';
import { KubeClient } from './kube-client.js';
import { type LeaseTimings, LeaderElector } from './leader-election.js';
import { createLogger } from './logger.js';
import { loadOrCreateNatsAuth } from './nats-auth/stored-auth.js';
import { OperatorMetrics } from './operator-metrics.js';
import { PodExpectations } from './reconcile/pod-expectations.js';
import { SessionReconciler } from './reconcile/reconciler.js';
import { RolloutController } from './rollout/rollout-controller.js';
import { RolloutStore } from './rollout/rollout-store.js';
import { EngineStatusStore } from './status-events.js';
import { runWorkers } from './workers.js';
import { WorkQueue } from './work-queue.js';

export interface OperatorOptions {
  readonly log?: Logger;
  /** How often every key is reconciled even without events (default 30 s). */
  readonly resyncMs?: number;
  /** A watch silent for this long is restarted (default 30 s). */
  readonly watchQuietTimeoutMs?: number;
  readonly leaseTimings?: LeaseTimings;
}

export interface RunningOperator {
  readonly isLeader: boolean;
  /** Where `/healthz`, `/readyz` and `/metrics` answer (config `httpPort`, or the one picked for 0). */
  readonly httpPort: number;
  /**
   * Resolves the first time this replica stops leading because it could not renew. It then stops
   * its workers and campaigns again: a replica cut off from the API server for a while (a restart
   * of the control plane) leads again when it comes back, without a restart of its own.
   */
  readonly leadershipLost: Promise<void>;
  /** Stops reconciling, lets in-flight reconciles finish, releases the lease, disconnects. */
  stop(): Promise<void>;
}

/** In-flight reconciles get this long to finish on shutdown (the pod's grace period is 30 s). */
const DRAIN_MS = 10_000;

/**
 * Runs one operator replica. Every replica keeps its caches and the engines' statuses warm;
 * only the one holding the lease runs the workers, so a takeover starts from synced caches.
 */
export async function startOperator(config: OperatorConfig, options: OperatorOptions = {}): Promise<RunningOperator> {
  const log = options.log ?? createLogger(config.logLevel);
  const { namespace, identity } = config;
  // One kept connection pool for every API client this replica makes (kube-connections.ts).
  const kubeConfig = reusingConnections(config.kubeConfig);
  // A new queue each time this replica starts leading: a queue that was shut down stays so.
  let queue = new WorkQueue();
  let stopping = false;
  // eslint-disable-next-line prefer-const -- the metrics read it before the elector is made below
  let elector: LeaderElector | undefined;
  let synced = false;
  // eslint-disable-next-line prefer-const -- the metrics read it before the controller is made below
  let rollouts: RolloutController | undefined;
  const metrics = new OperatorMetrics({
    queueDepth: () => queue.length,
    isLeader: () => elector?.isLeader ?? false,
    rollouts: () => rollouts?.snapshot() ?? [],
  });
  // First, so a port already taken fails the start before anything connects.
  const http = await startOperatorHttp({ port: config.httpPort, metrics: metrics.registry, ready: () => synced });
  const kube = new KubeClient(kubeConfig, namespace);
  // The bundled NATS's authentication: made here the first time, before anything connects.
  const natsAuth = config.natsAuthSecret
    ? await loadOrCreateNatsAuth(kube, config.natsAuthSecret).catch(async (error: unknown) => {
        await http.close();
        throw error;
      })
    : undefined;
  const credentials = natsAuth?.operatorCredentials ?? config.natsCredentials;
  const nc = await connect({
    servers: config.natsUrl,
    name: `switchboard-operator ${identity}`,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1_000,
    ...(credentials ? { authenticator: credsAuthenticator(new TextEncoder().encode(credentials)) } : {}),
    inboxPrefix: INBOX_PREFIXES.operator,
  }).catch(async (error: unknown) => {
    await http.close();
    throw error;
  });
  useReplicas(nc, config.natsReplicas, config.natsSeed);
  // Engine pods with credentials may not create streams: every one they use exists before the
  // first pod. Those made with fewer copies than asked for (a NATS grown to a cluster) get them.
  const stores = async () => {
    await ensureClusterStores(nc);
    const raised = await whileSeedJoins(nc, async () => raiseReplicas(await nc.jetstreamManager(), config.natsReplicas, config.natsSeed));
    if (raised.length > 0) log.info({ streams: raised, replicas: config.natsReplicas }, 'streams raised to the replicas asked for');
  };
  await stores().catch(async (error: unknown) => {
    await nc.close();
    await http.close();
    throw error;
  });
  // Streams made again later with fewer copies (by a part of an older release) get them too.
  const stopKeepingReplicas = keepReplicas(nc, {
    onRaised: (streams) => log.warn({ streams, replicas: config.natsReplicas }, 'streams made with fewer copies than asked for: raised'),
    onError: (error) => log.warn({ err: error }, "could not check the streams' copies; trying again later"),
  });
  const engines = new EngineStatusStore(nc, (session) => queue.add(resourceNameFor(session)), log, metrics);
  const informers = new OperatorInformers({
    kubeConfig,
    namespace,
    enqueue: (key) => queue.add(key),
    log,
    resyncMs: options.resyncMs,
    quietTimeoutMs: options.watchQuietTimeoutMs,
  });
  const events = new EventRecorder(kube, identity, log);
  rollouts = new RolloutController({
    store: new RolloutStore(kube),
    sessions: informers.sessions,
    pods: informers.pods,
    engines,
    podSettings: config.pods,
    settings: config.rollout,
    events,
    enqueue: (key) => queue.add(key),
    log,
  });
  const rolloutController = rollouts;
  const reconciler = new SessionReconciler(
    {
      kube,
      nc,
      engines,
      events,
      expectations: new PodExpectations(),
      pods: config.pods,
      ...(natsAuth ? { natsSigner: natsAuth } : {}),
      log,
      rollouts,
    },
    informers,
  );
  engines.start();
  informers.start();
  void informers.waitForSync().then(() => (synced = true));

  const leader = new LeaderElector({ kubeConfig, namespace, leaseName: config.leaseName, identity, log, timings: options.leaseTimings });
  elector = leader;
  let workers: Promise<void> = Promise.resolve();
  let signalLost: () => void = () => {};
  const leadershipLost = new Promise<void>((resolve) => {
    signalLost = resolve;
  });
  leader.run({
    onStartedLeading: () => {
      const leading = queue;
      workers = (async () => {
        await informers.waitForSync();
        if (leading.isShuttingDown) return;
        // Before any reconcile: a session a stored rollout holds on its previous version stays there.
        await rolloutController.start();
        informers.enqueueAll();
        await runWorkers(
          leading,
          (key) => reconciler.reconcile(key),
          config.workers,
          log,
          (outcome, seconds) => metrics.reconciled(outcome, seconds),
        );
      })();
    },
    onStoppedLeading: async () => {
      // Events from now on go to the next term's queue; its first act is to enqueue every key anyway.
      const lost = queue;
      if (!stopping) queue = new WorkQueue();
      lost.shutDown();
      signalLost();
      await rolloutController.stop();
      // In-flight reconciles finish (their writes carry resourceVersions, so one that raced a
      // new leader fails with a conflict) before this replica may lead again.
      await Promise.race([workers, new Promise((resolve) => setTimeout(resolve, DRAIN_MS).unref())]);
    },
  });
  log.info({ namespace, identity, lease: config.leaseName, httpPort: http.port }, 'operator started');

  return {
    get isLeader() {
      return leader.isLeader;
    },
    httpPort: http.port,
    leadershipLost,
    async stop() {
      stopping = true;
      queue.shutDown();
      await rolloutController.stop();
      await informers.stop();
      await Promise.race([Promise.all([workers, events.settled()]), new Promise((resolve) => setTimeout(resolve, DRAIN_MS).unref())]);
      await leader.stop();
      engines.stop();
      stopKeepingReplicas();
      await http.close();
      await nc.close();
      log.info({ identity }, 'operator stopped');
    },
  };
}
