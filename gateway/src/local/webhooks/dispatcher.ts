import type { OutboundPolicy } from '@switchboard/kube';
import type { Logger } from 'pino';
import type { WriteBatch } from '../store/write-batch.js';
import { type Delivered, DeliveredRows } from './delivered-rows.js';
import type { DeliveryFailure } from '../../webhooks/delivery-failure.js';
import { type DeliveryCounters, type DeliveryObserver, NO_DELIVERY_OBSERVER } from '../../webhooks/delivery-observer.js';
import { type CircuitSettings, EndpointCircuits, logCircuit } from '../../webhooks/endpoint-circuit.js';
import { maxPauseMs, retryAfterFailure, WebhookSender } from '../../webhooks/http-delivery.js';
import { logUrl } from '../../webhooks/log-url.js';
import type { WebhookStates } from '../../webhooks/ports.js';
import type { DeliveryRow, WebhookOutbox } from './outbox.js';
import { queueTargetId, sessionKeys } from './queue-keys.js';
import { DEFAULT_MEMORY, type MemoryLimits, type Queue, QueueMemory } from './queue-memory.js';

export interface WebhookDispatcherOptions {
  readonly outbox: WebhookOutbox;
  readonly log: Logger;
  /** Told of each outcome, for metrics. */
  readonly observer?: DeliveryObserver;
  /** Per request, until the response status arrives. */
  readonly timeoutMs?: number;
  /** Where deliveries may connect; default: the built-in rules only. */
  readonly policy?: OutboundPolicy;
  /** Requests in flight at once, over all targets. */
  readonly concurrency?: number;
  readonly now?: () => number;
  /**
   * Fallback look at the outbox for queues not held in memory. New rows reach the dispatcher
   * through `enqueued`, retries and replays set their own wake-ups, so this only matters if
   * something was missed (a failed database read, rows written by another writer).
   */
  readonly pollIntervalMs?: number;
  /** How long delivered rows may wait to be cleared together. */
  readonly clearEveryMs?: number;
  /**
   * The fan-out's group commit: delivered rows are cleared in its next transaction when one comes
   * within `clearEveryMs`, so a steady stream of events costs no commits for the cursor moves.
   */
  readonly writes?: Pick<WriteBatch, 'onCommitting' | 'onSettled'>;
  /** Memory for rows not sent yet; beyond it, the outbox alone holds them (and they are read later). */
  readonly memory?: Partial<MemoryLimits>;
  /** When a failing endpoint is probed instead of sent to (`endpoint-circuit.ts`). */
  readonly circuit?: Partial<CircuitSettings>;
  /** Webhooks a 410 Gone disabled: their rows go dead unsent. Without, a 410 only ends its delivery. */
  readonly states?: WebhookStates;
}

/** Queues the full look takes from the outbox at once. */
const DISCOVER_LIMIT = 1024;

/**
 * Sends the queued events by HTTP POST, to each queue's webhook as the session has it now. Each target key is a queue with at most one request in flight,
 * its oldest row first, so one webhook sees a session's events in order; different keys run side
 * by side, so a slow or dead receiver only holds up its own queue. Up to `concurrency` requests
 * are in flight at once; queues that find no free slot wait in line, first come first served.
 *
 * The outbox is the durable copy, memory the fast path. The fan-out hands over the rows it wrote
 * once they are committed (`enqueued`), and a queue sends them from memory: in the steady state a
 * delivery reads nothing from SQLite. A queue whose rows are not all in memory (after a start, a
 * failed head, a replay, or more rows than it may hold) reads its next ones from the outbox (its
 * entries, then the log after its cursor), a chunk at a time. The full look (`pump`) finds the queues memory does not know: at start, after
 * a replay, when its timer falls due, and every `pollIntervalMs` as a fallback.
 *
 * Delivered rows are cleared together (`delivered-rows.ts`: their queue's cursor moved past them,
 * one UPDATE per queue): in the fan-out's next group commit when one comes within `clearEveryMs`
 * (10 ms), else in a transaction of their own then. A crash before that leaves them pending, and
 * they are sent again: at least once, as promised, and each queue's first deliveries still come in
 * order. Counters and the observer learn of a delivery once it is cleared. Before anything is read
 * from the outbox, the delivered rows are cleared, so a read never hands back a row already
 * delivered.
 */
export class WebhookDispatcher {
  readonly counters: DeliveryCounters = { succeeded: 0, retried: 0, dead: 0 };

