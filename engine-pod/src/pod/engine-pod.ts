import { INBOX_PREFIXES, type SessionStatus } from '@switchboard/protocol';
import { natsLiveness } from '@switchboard/kube/pod';
import { connect, credsAuthenticator, deadline, Events, type NatsConnection } from 'nats';
import type { Logger } from 'pino';
import { CommandServer } from '../cluster/command-server.js';
import { EventPublisher } from '../cluster/event-publisher.js';
import { NatsAuthStateStore } from '../cluster/nats-auth-state-store.js';
import { NatsMediaStore } from '../cluster/nats-media-store.js';
import { NatsMessageStore } from '../cluster/nats-message-store.js';
import { SessionLease, type SessionLeaseOptions } from '../cluster/session-lease.js';
import { SessionSending } from '../cluster/session-sending.js';
import type { EngineFactory } from '../engine.js';
import { EngineHost } from '../engine-host.js';
import { HistoryRecorder } from '../history/history-recorder.js';
import { mediaUrl } from '../media/media-url.js';
import { lazyGuardedAgent } from '../outbound/downloads.js';
import type { PodConfig } from './config.js';
import { engineFactory } from '../engine-factories.js';
import { type HealthServer, startHealthServer } from './health-server.js';
import { PodMetrics } from './pod-metrics.js';
import { TIER, VERSION } from './version.js';

/** Inside the kubelet's default 30 s grace period, with room left for the rest of the shutdown. */
const FLUSH_TIMEOUT_MS = 10_000;
const DRAIN_TIMEOUT_MS = 5_000;

/**
 * One engine pod's life: the instance manager of its session. It owns the order things happen
 * in, which is what keeps invariant 1: the engine connects only after this pod holds the
 * session's lease, and is stopped the moment the lease is lost.
 *
 * A lost lease (NATS out of reach, or JetStream not answering, for longer than its ttl) does not
 * end the pod: its engine stops at once, the pod turns un-ready, and it waits for the lease as at
 * its start, then starts the same host again from the stored pairing. Exiting instead would only
 * have the kubelet restart the container into the same wait, and repeated exits end in
 * CrashLoopBackOff's delays. The NATS connection, event publisher, history and command server
 * stay for the pod's life: nothing of the first term is left behind or made twice.
 */
export class EnginePod {
  private nc: NatsConnection | null = null;
  private publisher: EventPublisher | null = null;
  /** Writes the session's message history to NATS KV, beside publishing each event. */
  private history: HistoryRecorder | null = null;
  private lease: SessionLease | null = null;
  private health: HealthServer | null = null;
  private host: EngineHost | null = null;
  private commands: CommandServer | null = null;
  /** Paced sending of the session: runs while this pod holds the lease. */
  private sending: SessionSending | null = null;
  /** Served at the health port's `/metrics`: the process's and the paced sending's (the queue's depth read from `sending`). */
  private readonly metrics = new PodMetrics(() => this.sending?.store.depths() ?? new Map());
  private hostStarted = false;
  private hostStopped: Promise<void> | null = null;
  /** Resolves the current lease term's wait once its lease is lost (set while one is held). */
  private termEnded: (() => void) | null = null;
  private stopping = false;
  private readonly acquiring = new AbortController();
  private end!: (exitCode: number) => void;
  private readonly ended = new Promise<number>((resolve) => {
    this.end = resolve;
  });

  /**
   * `factory`: the engine's, from the catalog when left out; tests run the pod with a fake engine.
   * `leaseTiming`: the lease's, LEASE's when left out; tests shorten it, with the leases bucket made at the same ttl.
   */
  constructor(
    private readonly config: PodConfig,
    private readonly log: Logger,
    private readonly factory?: EngineFactory,
    private readonly leaseTiming: Pick<SessionLeaseOptions, 'ttlMs' | 'renewMs' | 'retryMs'> = {},
  ) {}

  /** Ready for the kubelet: this pod holds the lease and its engine host runs. */
  get ready(): boolean {
    return !this.stopping && this.hostStarted && this.lease?.held === true;
  }

  /** Starts the pod and resolves with the process exit code once it has ended. */
  run(): Promise<number> {
    this.startUp().catch((error: unknown) => {
      if (this.stopping) return;
      this.log.fatal({ err: error }, 'engine pod failed to start');
      void this.terminate(1, 'start-up failed');
    });
    return this.ended;
  }

  /** SIGTERM or SIGINT: a clean stop that hands the session over to the next pod at once. */
  shutdown(signal: string): Promise<void> {
    return this.terminate(0, signal);
  }

