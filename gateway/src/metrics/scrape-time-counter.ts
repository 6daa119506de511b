import { Counter, type Registry } from 'prom-client';

/**
 * A Prometheus counter for the event path, where it counts several times per API call: it adds
 * to a plain map keyed by its label values, and gives prom-client the totals only when scraped.
 * prom-client's own `inc` hashes and validates the label object at every call, which cost the
 * event loop more than the rest of the counting (sendText benchmark profile).
 *
 * Label values are given in the order of `labelNames`.
 */
export class ScrapeTimeCounter<L extends string> {
  private readonly totals = new Map<string, { readonly labels: Record<L, string>; count: number }>();
  private readonly labelNames: readonly L[];

  constructor(options: { name: string; help: string; labelNames: readonly L[]; registry: Registry }) {
    const { labelNames } = options;
    const totals = this.totals;
    new Counter<L>({
      name: options.name,
      help: options.help,
      labelNames,
      registers: [options.registry],
      collect() {
        this.reset();
        for (const { labels, count } of totals.values()) this.inc(labels, count);
      },
    });
    this.labelNames = labelNames;
  }

  /** Drops every series whose label `name` is `value` (a deleted session's). */
  removeWhere(name: L, value: string): void {
    for (const [key, total] of this.totals) if (total.labels[name] === value) this.totals.delete(key);
  }

  inc(...values: string[]): void {
    // A separator no label value here holds (session names, event names and statuses are printable).
    const key = values.length === 1 ? values[0]! : values.join('\u0000');
    const total = this.totals.get(key);
    if (total) {
      total.count++;
      return;
    }
    const labels = {} as Record<L, string>;
    this.labelNames.forEach((name, index) => (labels[name] = values[index]!));
    this.totals.set(key, { labels, count: 1 });
  }
}