  private readonly outbox: WebhookOutbox;
  private readonly log: Logger;
  private readonly observer: DeliveryObserver;
  private readonly sender: WebhookSender;
  private readonly concurrency: number;
  private readonly now: () => number;
  private readonly pollIntervalMs: number;
  private readonly memory: QueueMemory;
  readonly circuits: EndpointCircuits;
  private readonly states: WebhookStates | undefined;
  /** Requests in flight, and what `stop` waits on until there are none. */
  private active = 0;
  private idle: (() => void) | null = null;
  private readonly delivered: DeliveredRows;
  /** The full look found more due queues than it took: it looks again once the line is empty. */
  private backlog = false;
  private running = false;
  /** Queues to look at on the next turn; 'all' after `kick()`. */
  private kicked: Set<Queue> | 'all' | null = null;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;

  constructor(options: WebhookDispatcherOptions) {
    this.outbox = options.outbox;
    this.log = options.log;
    this.observer = options.observer ?? NO_DELIVERY_OBSERVER;
    this.concurrency = options.concurrency ?? 64;
    this.now = options.now ?? Date.now;
    this.sender = new WebhookSender({ timeoutMs: options.timeoutMs, now: this.now, policy: options.policy });
    this.pollIntervalMs = options.pollIntervalMs ?? 5_000;
    this.memory = new QueueMemory({ ...DEFAULT_MEMORY, ...options.memory });
    this.circuits = new EndpointCircuits(options.circuit);
    this.states = options.states;
    this.delivered = new DeliveredRows({
      outbox: this.outbox,
      clearEveryMs: options.clearEveryMs ?? 10,
      ...(options.writes ? { writes: options.writes } : {}),
      cleared: (delivered) => this.count(delivered),
      notCleared: (delivered, error) => this.notCleared(delivered, error),
    });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    try {
      this.outbox.adoptOlderRows();
    } catch (error) {
      this.log.error({ err: error }, 'webhook deliveries of an older version not taken over; trying again at the next start');
    }
    this.pump();
  }

  /**
   * Takes rows just committed to the outbox (by `enqueue`, in one transaction) and sends them,
   * from the next turn of the event loop: the call that made the event is not slowed by a
   * request, and a burst of events costs one look per queue. Rows must be handed over only once
   * committed; while stopped, the outbox keeps them for the next start.
   */
  enqueued(rows: readonly DeliveryRow[]): void {
    if (!this.running || rows.length === 0) return;
    const kicked = this.kickSet();
    for (const row of rows) {
      let queue = this.memory.get(row.targetKey);
      if (queue === undefined) {
        // Unknown: older rows of the key may be pending in the outbox. Its first look reads them.
        queue = this.memory.track(row.targetKey, [], false, row.createdAt);
      } else {
        this.memory.append(queue, row);
        queue.lastActive = row.createdAt;
      }
      if (kicked !== 'all') kicked.add(queue);
    }
  }

  /**
   * Forgets what memory holds and looks at the whole outbox again, from the next turn: for rows
   * written behind the dispatcher's back (a replay of dead deliveries).
   */
  kick(): void {
    if (!this.running) return;
    this.kickSet();
    this.kicked = 'all';
  }

  /**
   * A deleted session's deliveries are gone from the outbox (`WebhookOutbox.forgetSession`): its
   * queues stop, and a request in flight is left to finish without being followed by another.
   */
  forgetSession(session: string): void {
    this.memory.forgetRange(...sessionKeys(session));
  }

  /** Takes no new work and waits for the requests in flight, each bounded by its timeout. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.memory.clear();
    if (this.active > 0) await new Promise<void>((resolve) => (this.idle = resolve));
    this.delivered.flush();
    this.sender.close();
  }

  private kickSet(): Set<Queue> | 'all' {
    if (this.kicked === null) {
      this.kicked = new Set();
      setImmediate(() => this.onKick());
    }
    return this.kicked;
  }

  private onKick(): void {
    const kicked = this.kicked;
    this.kicked = null;
    if (kicked === 'all') {
      this.delivered.flush();
      this.memory.forgetAll();
      this.pump();
    } else if (kicked !== null) {
      for (const queue of kicked) this.continueQueue(queue);
    }
  }

  /**
   * The full look: finds the due heads of the queues memory does not know and starts them, then
   * sleeps until the next one falls due (or the poll). Idle queues are forgotten here, after a while.
   */
  private pump(): void {
    if (!this.running) return;
    try {
      // The outbox must not hand back rows already delivered.
      this.delivered.flush();
      const now = this.now();
      this.memory.sweep(now);
      const keys = this.outbox.takeDue(now, DISCOVER_LIMIT + 1, this.memory.keys());
      this.backlog = keys.length > DISCOVER_LIMIT;
      for (const key of keys.slice(0, DISCOVER_LIMIT)) this.continueQueue(this.memory.track(key, [], false, now));
      const nextAt = this.backlog ? null : this.outbox.nextDueAt(this.memory.keys());
      this.wakeAt(nextAt ?? now + this.pollIntervalMs);
    } catch (error) {
      this.log.error({ err: error }, 'webhook outbox read failed; retrying at the next poll');
      this.wakeAt(this.now() + this.pollIntervalMs);
    }
  }

