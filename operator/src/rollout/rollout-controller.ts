import type { V1Pod } from '@kubernetes/client-node';
import { ConflictError, isDeleting, type ResourceInformer, specOf, type StoredMessagingSession } from '@switchboard/kube';
import { BUILT_ENGINES, type BuiltEngine, enginePodName } from '@switchboard/protocol';
import type { Logger } from 'pino';
import type { EnginePodSettings } from '../config.js';
import type { EventRecorder } from '../event-recorder.js';
import { ownSessionOf } from '../reconcile/own-session.js';
import { isControlledBy, isTerminating } from '../reconcile/pod-state.js';
import { refusalOf } from '../reconcile/refusal.js';
import type { EngineStatusStore } from '../status-events.js';
import { configuredVersion, describeVersion, type EngineVersion, podVersion, sameVersion } from './engine-version.js';
import { countByState, type RolloutState, type SessionRolloutState } from './rollout-state.js';
import type { RolloutStore, StoredRollout } from './rollout-store.js';
import { planRollout, type RolloutChange, type RolloutSettings, type SessionView } from './wave-planner.js';

/** How often the leader plans every engine's rollout: a wave's verdict waits at most this long. */
const PLAN_EVERY_MS = 2_000;

export interface RolloutControllerOptions {
  readonly store: RolloutStore;
  readonly sessions: Pick<ResourceInformer<StoredMessagingSession>, 'list' | 'get'>;
  readonly pods: Pick<ResourceInformer<V1Pod>, 'get'>;
  readonly engines: Pick<EngineStatusStore, 'latest'>;
  readonly podSettings: EnginePodSettings;
  readonly settings: RolloutSettings;
  readonly events: EventRecorder;
  /** Reconciles a session soon: its rollout state changed what its pod should run. */
  readonly enqueue: (resourceName: string) => void;
  readonly log: Logger;
}

/**
 * Rolls a version change through each engine's sessions in waves (wave-planner.ts decides; this
 * reads the caches for it, stores its state, and tells). The reconciler asks `versionFor` which
 * version a session's pod is to run; a session no rollout speaks for keeps what its pod runs, so
 * the release's new version never replaces pods behind the rollout's back.
 */
export class RolloutController {
  private stored = new Map<BuiltEngine, StoredRollout>();
  private loaded = false;
  private timer: NodeJS.Timeout | null = null;
  private planning: Promise<void> = Promise.resolve();

  constructor(private readonly options: RolloutControllerOptions) {}

  /** Reads the stored rollouts (before any reconcile may ask), then plans every 2 s. */
  async start(): Promise<void> {
    await this.stop();
    // Unreadable (no RBAC for ConfigMaps, an API hiccup): every pod keeps what it runs until a pass reads them.
    await this.load().catch((error: unknown) =>
      this.options.log.warn({ err: error }, 'could not read the stored rollouts; pods keep their versions'),
    );
    this.timer = setInterval(() => {
      this.planning = this.planning
        .then(() => this.planAll())
        .catch((error: unknown) => this.options.log.warn({ err: error }, 'rollout planning failed'));
    }, PLAN_EVERY_MS);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.planning;
  }

  /**
   * The version this session's pod is to run as its engine's rollout says, or undefined when no
   * rollout speaks for it (none stored yet, a stored one for another version, a session it has
   * not taken in).
   */
  versionFor(resourceName: string, engine: BuiltEngine): EngineVersion | undefined {
    if (!this.loaded) return undefined;
    const state = this.stored.get(engine)?.state;
    if (!state || !sameVersion(state.to, configuredVersion(engine, this.options.podSettings))) return undefined;
    const entry = state.sessions[resourceName];
    if (!entry) return undefined;
    return entry.state === 'updating' || entry.state === 'updated' ? state.to : entry.from;
  }

  /** Every engine's rollout as last stored: the metrics read it. */
  snapshot(): { engine: BuiltEngine; halted: boolean; sessions: Record<SessionRolloutState, number> }[] {
    return BUILT_ENGINES.map((engine) => {
      const state = this.stored.get(engine)?.state;
      return {
        engine,
        halted: state?.phase === 'Halted',
        sessions: state ? countByState(state) : { pending: 0, updating: 0, updated: 0, rolled_back: 0 },
      };
    });
  }

  private async load(): Promise<void> {
    this.stored = await this.options.store.readAll();
    this.loaded = true;
  }

