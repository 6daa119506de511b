/**
 * What delivery code reports, in both modes, for metrics. Calls are cheap and synchronous; the
 * counters a test reads (`counters` on the dispatcher and the worker) are kept beside this.
 */
export interface DeliveryObserver {
  /** A 2xx answer; `latencyMs` from when the event was made (or queued) to that answer. */
  delivered(session: string, latencyMs: number): void;
  /** A failed attempt with another one to come. */
  retried(session: string): void;
  /** The last attempt failed: the delivery is kept as dead. */
  dead(session: string): void;
}

/** Outcome counts since start, read later by the metrics endpoint. */
export interface DeliveryCounters {
  succeeded: number;
  retried: number;
  dead: number;
}

export const NO_DELIVERY_OBSERVER: DeliveryObserver = {
  delivered: () => undefined,
  retried: () => undefined,
  dead: () => undefined,
};
