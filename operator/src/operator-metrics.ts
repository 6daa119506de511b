import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** How one reconcile of a key ended. */
export type ReconcileOutcome = 'success' | 'conflict' | 'error';

export interface OperatorMetricsSources {
  /** Keys waiting for a worker. */
  readonly queueDepth: () => number;
  /** Whether this replica holds the leader Lease (only the leader reconciles). */
  readonly isLeader: () => boolean;
  /** Each engine's rollout as last stored (rollout/rollout-controller.ts); every engine, none: zeros. */
  readonly rollouts?: () => readonly { engine: string; halted: boolean; sessions: Readonly<Record<string, number>> }[];
}

/**
 * The operator's Prometheus metrics (docs/operations.md lists them), served at `/metrics` by its
 * HTTP endpoint (http-server.ts). Each replica reports its own: the standby ones show leader 0
 * and no reconciles.
 */
export class OperatorMetrics {
  readonly registry = new Registry();
  private readonly reconciles: Counter<'outcome'>;
  private readonly duration: Histogram;
  private readonly forgedEvents: Counter;

  constructor(sources: OperatorMetricsSources, options: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.reconciles = new Counter({
      name: 'switchboard_operator_reconciles_total',
      help: 'Reconciles of MessagingSession keys, by outcome (a conflict or an error requeues the key with backoff)',
      labelNames: ['outcome'],
      registers,
    });
    this.duration = new Histogram({
      name: 'switchboard_operator_reconcile_duration_seconds',
      help: 'Time one reconcile took, whatever its outcome',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.forgedEvents = new Counter({
      name: 'switchboard_operator_forged_events_dropped_total',
      // No session label: this endpoint needs no key, so it names no session (the log does).
      help: "session.status events dropped because their body names another session than their subject's",
      registers,
    });
    new Gauge({
      name: 'switchboard_operator_queue_depth',
      help: 'MessagingSession keys waiting for a worker',
      registers,
      collect() {
        this.set(sources.queueDepth());
      },
    });
    new Gauge({
      name: 'switchboard_operator_leader',
      help: '1 while this replica holds the leader Lease and reconciles, else 0',
      registers,
      collect() {
        this.set(sources.isLeader() ? 1 : 0);
      },
    });
    new Gauge({
      name: 'switchboard_rollout_halted',
      help: "1 while the engine's version rollout is halted (a canary or a wave failed and went back), else 0",
      labelNames: ['engine'],
      registers,
      collect() {
        for (const rollout of sources.rollouts?.() ?? []) this.set({ engine: rollout.engine }, rollout.halted ? 1 : 0);
      },
    });
    new Gauge({
      name: 'switchboard_rollout_sessions',
      help: "Sessions of the engine's version rollout by state: pending, updating, updated, rolled_back",
      labelNames: ['engine', 'state'],
      registers,
      collect() {
        for (const rollout of sources.rollouts?.() ?? []) {
          for (const [state, count] of Object.entries(rollout.sessions)) this.set({ engine: rollout.engine, state }, count);
        }
      },
    });
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  forgedEventDropped(): void {
    this.forgedEvents.inc();
  }

  reconciled(outcome: ReconcileOutcome, seconds: number): void {
    this.reconciles.inc({ outcome });
    this.duration.observe(seconds);
  }
}