  private async startUp(): Promise<void> {
    const { session, podName, podUid } = this.config;
    const nc = await this.connectNats();
    // With credentials the pod may only use what the operator created for it: it binds.
    const bind = this.config.natsCredentials !== undefined;
    const publisher = (this.publisher = await EventPublisher.open(nc, { log: this.log, bind }));
    const authState = await NatsAuthStateStore.open(nc, session, { bind });
    const media = await NatsMediaStore.open(nc);
    const messages = await NatsMessageStore.open(nc, { bind, forgetsByKey: true });
    const history = (this.history = new HistoryRecorder(messages, this.log));
    const lease = await SessionLease.open(nc, {
      session,
      holder: podName,
      ...(podUid === undefined ? {} : { podUid }),
      log: this.log,
      bind,
      ...this.leaseTiming,
    });
    this.lease = lease;
    this.health = await startHealthServer(this.config.healthPort, () => this.ready, this.metrics.registry);
    // The engine's code is loaded here, once the probes answer and before the lease is taken: a
    // setting it refuses stops the pod without holding the session.
    const factory =
      this.factory ??
      (await engineFactory(this.config.engine, {
        ...(this.config.sandboxQrRenewMs === undefined ? {} : { sandbox: { qrRenewMs: this.config.sandboxQrRenewMs } }),
        outbound: this.config.outbound,
      }));
    this.log.info({ healthPort: this.health.port }, 'engine pod up; waiting for the session lease');

    lease.onLost((reason) => this.pause(reason));
    const host = new EngineHost({
      session,
      engine: this.config.engine,
      factory,
      authState,
      metadata: this.config.metadata,
      apps: this.config.apps,
      settings: this.config.settings,
      environment: { tier: TIER, version: VERSION, worker: this.config.podName },
      // Only events that match their schema come here: the host checks each as it makes it.
      publish: (event) => {
        this.publisher?.publish(event);
        history.record(event.envelope);
        if (event.envelope.event === 'session.status') this.sending?.statusChanged((event.envelope.payload as { status: SessionStatus }).status);
      },
      log: this.log,
      media: { store: media, urlFor: (stored) => mediaUrl(this.config.baseUrl, stored), maxBytes: this.config.mediaMaxBytes },
      downloads: lazyGuardedAgent(this.config.outbound),
      mayConnect: () => lease.held && !this.stopping,
    });
    this.host = host;
    let sendingConfig = this.config.sending;
    for (;;) {
      const ended = new Promise<void>((resolve) => (this.termEnded = resolve));
      await lease.acquire(this.acquiring.signal);
      if (this.stopping) return;
      // Commands wait for the first lease; then they stay served, answered by a stopped host while it is lost.
      if (!this.commands) {
        this.commands = new CommandServer({ nc, session, host, log: this.log, events: publisher, sending: () => this.sending });
        this.commands.start();
      }
      const commands = this.commands;
      // Each lease term reads the queue back (another pod may have held it meanwhile), before the
      // engine: a send left `sending` is looked up in the history, and what waits goes once the session works.
      const sending = await SessionSending.start({
        nc,
        session,
        engine: this.config.engine,
        sending: sendingConfig,
        execute: (command) => commands.executeStored(command),
        history: messages,
        fencingToken: () => lease.fencingToken,
        log: this.log,
        observer: this.metrics.sendQueue,
        bind,
      });
      if (this.stopping) {
        await sending.stop();
        return;
      }
      this.sending = sending;
      await host.start();
      this.hostStarted = !this.stopping && lease.held;
      this.log.info({ engine: this.config.engine, fencingToken: lease.fencingToken, status: host.status }, 'engine started');
      await ended;
      // Their stops began when the lease was lost; take the lease again only once both are down.
      await sending.stop();
      sendingConfig = sending.config;
      await this.stopHost();
      if (this.stopping) return;
      this.hostStopped = null;
    }
  }

  private async connectNats(): Promise<NatsConnection> {
    const nc = await connect({
      servers: [...this.config.natsServers],
      name: `engine-pod ${this.config.podName}`,
      ...(this.config.natsCredentials === undefined
        ? {}
        : { authenticator: credsAuthenticator(new TextEncoder().encode(this.config.natsCredentials)) }),
      // Replies to this pod's requests come to its session's own prefix, the one its NATS user may read.
      inboxPrefix: INBOX_PREFIXES.engine(this.config.session),
      // NATS is the pod's only way to the world: keep trying rather than exit and be rescheduled.
      maxReconnectAttempts: -1,
      waitOnFirstConnect: true,
      reconnectTimeWait: 1_000,
      ...natsLiveness,
    });
    this.nc = nc;
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === Events.Disconnect || status.type === Events.Reconnect) {
          this.log.warn({ nats: status.type }, `NATS ${status.type}`);
        }
      }
    })();
    void nc.closed().then((error) => {
      if (!this.stopping) void this.terminate(1, `NATS connection closed${error ? `: ${error.message}` : ''}`);
    });
    return nc;
  }

  /**
   * The lease is gone: someone else may connect with these credentials once its ttl has run out.
   * Stop first and at once (the host ignores anything the old engine reports after this), then
   * wait for the lease again (startUp's loop).
   */
  private pause(reason: string): void {
    const sending = this.sending;
    this.sending = null;
    void sending?.stop();
    void this.stopHost();
    this.log.warn({ reason }, 'engine stopped: session lease lost; waiting for it again');
    this.termEnded?.();
    this.termEnded = null;
  }

  /** One stop, however many paths ask for it, so the shutdown can wait for the one under way. */
  private stopHost(): Promise<void> {
    this.hostStarted = false;
    this.hostStopped ??= this.host?.stop() ?? Promise.resolve();
    return this.hostStopped;
  }

  private async terminate(exitCode: number, reason: string): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.log.info({ reason }, 'engine pod stopping');
    this.acquiring.abort();
    this.termEnded?.();
    let code = exitCode;
    try {
      await this.commands?.close();
      await this.sending?.stop();
      await this.stopHost();
      await this.history?.close();
      if (this.publisher && !(await this.publisher.flush(FLUSH_TIMEOUT_MS))) {
        this.log.error({ pending: this.publisher.pending }, 'events not acked before shutdown');
      }
      this.publisher?.close();
      // A lost lease is not ours to delete; a clean stop hands it over without waiting for the ttl.
      if (exitCode === 0) await this.lease?.release();
      await this.health?.close();
      await this.closeNats();
    } catch (error) {
      this.log.error({ err: error }, 'engine pod shutdown failed');
      code = 1;
    }
    this.log.info({ exitCode: code }, 'engine pod stopped');
    this.end(code);
  }

  private async closeNats(): Promise<void> {
    const nc = this.nc;
    if (!nc || nc.isClosed()) return;
    // Draining needs the server; when it is out of reach, just close.
    await deadline(nc.drain(), DRAIN_TIMEOUT_MS).catch(() => nc.close());
  }
}
