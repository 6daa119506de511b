import type { DeliveryRow } from './outbox.js';

export interface MemoryLimits {
  /** Rows of one queue read from the outbox at once (256). */
  readonly readChunk: number;
  /** Rows held per queue (1,024) and over all queues (65,536). */
  readonly queueRows: number;
  readonly totalRows: number;
}

export const DEFAULT_MEMORY: MemoryLimits = { readChunk: 256, queueRows: 1024, totalRows: 65_536 };

/** An idle queue is kept this long, so its next event needs no read. */
const FORGET_IDLE_MS = 60_000;

/**
 * One (session, webhook) queue as the dispatcher knows it: its target key, and its next rows when
 * they are held in memory. A queue memory knows is handled by the dispatcher alone: the full look
 * at the outbox leaves it out.
 */
export interface Queue {
  readonly key: string;
  /** Pending rows held, oldest first, not counting the one in flight. */
  rows: DeliveryRow[];
  /**
   * Whether `rows`, the row in flight and the delivered rows not yet cleared are every pending row
   * of the key in the outbox. Then a committed new row is appended and nothing is read; else, once
   * `rows` runs out, the next ones are read from the outbox.
   */
  complete: boolean;
  sending: boolean;
  /** In the line for a free slot. */
  waiting: boolean;
  /** Set while the head waits for its retry time. */
  timer: NodeJS.Timeout | undefined;
  lastActive: number;
}

/**
 * The queues the dispatcher holds, the rows they hold (within `MemoryLimits`), and the line of
 * queues waiting for a free slot, first come first served. Memory is a copy: whatever it drops,
 * the outbox still has.
 */
export class QueueMemory {
  private readonly queues = new Map<string, Queue>();
  private line: Queue[] = [];
  /** Rows held over all queues. */
  private held = 0;

  constructor(readonly limits: MemoryLimits) {}

  get(key: string): Queue | undefined {
    return this.queues.get(key);
  }

  /** Whether `queue` is still the one memory holds for its key (not forgotten meanwhile). */
  holds(queue: Queue): boolean {
    return this.queues.get(queue.key) === queue;
  }

  keys(): IterableIterator<string> {
    return this.queues.keys();
  }

  values(): IterableIterator<Queue> {
    return this.queues.values();
  }

  /** A queue for `key`, with `rows` (its oldest pending ones); complete when they are all it has. */
  track(key: string, rows: DeliveryRow[], complete: boolean, now: number): Queue {
    const queue: Queue = { key, rows, complete, sending: false, waiting: false, timer: undefined, lastActive: now };
    this.queues.set(key, queue);
    this.held += rows.length;
    return queue;
  }

  /** Appends a newly committed row to a complete queue, or marks it incomplete when memory is full. */
  append(queue: Queue, row: DeliveryRow): void {
    if (!queue.complete) return;
    if (queue.rows.length < this.limits.queueRows && this.held < this.limits.totalRows) {
      queue.rows.push(row);
      this.held++;
    } else {
      queue.complete = false;
    }
  }

  /** The rows read from the outbox for an empty queue. */
  loaded(queue: Queue, rows: DeliveryRow[]): void {
    queue.rows = rows;
    this.held += rows.length;
    queue.complete = rows.length < this.limits.readChunk;
  }

  shift(queue: Queue): DeliveryRow {
    this.held--;
    return queue.rows.shift()!;
  }

  /** Lets go of the queue's rows: it reads them from the outbox again when it goes on. */
  drop(queue: Queue): void {
    this.held -= queue.rows.length;
    queue.rows = [];
    queue.complete = false;
  }

  /** Drops a queue from memory: the outbox has all its rows, and the full look finds them. */
  forget(queue: Queue): void {
    clearTimeout(queue.timer);
    queue.timer = undefined;
    this.drop(queue);
    if (queue.waiting) {
      queue.waiting = false;
      this.line = this.line.filter((other) => other !== queue);
    }
    // One in flight stays known until it is done: its key must not be sent twice at once.
    if (!queue.sending) this.queues.delete(queue.key);
  }

  /**
   * Drops the queues whose keys lie in [from, to) (a deleted session's), those in flight too:
   * their request finishes, and nothing follows it. A new queue of the same key starts afresh.
   */
  forgetRange(from: string, to: string): void {
    for (const queue of [...this.queues.values()]) {
      if (queue.key < from || queue.key >= to) continue;
      this.forget(queue);
      this.queues.delete(queue.key);
    }
  }

  forgetAll(): void {
    for (const queue of [...this.queues.values()]) {
      clearTimeout(queue.timer);
      queue.timer = undefined;
      queue.rows = [];
      queue.complete = false;
      queue.waiting = false;
      if (!queue.sending) this.queues.delete(queue.key);
    }
    this.line = [];
    this.held = 0;
  }

  /** Forgets idle queues that memory does not fully know, and complete ones idle for a while. */
  sweep(now: number): void {
    for (const queue of [...this.queues.values()]) {
      const idle = !queue.sending && !queue.waiting && queue.timer === undefined && queue.rows.length === 0;
      if (idle && (!queue.complete || now - queue.lastActive > FORGET_IDLE_MS)) this.queues.delete(queue.key);
    }
  }

  /** Puts the queue at the end of the line for a free slot. */
  lineUp(queue: Queue): void {
    queue.waiting = true;
    this.line.push(queue);
  }

  get waitingCount(): number {
    return this.line.length;
  }

  /** The first queue in line, out of it. */
  nextInLine(): Queue | undefined {
    const queue = this.line.shift();
    if (queue) queue.waiting = false;
    return queue;
  }

  clear(): void {
    for (const queue of this.queues.values()) {
      clearTimeout(queue.timer);
      queue.timer = undefined;
      queue.rows = [];
      queue.complete = false;
    }
    this.queues.clear();
    this.line = [];
    this.held = 0;
  }
}