  /** One planning pass: read what is stored (a deleted ConfigMap restarts its rollout), plan, write, tell. */
  private async planAll(): Promise<void> {
    await this.load();
    const byEngine = new Map<BuiltEngine, StoredMessagingSession[]>();
    for (const resource of this.options.sessions.list()) {
      const engine = engineOf(resource);
      if (engine) byEngine.set(engine, [...(byEngine.get(engine) ?? []), resource]);
    }
    for (const engine of BUILT_ENGINES) {
      const read = this.stored.get(engine);
      const resources = byEngine.get(engine) ?? [];
      if (!read && resources.length === 0) continue;
      const to = configuredVersion(engine, this.options.podSettings);
      const plan = planRollout({
        engine,
        previous: read?.state ?? null,
        to,
        sessions: resources.map((resource) => this.viewOf(resource, engine)),
        settings: this.options.settings,
        now: Date.now(),
      });
      if (!plan.state || (read && JSON.stringify(read.state) === JSON.stringify(plan.state))) continue;
      try {
        this.stored.set(engine, await this.options.store.write(plan.state, read));
      } catch (error) {
        if (error instanceof ConflictError) continue;
        throw error;
      }
      for (const change of plan.changes) this.tell(plan.state, change);
    }
  }

  private viewOf(resource: StoredMessagingSession, engine: BuiltEngine): SessionView {
    const name = resource.metadata.name;
    const pod = this.options.pods.get(enginePodName(name));
    const current = pod && isControlledBy(pod, resource.metadata.uid) && !isTerminating(pod) ? pod : null;
    const session = ownSessionOf(resource);
    const report = session === null ? null : this.options.engines.latest(session);
    const created = current?.metadata?.creationTimestamp;
    return {
      name,
      rollable: rollable(resource),
      podVersion: current ? podVersion(current, engine) : null,
      podCreatedAt: created ? new Date(created).getTime() : null,
      working: resource.status?.status === 'WORKING',
      report: report ? { status: report.status, at: report.at, reason: report.reason ?? null } : null,
    };
  }

  /** Logs, Events on the sessions concerned, and a reconcile for each session whose pod must change. */
  private tell(state: RolloutState, change: RolloutChange): void {
    const { log, events, enqueue, sessions } = this.options;
    const context = { engine: state.engine, from: state.from && describeVersion(state.from), to: describeVersion(state.to) };
    const resource = (name: string) => sessions.get(name);
    switch (change.kind) {
      case 'started':
        log.info({ ...context, sessions: Object.keys(state.sessions).length }, 'engine version rollout started');
        return;
      case 'wave':
        log.info({ ...context, wave: change.wave, sessions: change.sessions }, change.wave === 0 ? 'rollout canary wave' : 'rollout wave');
        for (const name of change.sessions) {
          const target = resource(name);
          if (target)
            events.normal(
              target,
              'RolloutUpdating',
              `Wave ${String(change.wave)} of the ${state.engine} rollout: engine pod replaced to run ${describeVersion(state.to)}`,
            );
          enqueue(name);
        }
        return;
      case 'updated': {
        const target = resource(change.session);
        if (target) events.normal(target, 'RolloutUpdated', `Passed on ${describeVersion(state.to)}`);
        return;
      }
      case 'rolled_back': {
        const target = resource(change.session);
        const from = state.sessions[change.session]?.from;
        const message = `${change.reason}; engine pod made again from ${from ? describeVersion(from) : 'the previous version'}`;
        log.warn({ ...context, resource: change.session, reason: change.reason }, 'rollout: session rolled back');
        if (target) events.warning(target, 'RolloutRolledBack', message);
        enqueue(change.session);
        return;
      }
      case 'halted':
        log.warn({ ...context, message: change.message }, 'engine version rollout halted');
        return;
      case 'complete':
        log.info(context, 'engine version rollout complete');
        return;
      case 'left':
        log.debug({ ...context, resource: change.session }, 'rollout: session left (stopped, pinned or deleted)');
        return;
    }
  }
}

function engineOf(resource: StoredMessagingSession): BuiltEngine | null {
  const engine = (resource.spec as { engine?: unknown } | undefined)?.engine;
  return typeof engine === 'string' && (BUILT_ENGINES as readonly string[]).includes(engine) ? (engine as BuiltEngine) : null;
}

/** A session a rollout may replace: to run, runnable, its own, and not pinned to a version. */
function rollable(resource: StoredMessagingSession): boolean {
  if (isDeleting(resource) || refusalOf(resource) !== null || ownSessionOf(resource) === null) return false;
  const spec = specOf(resource);
  return spec.desiredState === 'Running' && spec.engineVersion === undefined;
}
