import { hostname } from 'node:os';
import { OutboundPolicy } from '@switchboard/kube/pod';
import {
  type AppConfig,
  type EngineCommand,
  type EngineLibraryVersions,
  type EngineName,
  type EngineSettings,
  ENGINE_CATALOG,
  type Environment,
  type EventEnvelope,
  type EventName,
  type MeInfo,
  isBuiltEngine,
  RECENT_STATUSES,
  type SessionStatus,
  type SessionStatusPoint,
  withMediaUrl,
} from '@switchboard/protocol';
import type { AuthStateStore } from './auth-state/store.js';
import { SessionApps } from './apps/session-apps.js';
import { COMMAND_HANDLERS } from './dispatch/index.js';
import { chromiumPathFromEnv } from './engines/webjs/chromium-path.js';
import type { CommandHandler } from './dispatch/types.js';
import { requireSupport } from './dispatch/support.js';
import { notSupportedError, statusesNeededBy, wrongStatusError } from './command-rules.js';
import type { Engine, EngineFactory, EngineLog } from './engine.js';
import { newEventId } from './event-ids.js';
import { eventIssues, type InvalidEvent } from './event-validator.js';
import { DEFAULT_MEDIA_MAX_BYTES } from './media/media-limit.js';
import type { MediaStore, StoredMedia } from './media/media-store.js';
import { type Downloads, lazyGuardedAgent } from './outbound/downloads.js';

/** An envelope and its JSON, serialized once so every consumer sends the same bytes. */
export interface HostedEvent {
  readonly envelope: EventEnvelope;
  readonly json: string;
}

/**
 * Serializes on first use: an event no webhook and no websocket client wants is never turned
 * into JSON. Consumers must not change the envelope, which they all share.
 */
class LazyJsonEvent implements HostedEvent {
  private serialized: string | undefined;

  constructor(readonly envelope: EventEnvelope) {}

  get json(): string {
    this.serialized ??= JSON.stringify(this.envelope);
    return this.serialized;
  }
}

export interface EngineHostOptions {
  readonly session: string;
  readonly engine: EngineName;
  readonly factory: EngineFactory;
  readonly authState: AuthStateStore;
  readonly metadata: Record<string, string>;
  /** The session's apps (spec 2.3); none when left out. */
  readonly apps?: readonly AppConfig[];
  /** What of the session's config the engine reads when it starts (proxy, ignore...); none when left out. */
  readonly settings?: EngineSettings;
  /** The build's tier and version, and (cluster mode) the engine pod running the session. */
  readonly environment: { tier: string; version: string; worker?: string };
  /** Gets every event that matches its protocol schema, and only those (`emit`). */
  readonly publish: (event: HostedEvent) => void;
  readonly log: EngineLog;
  /** Told of each event dropped for not matching its schema, after it is logged (local mode counts them). */
  readonly onInvalidEvent?: (invalid: InvalidEvent) => void;
  /**
   * Where media goes, the download address of a stored file, and the largest received file kept
   * (default DEFAULT_MEDIA_MAX_BYTES); none in some unit tests.
   */
  readonly media?: { readonly store: MediaStore; urlFor(stored: StoredMedia): string; readonly maxBytes?: number };
  /**
   * The agent files sent by URL are downloaded with, guarded by the configured outbound address
   * policy (`guardedAgent`, or `lazyGuardedAgent` to load undici only when a file is downloaded). Left out: one guarded by the built-in rules only.
   */
  readonly downloads?: Downloads;
  /**
   * Cluster mode: whether this pod holds the session's lease (invariant 1). A start while it does
   * not leaves the engine stopped, whoever asks for it (a logout's restart that outlived the lease).
   */
  readonly mayConnect?: () => boolean;
}

function isGroupAck(payload: Record<string, unknown>): boolean {
  return typeof payload.participant === 'string' && typeof payload.from === 'string' && payload.from.endsWith('@g.us');
}

/** Spec 2.4's `environment` of every event this host makes. */
function hostEnvironment(engine: EngineName, { tier, version, worker }: EngineHostOptions['environment']): Environment {
  const browser = isBuiltEngine(engine) && ENGINE_CATALOG[engine].image === 'browser' ? chromiumPathFromEnv(process.env) : undefined;
  return Object.freeze({
    tier,
    version,
    engine,
    ...(browser ? { browser } : {}),
    platform: `${process.platform}/${process.arch}`,
    // Without a pod of its own, the engine runs in this process: the host name, as GET /api/server/version names it.
    worker: Object.freeze({ id: worker ?? hostname() }),
  });
}

