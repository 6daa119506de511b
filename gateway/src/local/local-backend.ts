import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { EngineHost, type EngineHostOptions, type EngineLog, FileAuthStateStore, type HostedEvent, tighten } from '@switchboard/engine-pod';
import {
  type AppConfig,
  type BuiltEngine,
  CLIENT_VERSION_ENGINES,
  type EngineCommand,
  type EngineName,
  engineSettingsOf,
  makesEvents,
  type SessionConfig,
  type SessionCreateRequest,
  type SessionDTO,
  type SessionInfo,
  type SessionStartDeprecatedRequest,
  type SessionStatus,
  type SessionUpdateRequest,
  type WebhookConfig,
} from '@switchboard/protocol';
import { ApiError, SessionExists } from '../http/errors.js';
import type { CommitGate } from './store/commit-gate.js';
import type { SessionBackend } from '../sessions/backend.js';
import { maskSessionConfig, restoreSessionConfigSecrets } from '../sessions/config-secrets.js';
import { appsToCheck, requireEngine, requireOperation } from '../sessions/engine-catalog.js';
import { AppliedVersions } from './applied-versions.js';
import type { EngineFactories } from './engine-factories.js';
import { type LocalRolloutPlan, type RollableSessions, rollLocally } from './local-rollout.js';
import { KeyedMutex } from './keyed-mutex.js';
import type { SessionRecord, SessionRegistry } from './session-registry.js';

export interface LocalBackendOptions {
  readonly registry: SessionRegistry;
  readonly engines: EngineFactories;
  readonly defaultEngine: EngineName;
  readonly dataDir: string;
  readonly environment: { tier: string; version: string };
  /** Every event the engine hosts make; each host has already dropped the ones that do not match their schema. */
  readonly publish: (event: HostedEvent) => void;
  readonly log: EngineLog;
  /** Told of each event a host dropped for not matching its schema. */
  readonly onInvalidEvent?: EngineHostOptions['onInvalidEvent'];
  /** Where engines keep media, and its download address. */
  readonly media?: EngineHostOptions['media'];
  /** The agent files sent by URL are downloaded with (guarded by the outbound address policy). */
  readonly downloads?: EngineHostOptions['downloads'];
  /** Forgets what was kept of an account beside its auth state (history, media): on logout and delete. */
  readonly forget?: (session: string) => Promise<void>;
  /**
   * Drops what belongs to a session being deleted and not to its name: its queued and dead
   * deliveries, its event log. Called before its record goes, so that a crash in between cannot
   * hand them to a session made again with the name.
   */
  readonly ending?: (session: string) => Promise<void>;
  /**
   * Engine commands that may make events (sends, simulations; not the reads, `makesEvents`) run
   * through it: 507 when their events cannot be committed (store/commit-gate.ts).
   */
  readonly commits?: Pick<CommitGate, 'guard'>;
  /** Told of each session deleted, once it is gone (its metric series go with it). */
  readonly deleted?: (session: string) => void;
  /**
   * Each socket engine's client version (SWITCHBOARD_<ENGINE>_CLIENT_VERSION, as its engine read
   * it); a change since the last start is rolled onto the running sessions one at a time
   * (local-rollout.ts). Unset for an engine: its library's.
   */
  readonly clientVersions?: Partial<Record<BuiltEngine, string>>;
  /** How long each session has to pass on a new client version; default 300 s. */
  readonly rolloutWorkingTimeoutMs?: number;
}

const DEFAULT_ROLLOUT_WORKING_TIMEOUT_MS = 300_000;

/** Under the data dir: one dir per session, holding its engine's auth state. */
const SESSIONS_DIR = 'sessions';

/** Local mode: sessions in SQLite, one EngineHost per session in this process. */
export class LocalSessionBackend implements SessionBackend, RollableSessions {
  private readonly hosts = new Map<string, EngineHost>();
  private readonly lock = new KeyedMutex();
  /** Sessions held on their previous client version until a version change reaches them. */
  private readonly held = new Map<string, string>();
  private rolling: Promise<void> = Promise.resolve();
  private closing = false;

  constructor(private readonly options: LocalBackendOptions) {
    requireEngine(options.defaultEngine);
    // Engine state is the accounts' credentials: state an earlier build left readable is made private.
    tighten(join(options.dataDir, SESSIONS_DIR));
  }

  /**
   * Starts again the sessions that were running when the process stopped. When an engine's client
   * version changed since, they start on the one they ran, and are then restarted onto the new one
   * one at a time, in the background (local-rollout.ts).
   */
  async resume(): Promise<void> {
    const running = this.options.registry.all().filter((record) => record.running);
    const plans = this.versionChanges(running);
    await Promise.all(running.map((record) => this.lock.run(record.name, () => this.hostFor(record).start())));
    const applied = new AppliedVersions(this.options.dataDir);
    this.rolling = (async () => {
      for (const plan of plans) {
        const result = await rollLocally(plan, this, {
          timeoutMs: this.options.rolloutWorkingTimeoutMs ?? DEFAULT_ROLLOUT_WORKING_TIMEOUT_MS,
          log: this.options.log,
          closing: () => this.closing,
        });
        if (result.outcome === 'complete') applied.set(plan.engine, plan.to);
      }
    })().catch((error: unknown) => this.options.log.error({ err: error }, 'client version change failed'));
  }

