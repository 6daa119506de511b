import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { HoldReason } from './pacing.js';
import type { SendQueueObserver } from './send-pacer.js';

const HOLD_REASONS: readonly HoldReason[] = ['rate', 'warmup'];

/**
 * The paced-sending series, one definition for both modes: the gateway's registry in local mode
 * (GatewayMetrics), the engine pod's in cluster mode (pod-metrics.ts), where the session's queue
 * runs. Same names, labels, help and buckets in both, so one dashboard reads either.
 */
export class SendQueueMetrics implements SendQueueObserver {
  private readonly wait: Histogram<'session'>;
  private readonly heldTotal: Counter<'session' | 'reason'>;

  constructor(private readonly registry: Registry) {
    this.wait = new Histogram({
      name: 'switchboard_send_queue_wait_seconds',
      help: "Paced sending: how long a send waited in its session's queue before it went out",
      labelNames: ['session'],
      // From a send that goes at once to one held by the warm-up's daily cap.
      buckets: [0.01, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400],
      registers: [registry],
    });
    this.heldTotal = new Counter({
      name: 'switchboard_send_queue_held_total',
      help: "Paced sending: sends held for their slot, by what held them (rate: the pause and per-minute limits; warmup: the warm-up's daily cap)",
      labelNames: ['session', 'reason'],
      registers: [registry],
    });
  }

  held(session: string, reason: HoldReason): void {
    this.heldTotal.inc({ session, reason });
  }

  waited(session: string, waitedMs: number): void {
    this.wait.observe({ session }, Math.max(0, waitedMs) / 1000);
  }

  /** `switchboard_send_queue_depth{session}`, read at scrape time from the queues' store. */
  depths(read: () => ReadonlyMap<string, number> | Promise<ReadonlyMap<string, number>>): void {
    new Gauge({
      name: 'switchboard_send_queue_depth',
      help: "Paced sending: the sends waiting in each session's queue",
      labelNames: ['session'],
      registers: [this.registry],
      async collect() {
        const depths = await read();
        this.reset();
        for (const [session, depth] of depths) this.set({ session }, depth);
      },
    });
  }

  /** Drops a deleted session's wait and held series (the depth gauge is read afresh at each scrape). */
  forgetSession(session: string): void {
    this.wait.remove({ session });
    for (const reason of HOLD_REASONS) this.heldTotal.remove({ session, reason });
  }
}
