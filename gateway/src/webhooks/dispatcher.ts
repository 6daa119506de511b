import type { Logger } from 'pino';
import { type DeliveryObserver, NO_DELIVERY_OBSERVER } from './delivery-observer.js';
import { retryAfterFailure, WebhookSender } from './http-delivery.js';
import { logUrl } from './log-url.js';
import type { DeliveryRow, WebhookOutbox } from './outbox.js';

/** Outcome counts since start, read later by the metrics endpoint. */
export interface DeliveryCounters {
  succeeded: number;
  retried: number;
  dead: number;
}

export interface WebhookDispatcherOptions {
  readonly outbox: WebhookOutbox;
  readonly log: Logger;
  /** Told of each outcome, for metrics. */
  readonly observer?: DeliveryObserver;
  /** Per request, until the response status arrives. */
  readonly timeoutMs?: number;
  /** Requests in flight at once, over all targets. */
  readonly concurrency?: number;
  readonly now?: () => number;
  /**
   * Fallback look at the outbox. Every enqueue kicks and every retry sets a timer, so this only
   * matters if something was missed (a failed database read, rows written by another writer).
   */
  readonly pollIntervalMs?: number;
  /** How long delivered rows may wait to be deleted together. */
  readonly clearEveryMs?: number;
}

/**
 * Sends due outbox rows by HTTP POST. Each target key is a queue with at most one request in
 * flight, its oldest row first, so one webhook sees a session's events in order; different keys
 * run side by side, so a slow or dead receiver only holds up its own queue.
 *
 * Two ways to find work. The full look (`pump`) asks the outbox for the heads of every queue that
 * are due: at start, on timers, and whenever more was due than there were free slots (a
 * backlog). Otherwise a queue that just finished, or was just written to, looks only at its own
 * next rows, read a few at a time (`READ_AHEAD`) with one index probe.
 *
 * Delivered rows are deleted together, every `clearEveryMs` (10 ms), rather than one commit
 * each: a commit costs about as much as a delivery. A crash before that leaves them pending, and
 * they are sent again: at least once, as promised, and each queue's first deliveries still come
 * in order.
 */
/** Rows of one queue read at once; the next ones are sent from memory. */
const READ_AHEAD = 16;

export class WebhookDispatcher {
  readonly counters: DeliveryCounters = { succeeded: 0, retried: 0, dead: 0 };

  private readonly outbox: WebhookOutbox;
  private readonly log: Logger;
  private readonly observer: DeliveryObserver;
  private readonly sender: WebhookSender;
  private readonly concurrency: number;
  private readonly now: () => number;
  private readonly pollIntervalMs: number;
  private readonly clearEveryMs: number;
  /** Target key → its running delivery; the keys double as the exclusion list for `takeDue`. */
  private readonly inFlight = new Map<string, Promise<void>>();
  /**
   * Delivered, not deleted yet, with the latency of each; and per key the last one (its next row
   * comes after it). Counters and the observer learn of a delivery once its row is deleted.
   */
  private delivered: { row: DeliveryRow; latencyMs: number }[] = [];
  private readonly deliveredUpTo = new Map<string, number>();
  /** Per key, its next pending rows as last read, oldest first; dropped when they may be stale. */
  private readonly ahead = new Map<string, DeliveryRow[]>();
  private backlog = false;
  private running = false;
  private kicked: Set<string> | 'all' | null = null;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;

  constructor(options: WebhookDispatcherOptions) {
    this.outbox = options.outbox;
    this.log = options.log;
    this.observer = options.observer ?? NO_DELIVERY_OBSERVER;
    this.concurrency = options.concurrency ?? 64;
    this.now = options.now ?? Date.now;
    this.sender = new WebhookSender({ timeoutMs: options.timeoutMs, now: this.now });
    this.pollIntervalMs = options.pollIntervalMs ?? 5_000;
    this.clearEveryMs = options.clearEveryMs ?? 10;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.pump();
  }

  /**
   * Wakes the dispatcher after an enqueue to `keys` (every queue when left out). Deferred to the
   * next turn so the engine call that published the event is not slowed by a database read, and
   * a burst of events costs one look per queue.
   */
  kick(keys?: Iterable<string>): void {
    if (!this.running) return;
    if (this.kicked === null) {
      setImmediate(() => this.onKick());
      this.kicked = new Set();
    }
    if (keys === undefined) this.kicked = 'all';
    if (this.kicked !== 'all') for (const key of keys ?? []) this.kicked.add(key);
  }