  /**
   * Each socket engine whose client version is not the one its sessions last ran on: the running
   * sessions without a version of their own are held on the old one. The first start that records
   * it (or an old version that was the library's own, which no setting can name) has none to hold
   * them on: they start on the new one at once.
   */
  private versionChanges(running: readonly SessionRecord[]): LocalRolloutPlan[] {
    const applied = new AppliedVersions(this.options.dataDir);
    const plans: LocalRolloutPlan[] = [];
    for (const engine of CLIENT_VERSION_ENGINES) {
      const to = this.options.clientVersions?.[engine] ?? null;
      const from = applied.get(engine);
      if (from === to) continue;
      const sessions = running.filter((record) => record.engine === engine && !record.config.clientVersion).map((record) => record.name);
      if (from === undefined || from === null || sessions.length === 0) {
        applied.set(engine, to);
        continue;
      }
      for (const name of sessions) this.held.set(name, from);
      plans.push({ engine, from, to, sessions });
    }
    return plans;
  }

  statusOf(name: string): SessionStatus | null {
    if (!this.options.registry.get(name)?.running) return null;
    return this.hosts.get(name)?.status ?? null;
  }

  /** Makes the session's host again on a client version (null: the engine's), if it still runs. */
  restartOn(name: string, clientVersion: string | null): Promise<void> {
    return this.lock.run(name, async () => {
      const record = this.options.registry.get(name);
      if (this.closing || !record?.running) return;
      if (clientVersion === null) this.held.delete(name);
      else this.held.set(name, clientVersion);
      await this.hosts.get(name)?.stop();
      this.hosts.delete(name);
      await this.hostFor(record).start();
    });
  }

  async list({ all, expandApps }: { all: boolean; expandApps: boolean }): Promise<SessionInfo[]> {
    return this.options.registry
      .all()
      .map((record) => this.info(record, expandApps))
      .filter((info) => all || info.status !== 'STOPPED');
  }

  async get(name: string, { expandApps }: { expandApps: boolean }): Promise<SessionInfo> {
    return this.info(this.record(name), expandApps);
  }

  create(request: SessionCreateRequest): Promise<SessionDTO> {
    return this.lock.run(request.name, async () => {
      if (this.options.registry.get(request.name)) {
        throw new SessionExists(request.name);
      }
      const engine = request.engine ?? this.options.defaultEngine;
      requireEngine(engine, request.config, request.apps ?? []);
      const record: SessionRecord = {
        name: request.name,
        engine,
        config: restoreSessionConfigSecrets(request.config ?? {}, undefined),
        apps: request.apps ?? [],
        running: request.start,
        createdAt: Date.now(),
      };
      this.options.registry.save(record);
      if (request.start) await this.hostFor(record).start();
      return this.dto(record);
    });
  }

  update(name: string, request: SessionUpdateRequest): Promise<SessionDTO> {
    if (request.name !== undefined && request.name !== name) {
      throw new ApiError(400, `the body names session '${request.name}' but the path names '${name}'; sessions cannot be renamed`, [
        { path: 'body.name', reason: 'must match the session in the path' },
      ]);
    }
    return this.lock.run(name, async () => {
      const updated = await this.applyUpdate(this.record(name), request);
      return request.start ? this.startLocked(name) : updated;
    });
  }

  upsertAndStart(request: SessionStartDeprecatedRequest): Promise<SessionDTO> {
    return this.lock.run(request.name, async () => {
      const existing = this.options.registry.get(request.name);
      if (existing) await this.applyUpdate(existing, request);
      else {
        const engine = request.engine ?? this.options.defaultEngine;
        requireEngine(engine, request.config, request.apps ?? []);
        this.options.registry.save({
          name: request.name,
          engine,
          config: restoreSessionConfigSecrets(request.config ?? {}, undefined),
          apps: request.apps ?? [],
          running: true,
          createdAt: Date.now(),
        });
      }
      return this.startLocked(request.name);
    });
  }

  delete(name: string): Promise<void> {
    return this.lock.run(name, async () => {
      const record = this.options.registry.get(name);
      if (!record) return;
      const host = this.hostFor(record);
      await host.stop();
      await host.logout();
      this.hosts.delete(name);
      await this.options.ending?.(name);
      this.options.registry.delete(name);
      await this.options.forget?.(name);
      await rm(this.sessionDir(name), { recursive: true, force: true });
      this.options.deleted?.(name);
    });
  }

  start(name: string): Promise<SessionDTO> {
    return this.lock.run(name, () => this.startLocked(name));
  }

  stop(name: string): Promise<SessionDTO> {
    return this.lock.run(name, async () => {
      const record = this.setRunning(this.record(name), false);
      await this.hostFor(record).stop();
      return this.dto(record);
    });
  }

  restart(name: string): Promise<SessionDTO> {
    return this.lock.run(name, async () => {
      const record = this.setRunning(this.record(name), true);
      const host = this.hostFor(record);
      await host.stop();
      await host.start();
      return this.dto(record);
    });
  }