  /** Sets the wake-up timer of the full look to `at`. */
  private wakeAt(at: number): void {
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timerAt = Infinity;
        this.pump();
      },
      Math.max(0, at - this.now()),
    );
    // The gateway's server keeps the process alive; a pending retry alone should not.
    this.timer.unref();
  }

  /**
   * A queue looks at its next row: sent now if due and a slot is free, else in line or timed.
   * `behindOthers`: a queue that just had its turn lets those in line go first.
   */
  private continueQueue(queue: Queue, behindOthers = false): void {
    if (!this.running || queue.sending || queue.waiting || queue.timer !== undefined) return;
    // Forgotten meanwhile: the full look owns its rows now.
    if (!this.memory.holds(queue)) return;
    if (queue.rows.length === 0) {
      if (queue.complete) return;
      if (!this.load(queue)) return;
    }
    const head = queue.rows[0]!;
    if (this.states?.isDisabled(head.session, head.target.url)) {
      this.buryDisabled(queue);
      return;
    }
    const now = this.now();
    const wait = head.nextAttemptAt - now;
    if (wait > 0) {
      this.sleep(queue, wait);
      return;
    }
    if (this.active >= this.concurrency || (behindOthers && this.memory.waitingCount > 0)) {
      this.memory.lineUp(queue);
      return;
    }
    // An endpoint that asked to wait, or whose circuit is open: the queue waits without a slot.
    const closed = this.circuits.admit(head.target.url, now);
    if (closed > 0) {
      this.sleep(queue, closed);
      return;
    }
    this.begin(queue, this.memory.shift(queue));
  }

  /**
   * A webhook its receiver disabled: the queue's rows go dead as they come, unsent, so a replay
   * after it is enabled again delivers them. Up to a chunk of rows at a time, then the queue goes
   * on from the next turn, so a long backlog does not hold the event loop.
   */
  private buryDisabled(queue: Queue): void {
    try {
      for (let n = 0; n < this.memory.limits.readChunk && queue.rows.length > 0; n++) {
        const row = queue.rows[0]!;
        if (!this.states?.isDisabled(row.session, row.target.url)) break;
        this.outbox.markDeadUnsent(this.memory.shift(queue), 'gone');
        this.counters.dead++;
        this.observer.dead(row.session);
      }
    } catch (error) {
      this.log.error({ err: error }, 'webhook outbox write failed; retrying at the next poll');
      this.memory.forget(queue);
      this.wakeAt(Math.min(this.timerAt, this.now() + this.pollIntervalMs));
      return;
    }
    this.sleep(queue, 0);
  }

  private sleep(queue: Queue, ms: number): void {
    queue.timer = setTimeout(() => {
      queue.timer = undefined;
      this.continueQueue(queue);
    }, ms);
    queue.timer.unref();
  }

  /** Reads the queue's next rows from the outbox; false when it has none (or the read failed). */
  private load(queue: Queue): boolean {
    try {
      this.delivered.flush();
      if (!this.memory.holds(queue)) return false;
      const rows = this.outbox.headOf(queue.key, this.memory.limits.readChunk);
      if (rows === null) {
        // Its webhook was removed from the session: the queue is gone with it.
        this.memory.forget(queue);
        return false;
      }
      this.memory.loaded(queue, rows);
      return queue.rows.length > 0;
    } catch (error) {
      this.log.error({ err: error }, 'webhook outbox read failed; retrying at the next poll');
      this.memory.forget(queue);
      return false;
    }
  }

  private begin(queue: Queue, queued: DeliveryRow): void {
    // Sent as the session's webhook is now (an edited key or header applies at once); a removed
    // webhook takes its queue along.
    const target = this.outbox.targetOf(queued.session, queueTargetId(queue.key));
    if (target === null) {
      this.outbox.dropQueue(queue.key);
      this.memory.forget(queue);
      return;
    }
    const row = target === queued.target ? queued : { ...queued, target };
    queue.sending = true;
    queue.lastActive = this.now();
    this.active++;
    void this.deliver(queue, row);
  }

  private async deliver(queue: Queue, row: DeliveryRow): Promise<void> {
    const startedAt = this.now();
    const failure = await this.sender.send(row.target, row.bytes ?? row.body, row.eventId);
    try {
      this.record(queue, row, failure, startedAt);
    } catch (error) {
      // The row stays pending (its cursor not moved) and is sent again: at-least-once rather than lost.
      this.log.error({ err: error, session: row.session, eventId: row.eventId }, 'webhook outcome not saved');
      this.memory.forget(queue);
      this.wakeAt(Math.min(this.timerAt, this.now() + this.pollIntervalMs));
    } finally {
      queue.sending = false;
      this.active--;
      if (this.active === 0 && this.idle) {
        this.idle();
        this.idle = null;
      }
    }
    try {
      this.next(queue);
    } catch (error) {
      // Not expected (reads and timers report their own failures); the poll takes over.
      this.log.error({ err: error }, 'webhook dispatcher could not go on; retrying at the next poll');
      this.wakeAt(Math.min(this.timerAt, this.now() + this.pollIntervalMs));
    }
  }

  /** A slot is free: the queues in line go first, the one that just finished joins the end. */
  private next(finished: Queue): void {
    this.continueQueue(finished, true);
    this.startWaiting();
    // More queues were due than the full look took: look again once the line is through.
    if (this.backlog && this.memory.waitingCount === 0 && this.active < this.concurrency) this.pump();
  }

  private startWaiting(): void {
    while (this.active < this.concurrency) {
      const queue = this.memory.nextInLine();
      if (queue === undefined) return;
      this.continueQueue(queue);
    }
  }

  private record(queue: Queue, row: DeliveryRow, failure: DeliveryFailure | null, startedAt: number): void {
    const change = this.circuits.record(row.target.url, failure, startedAt, this.now(), maxPauseMs(row.target.retries));
    if (change) logCircuit(this.log, change, row.target.url);
    if (failure === null) {
      this.delivered.add({ row, latencyMs: this.now() - row.createdAt });
      return;
    }
    // Forgotten meanwhile (its session deleted, or the dispatcher stopping): no entry is written
    // for it, which a session made again with the name would inherit. Not cleared, it is sent
    // again after a restart, unless its session is gone.
    if (!this.memory.holds(queue)) return;
    const attempt = row.attempts + 1;
    const delayMs = retryAfterFailure(row.target.retries, attempt, failure);
    const context = { session: row.session, eventId: row.eventId, url: logUrl(row.target.url), attempt, ...failure };
    if (delayMs === null) {
      this.outbox.markDead(row, failure.reason);
      this.counters.dead++;
      this.observer.dead(row.session);
      this.log.warn({ ...context, attempts: attempt }, 'webhook delivery dead after its last attempt');
      if (failure.gone) this.disable(row);
      return;
    }
    const nextAttemptAt = this.now() + delayMs;
    this.outbox.markFailed(row, failure.reason, nextAttemptAt);
    // It stays the head of its queue, held back until its time comes. The queue reads its rows
    // afresh (the head with its new schedule): a receiver that is down does not fill memory with
    // its backlog, and a replay's older rows, when there are some, come first.
    this.memory.drop(queue);
    this.counters.retried++;
    this.observer.retried(row.session);
    this.log.debug({ ...context, retryInMs: delayMs }, 'webhook delivery failed; will retry');
  }

  /** A 410 Gone: the webhook is disabled, and its queue's other rows go dead unsent as it goes on. */
  private disable(row: DeliveryRow): void {
    if (!this.states) return;
    void this.states.disable(row.session, row.target.url, this.now());
    this.log.warn(
      { session: row.session, url: logUrl(row.target.url) },
      'webhook receiver answered 410 Gone: the webhook is disabled until enabled again (POST /api/{session}/webhooks/enable)',
    );
  }

  /** Left pending, they are sent again: duplicates, never losses. Memory would skip them, so their queues read the outbox again. */
  private notCleared(delivered: readonly Delivered[], error: unknown): void {
    this.log.error({ err: error, rows: delivered.length }, 'delivered webhook rows not cleared; they will be sent again');
    for (const { row } of delivered) {
      const queue = this.memory.get(row.targetKey);
      if (queue) this.memory.forget(queue);
    }
    this.wakeAt(Math.min(this.timerAt, this.now() + this.pollIntervalMs));
  }

  private count(delivered: readonly Delivered[]): void {
    this.counters.succeeded += delivered.length;
    for (const { row, latencyMs } of delivered) this.observer.delivered(row.session, latencyMs);
  }
}
