import type { Logger } from 'pino';
import { retryAfterFailure, WebhookSender } from './http-delivery.js';
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
}

/**
 * Sends due outbox rows by HTTP POST. Each target key is a queue with at most one request in
 * flight, its oldest row first, so one webhook sees a session's events in order; different keys
 * run side by side, so a slow or dead receiver only holds up its own queue.
 */
export class WebhookDispatcher {
  readonly counters: DeliveryCounters = { succeeded: 0, retried: 0, dead: 0 };

  private readonly outbox: WebhookOutbox;
  private readonly log: Logger;
  private readonly sender: WebhookSender;
  private readonly concurrency: number;
  private readonly now: () => number;
  private readonly pollIntervalMs: number;
  /** Target key → its running delivery; the keys double as the exclusion list for `takeDue`. */
  private readonly inFlight = new Map<string, Promise<void>>();
  private running = false;
  private kickQueued = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(options: WebhookDispatcherOptions) {
    this.outbox = options.outbox;
    this.log = options.log;
    this.concurrency = options.concurrency ?? 64;
    this.now = options.now ?? Date.now;
    this.sender = new WebhookSender({ timeoutMs: options.timeoutMs, now: this.now });
    this.pollIntervalMs = options.pollIntervalMs ?? 5_000;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.pump();
  }

  /**
   * Wakes the dispatcher after an enqueue. Deferred to the next turn so that the engine call that
   * published the event is not slowed by a database read, and a burst of events costs one read.
   */
  kick(): void {
    if (!this.running || this.kickQueued) return;
    this.kickQueued = true;
    setImmediate(() => {
      this.kickQueued = false;
      this.pump();
    });
  }

  /** Takes no new work and waits for the requests in flight, each bounded by its timeout. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await Promise.all(this.inFlight.values());
  }

  /** Starts what is due, then sleeps until the next due time (or the poll interval). */
  private pump(): void {
    if (!this.running) return;
    clearTimeout(this.timer);
    let wait = this.pollIntervalMs;
    try {
      const free = this.concurrency - this.inFlight.size;
      for (const row of this.outbox.takeDue(this.now(), free, this.inFlight.keys())) {
        this.inFlight.set(row.targetKey, this.deliver(row));
      }
      // With every slot busy the look-ahead is skipped: each finished delivery pumps again.
      const nextAt = this.inFlight.size < this.concurrency ? this.outbox.nextDueAt(this.inFlight.keys()) : null;
      if (nextAt !== null) wait = Math.min(wait, Math.max(0, nextAt - this.now()));
    } catch (error) {
      this.log.error({ err: error }, 'webhook outbox read failed; retrying at the next poll');
    }
    this.timer = setTimeout(() => this.pump(), wait);
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
      this.pump();
    }
  }

  private record(row: DeliveryRow, failure: string | null): void {
    if (failure === null) {
      this.outbox.markDelivered(row.id);
      this.counters.succeeded++;
      return;
    }
    const attempt = row.attempts + 1;
    const delayMs = retryAfterFailure(row.target.retries, attempt);
    const context = { session: row.session, eventId: row.eventId, url: row.target.url, attempt, reason: failure };
    if (delayMs === null) {
      this.outbox.markDead(row.id, failure);
      this.counters.dead++;
      this.log.warn(context, 'webhook delivery dead after its last attempt');
      return;
    }
    this.outbox.markFailed(row.id, failure, this.now() + delayMs);
    this.counters.retried++;
    this.log.debug({ ...context, retryInMs: delayMs }, 'webhook delivery failed; will retry');
  }
}