/** For hosts given no agent of their own: the built-in rules, one agent shared. */
let builtInDownloads: Downloads | undefined;

/**
 * Runs one session's engine: takes commands in, sends normalized events out in the envelope of
 * spec 2.4. It owns what every engine shares: the status and its recent history, the account
 * (`me`), the event ids, and which status each command needs. Local mode hosts these in the
 * gateway process; in cluster mode each engine pod runs exactly one.
 */
export class EngineHost {
  private engine: Engine | null = null;
  /** The engine whose stop is under way: its events still go out until its stop returns. */
  private stopping: Engine | null = null;
  private current: SessionStatus = 'STOPPED';
  private recent: SessionStatusPoint[] = [];
  private account: MeInfo | null = null;
  private running: EngineLibraryVersions | null = null;
  private failure: string | null = null;
  private metadata: Record<string, string>;
  private lastActivity: number | null = null;
  private readonly environment: EventEnvelope['environment'];
  private readonly apps: SessionApps;

  constructor(private readonly options: EngineHostOptions) {
    // Frozen, like the account: every envelope shares them, and eventIssues checks a frozen one once.
    this.metadata = Object.freeze({ ...options.metadata });
    this.environment = hostEnvironment(options.engine, options.environment);
    this.apps = new SessionApps(options.apps ?? [], { session: options.session, log: options.log });
  }

  get status(): SessionStatus {
    return this.current;
  }

  /** The recent statuses, oldest first, as `session.status` events carry them. */
  get statuses(): readonly SessionStatusPoint[] {
    return this.recent;
  }

  get me(): MeInfo | null {
    return this.account;
  }

  /** What the engine last said it runs (library, client version); null before it has. */
  get versions(): EngineLibraryVersions | null {
    return this.running;
  }

  /** Why the session is FAILED; null in every other status. */
  get failureReason(): string | null {
    return this.failure;
  }

  get activity(): number | null {
    return this.lastActivity;
  }

  private get mediaMaxBytes(): number {
    return this.options.media?.maxBytes ?? DEFAULT_MEDIA_MAX_BYTES;
  }

  get engineName(): EngineName {
    return this.options.engine;
  }

  /** Metadata changes apply to the next event, no restart needed. */
  setMetadata(metadata: Record<string, string>): void {
    this.metadata = Object.freeze({ ...metadata });
  }

  /** App changes apply from the next event, no restart needed. */
  setApps(apps: readonly AppConfig[]): void {
    this.apps.set(apps);
  }

