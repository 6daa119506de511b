import type { Registry } from 'prom-client';

/** Where an event was delivered: a webhook's 2xx answer, or a send to a `/ws` client. */
export type DeliveryChannel = 'webhook' | 'ws';

const NAME = 'switchboard_event_lag_seconds';
const HELP = "Delivery time minus the event's timestamp, by session and channel (webhook: the 2xx answer; ws: the send)";
/** From a local receiver (ms) to a retry schedule's hour, as the webhook latency's. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];

interface Series {
  /** Per bucket, not cumulative; the last one counts what no bucket holds (+Inf). */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * The event lag histogram, observed on the event path (every /ws send): kept as plain numbers per
 * session and channel and given to the registry only when scraped, as ScrapeTimeCounter does;
 * prom-client's `observe` builds and hashes a label object at every call. An observation
 * allocates nothing once the session's series exist.
 */
export class EventLagHistogram {
  readonly name = NAME;
  readonly help = HELP;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly sessions = new Map<string, Record<DeliveryChannel, Series>>();

  constructor(registry: Registry) {
    // The registry's own metric protocol: a name and get(); prom-client's classes implement it the same way.
    registry.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  observe(session: string, channel: DeliveryChannel, lagMs: number): void {
    let series = this.sessions.get(session);
    if (!series) {
      series = { webhook: newSeries(), ws: newSeries() };
      this.sessions.set(session, series);
    }
    const one = series[channel];
    const seconds = Math.max(0, lagMs) / 1000;
    let bucket = 0;
    while (bucket < BUCKETS.length && seconds > BUCKETS[bucket]!) bucket++;
    one.counts[bucket]!++;
    one.sum += seconds;
    one.count++;
  }

  forgetSession(session: string): void {
    this.sessions.delete(session);
  }

  reset(): void {
    this.sessions.clear();
  }

  get(): {
    name: string;
    help: string;
    type: string;
    aggregator: string;
    values: { labels: Record<string, string | number>; value: number; metricName: string }[];
  } {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const [session, channels] of this.sessions) {
      for (const channel of ['webhook', 'ws'] as const) {
        const { counts, sum, count } = channels[channel];
        if (count === 0) continue;
        let cumulative = 0;
        BUCKETS.forEach((le, index) => {
          cumulative += counts[index]!;
          values.push({ labels: { le, session, channel }, value: cumulative, metricName: `${NAME}_bucket` });
        });
        values.push({ labels: { le: '+Inf', session, channel }, value: count, metricName: `${NAME}_bucket` });
        values.push({ labels: { session, channel }, value: sum, metricName: `${NAME}_sum` });
        values.push({ labels: { session, channel }, value: count, metricName: `${NAME}_count` });
      }
    }
    return { name: NAME, help: HELP, type: this.type, aggregator: this.aggregator, values };
  }
}

function newSeries(): Series {
  return { counts: new Float64Array(BUCKETS.length + 1), sum: 0, count: 0 };
}