  logout(name: string): Promise<SessionDTO> {
    return this.lock.run(name, async () => {
      const record = this.record(name);
      const host = this.hostFor(record);
      const wasRunning = host.status !== 'STOPPED';
      await host.logout();
      await this.options.forget?.(name);
      if (wasRunning) {
        await host.stop();
        await host.start();
      }
      return this.dto(record);
    });
  }

  async command(name: string, command: EngineCommand): Promise<unknown> {
    const record = this.record(name);
    requireOperation(name, record.engine, command);
    const host = this.hostFor(record);
    const { commits } = this.options;
    // A read stores nothing: it is served while events cannot be stored.
    return commits && makesEvents(command.op) ? commits.guard(() => host.execute(command)) : host.execute(command);
  }

  webhooksOf(name: string): readonly WebhookConfig[] {
    return this.options.registry.get(name)?.config.webhooks ?? [];
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.rolling;
    await Promise.all([...this.hosts.values()].map((host) => host.stop()));
  }

  private async startLocked(name: string): Promise<SessionDTO> {
    const record = this.setRunning(this.record(name), true);
    await this.hostFor(record).start();
    return this.dto(record);
  }

  private async applyUpdate(
    record: SessionRecord,
    request: { engine?: EngineName; config?: SessionConfig; apps?: AppConfig[] | null },
  ): Promise<SessionDTO> {
    const engine = request.engine ?? record.engine;
    requireEngine(engine, request.config ?? record.config, appsToCheck(request, engine, record));
    const updated: SessionRecord = {
      ...record,
      engine,
      config: request.config ? restoreSessionConfigSecrets(request.config, record.config) : record.config,
      apps: request.apps === undefined ? record.apps : (request.apps ?? []),
    };
    this.options.registry.save(updated);
    const host = this.hosts.get(record.name);
    if (host && (host.engineName !== engine || !sameEngineSettings(record.config, updated.config))) {
      // A different engine, or other engine settings (proxy, ignore...), is a different
      // connection: replace the host, keep the session running.
      const wasRunning = host.status !== 'STOPPED';
      await host.stop();
      this.hosts.delete(record.name);
      if (wasRunning) await this.hostFor(updated).start();
    } else {
      host?.setMetadata(updated.config.metadata ?? {});
      host?.setApps(updated.apps);
    }
    return this.dto(updated);
  }

  private record(name: string): SessionRecord {
    const record = this.options.registry.get(name);
    if (!record) throw ApiError.notFound(name);
    return record;
  }

  private setRunning(record: SessionRecord, running: boolean): SessionRecord {
    if (record.running === running) return record;
    const updated = { ...record, running };
    this.options.registry.save(updated);
    return updated;
  }

  private hostFor(record: SessionRecord): EngineHost {
    let host = this.hosts.get(record.name);
    if (!host) {
      host = new EngineHost({
        session: record.name,
        engine: record.engine,
        factory: this.options.engines[requireEngine(record.engine)],
        authState: new FileAuthStateStore(join(this.sessionDir(record.name), 'auth')),
        metadata: record.config.metadata ?? {},
        apps: record.apps,
        settings: this.settingsOf(record),
        environment: this.options.environment,
        publish: this.options.publish,
        log: this.options.log,
        onInvalidEvent: this.options.onInvalidEvent,
        ...(this.options.media ? { media: this.options.media } : {}),
        ...(this.options.downloads ? { downloads: this.options.downloads } : {}),
      });
      this.hosts.set(record.name, host);
    }
    return host;
  }

  /** Its config's engine settings; held on a previous client version, that one (its own config.clientVersion wins). */
  private settingsOf(record: SessionRecord): ReturnType<typeof engineSettingsOf> {
    const settings = engineSettingsOf(record.config);
    const held = this.held.get(record.name);
    return held !== undefined && settings.clientVersion === undefined ? { ...settings, clientVersion: held } : settings;
  }

  private sessionDir(name: string): string {
    return join(this.options.dataDir, SESSIONS_DIR, name);
  }

  private dto(record: SessionRecord): SessionDTO {
    return {
      name: record.name,
      status: this.hosts.get(record.name)?.status ?? 'STOPPED',
      engine: record.engine,
      config: maskSessionConfig(record.config),
    };
  }

  private info(record: SessionRecord, expandApps: boolean): SessionInfo {
    const host = this.hosts.get(record.name);
    return {
      ...this.dto(record),
      me: host?.me ?? null,
      ...(expandApps ? { apps: record.apps } : {}),
      presence: {},
      timestamps: { activity: host?.activity ?? null },
      ...(host?.failureReason ? { reason: host.failureReason } : {}),
      // The engine runs in this process: no image.
      ...(host?.versions ? { versions: { image: null, ...host.versions } } : {}),
    };
  }
}

/** Whether the settings an engine reads when it starts (proxy, ignore, client, noweb) are the same. */
function sameEngineSettings(a: SessionConfig, b: SessionConfig): boolean {
  return isDeepStrictEqual(engineSettingsOf(a), engineSettingsOf(b));
}