  /** Takes no new work and waits for the requests in flight, each bounded by its timeout. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await Promise.all(this.inFlight.values());
    this.flushDelivered();
    this.sender.close();
  }

  private onKick(): void {
    const kicked = this.kicked;
    this.kicked = null;
    if (kicked === 'all' || kicked === null || this.backlog) this.pump();
    else for (const key of kicked) this.continueQueue(key);
  }

  /** The full look: starts the due heads of every queue, then sleeps until the next due time. */
  private pump(): void {
    if (!this.running) return;
    try {
      // The outbox must not hand back rows already delivered; what was read ahead may be stale.
      this.flushDelivered();
      this.ahead.clear();
      const free = this.concurrency - this.inFlight.size;
      // One more than fits tells whether another queue is left waiting for a slot.
      const rows = this.outbox.takeDue(this.now(), free + 1, this.inFlight.keys());
      for (const row of rows.slice(0, free)) this.begin(row);
      // A queue waits for a slot: each finished delivery looks at all queues again.
      this.backlog = rows.length > free;
      const nextAt = this.backlog ? null : this.outbox.nextDueAt(this.inFlight.keys());
      this.wakeAt(nextAt ?? this.now() + this.pollIntervalMs, true);
    } catch (error) {
      this.log.error({ err: error }, 'webhook outbox read failed; retrying at the next poll');
      this.wakeAt(this.now() + this.pollIntervalMs, true);
    }
  }

  /** One queue looks at its own next row: sent now if due and a slot is free, else timed. */
  private continueQueue(key: string): void {
    if (!this.running || this.inFlight.has(key)) return;
    if (this.backlog || this.inFlight.size >= this.concurrency) {
      this.backlog = true;
      this.pump();
      return;
    }
    try {
      let rows = this.ahead.get(key);
      if (!rows?.length) {
        rows = this.outbox.headOf(key, this.deliveredUpTo.get(key) ?? 0, READ_AHEAD);
        if (rows.length === 0) {
          this.ahead.delete(key);
          return;
        }
        this.ahead.set(key, rows);
      }
      const head = rows[0]!;
      if (head.nextAttemptAt > this.now()) {
        this.wakeAt(head.nextAttemptAt, false);
        return;
      }
      rows.shift();
      this.begin(head);
    } catch (error) {
      this.log.error({ err: error }, 'webhook outbox read failed; retrying at the next poll');
    }
  }

  private begin(row: DeliveryRow): void {
    this.inFlight.set(row.targetKey, this.deliver(row));
  }

  /** Sets the wake-up timer to `at`, or to an earlier one already set unless `replace`. */
  private wakeAt(at: number, replace: boolean): void {
    if (!replace && at >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timerAt = Infinity;
      this.pump();
    }, Math.max(0, at - this.now()));
    // The gateway's server keeps the process alive; a pending retry alone should not.
    this.timer.unref();
  }

  private async deliver(row: DeliveryRow): Promise<void> {
    const failure = await this.sender.send(row.target, row.body);
    try {
      this.record(row, failure);
    } catch (error) {
      // The row stays pending and is sent again: at-least-once rather than lost.
      this.log.error({ err: error, session: row.session, eventId: row.eventId }, 'webhook outcome not saved');
    } finally {
      this.inFlight.delete(row.targetKey);
      this.continueQueue(row.targetKey);
    }
  }

  private record(row: DeliveryRow, failure: string | null): void {
    if (failure === null) {
      if (this.delivered.length === 0) setTimeout(() => this.flushDelivered(), this.clearEveryMs).unref();
      this.delivered.push({ row, latencyMs: this.now() - row.createdAt });
      this.deliveredUpTo.set(row.targetKey, row.id);
      return;
    }
    // The failed row stays the head of its queue: read the queue afresh.
    this.ahead.delete(row.targetKey);
    const attempt = row.attempts + 1;
    const delayMs = retryAfterFailure(row.target.retries, attempt);
    const context = { session: row.session, eventId: row.eventId, url: logUrl(row.target.url), attempt, reason: failure };
    if (delayMs === null) {
      this.outbox.markDead(row.id, failure);
      this.counters.dead++;
      this.observer.dead(row.session);
      this.log.warn({ ...context, attempts: attempt }, 'webhook delivery dead after its last attempt');
      return;
    }
    this.outbox.markFailed(row.id, failure, this.now() + delayMs);
    this.counters.retried++;
    this.observer.retried(row.session);
    this.log.debug({ ...context, retryInMs: delayMs }, 'webhook delivery failed; will retry');
  }

  private flushDelivered(): void {
    if (this.delivered.length === 0) return;
    const delivered = this.delivered;
    this.delivered = [];
    this.deliveredUpTo.clear();
    try {
      this.outbox.markDelivered(delivered.map(({ row }) => row.id));
    } catch (error) {
      // Left pending, they are sent again: duplicates, never losses.
      this.log.error({ err: error, rows: delivered.length }, 'delivered webhook rows not cleared; they will be sent again');
      return;
    }
    this.counters.succeeded += delivered.length;
    for (const { row, latencyMs } of delivered) this.observer.delivered(row.session, latencyMs);
  }
}