  /**
   * Idempotent: starting a running session changes nothing (spec part 3, rule 1). A FAILED
   * engine has given up, so start replaces it with a new one that tries again.
   */
  async start(): Promise<void> {
    if (this.engine && this.current !== 'FAILED') return;
    if (this.engine) await this.stop();
    if (this.options.mayConnect?.() === false) {
      this.options.log.warn({ session: this.options.session }, 'engine not started: this pod does not hold the session lease');
      return;
    }
    // The new engine says again what it runs; until it has, nothing stale.
    this.running = null;
    const engine = this.options.factory({
      session: this.options.session,
      settings: this.options.settings ?? {},
      authState: this.options.authState,
      log: this.options.log,
      setStatus: (status, reason) => {
        if (this.engine === engine) this.setStatus(status, reason);
      },
      setMe: (me) => {
        if (this.engine === engine) this.account = me && Object.freeze({ ...me });
      },
      setVersions: (versions) => {
        if (this.engine === engine) this.running = Object.freeze({ ...versions });
      },
      emit: (event, payload) => {
        // The engine being stopped may still tell what happened before (its last acknowledgements).
        if (this.engine !== engine && this.stopping !== engine) return;
        if (this.emit(event, payload)) this.apps.observe(engine, event, payload);
        // A member's acknowledgement in a group is `message.ack` (spec 6.2), and `message.ack.group` too.
        if (event === 'message.ack' && isGroupAck(payload)) this.emit('message.ack.group', payload);
      },
      saveMedia: async (file) => {
        const media = this.options.media;
        if (!media) return null;
        const stored = await media.store.put(this.options.session, file);
        return { url: media.urlFor(stored), mimetype: stored.mimetype, filename: stored.filename };
      },
      saveMediaStream: async (file, data) => {
        const media = this.options.media;
        if (!media) {
          // Nothing reads the download: close it rather than leave it open.
          await data[Symbol.asyncIterator]().return?.();
          return null;
        }
        const stored = await media.store.putStream(this.options.session, file, data);
        return { url: media.urlFor(stored), mimetype: stored.mimetype, filename: stored.filename };
      },
      mediaMaxBytes: this.mediaMaxBytes,
    });
    this.engine = engine;
    this.setStatus('STARTING');
    try {
      await engine.start();
    } catch (error) {
      this.options.log.error({ session: this.options.session, err: error }, 'engine failed to start');
      this.setStatus('FAILED', `the engine failed to start: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Idempotent (spec part 3, rule 2). Keeps the auth state: the next start needs no pairing. */
  async stop(): Promise<void> {
    const engine = this.engine;
    if (!engine) return;
    this.engine = null;
    this.stopping = engine;
    try {
      await engine.stop();
    } finally {
      this.stopping = null;
      this.setStatus('STOPPED');
    }
  }

  /** Unpairs. The caller decides whether to start again (spec part 3, rule 4). */
  async logout(): Promise<void> {
    if (this.engine) await this.engine.logout();
    else await this.options.authState.clear();
    this.account = null;
  }

  async execute(command: EngineCommand): Promise<unknown> {
    if (command.op === 'me') return this.account;
    const refused = notSupportedError(this.options.session, this.options.engine, command);
    if (refused) throw refused;
    const engine = this.engine;
    if (engine) requireSupport(engine, command, this.options.session);
    if (!engine || !statusesNeededBy(command.op).includes(this.current)) {
      throw wrongStatusError(this.options.session, this.current, command.op);
    }
    // The union of handlers is too wide for TS to pair each with its own command type.
    const handler = COMMAND_HANDLERS[command.op] as CommandHandler<typeof command.op>;
    const downloads = this.options.downloads ?? (builtInDownloads ??= lazyGuardedAgent(new OutboundPolicy()));
    return withMediaUrl(await handler(engine, command, this.options.session, downloads));
  }

  private setStatus(status: SessionStatus, reason?: string): void {
    const previous = this.current;
    this.current = status;
    this.failure = status === 'FAILED' ? (reason ?? 'the engine reported FAILED') : null;
    this.recent = [...this.recent, { status, timestamp: Date.now() }].slice(-RECENT_STATUSES);
    // The session's lifecycle at the default level: what an operator reads first when a session is stuck.
    if (this.failure) this.options.log.warn({ session: this.options.session, previous, reason: this.failure }, 'session FAILED');
    else if (status !== previous) this.options.log.info({ session: this.options.session, previous, status }, `session ${status}`);
    // A STARTING may say why the engine reconnects (a silent connection: connection-silence.ts).
    const said = this.failure ?? (status === 'STARTING' ? reason : undefined);
    this.emit('session.status', {
      name: this.options.session,
      status,
      statuses: this.recent,
      ...(said ? { reason: said } : {}),
      ...(this.running ? { versions: this.running } : {}),
    });
  }

  /**
   * Makes the event's envelope and hands it on, if it matches its protocol schema: the one check
   * every event gets, in both modes, before anything records it (history, event log, outbox) or
   * delivers it (webhooks, /ws, the NATS stream). One that does not is logged, reported and
   * dropped; false tells the caller so.
   */
  private emit(event: EventName, payload: Record<string, unknown>): boolean {
    const timestamp = Date.now();
    this.lastActivity = timestamp;
    const envelope: EventEnvelope = {
      id: newEventId(timestamp),
      timestamp,
      event,
      session: this.options.session,
      metadata: this.metadata,
      // Always present as a key, undefined unless WORKING: one object shape for every event,
      // and JSON leaves an undefined member out, as spec 2.4 asks.
      me: this.current === 'WORKING' && this.account ? this.account : undefined,
      payload: withMediaUrl(payload),
      environment: this.environment,
      engine: this.options.engine,
    };
    const issues = eventIssues(envelope);
    if (issues) {
      const invalid: InvalidEvent = { id: envelope.id, session: envelope.session, event: envelope.event, issues };
      this.options.log.warn(
        { eventId: invalid.id, session: invalid.session, event: invalid.event, issues },
        'event does not match its protocol schema; dropped, neither recorded nor delivered',
      );
      this.options.onInvalidEvent?.(invalid);
      return false;
    }
    this.options.publish(new LazyJsonEvent(envelope));
    return true;
  }
}
