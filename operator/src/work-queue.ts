import { backoffDelay, type BackoffOptions } from '@switchboard/kube';

/** Per-key exponential backoff (kube's `backoffDelay`): from 100 ms, doubled on each failure, up to a minute. */
const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 100, maxMs: 60_000 };

/**
 * A work queue with client-go's semantics, so that a controller handles one key at a time:
 * - a key is queued at most once, however often it is added;
 * - a key is handed to at most one worker at a time; one added while it is being processed
 *   is queued again when that worker calls `done`;
 * - `addRateLimited` requeues a failed key after its own exponential backoff, `forget` resets it.
 */
export class WorkQueue {
  private readonly queue: string[] = [];
  /** Keys waiting to be processed (in `queue`, or to be queued once their worker is done). */
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  private shuttingDown = false;

  constructor(private readonly backoff: BackoffOptions = DEFAULT_BACKOFF) {}

  get length(): number {
    return this.queue.length;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    const waiter = this.waiters.shift();
    if (waiter) {
      this.dirty.delete(key);
      this.processing.add(key);
      waiter(key);
    } else {
      this.queue.push(key);
    }
  }

  /** Adds the key after `delayMs`; an earlier pending add of the same key wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) return this.add(key);
    const at = Date.now() + delayMs;
    const pending = this.timers.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.timers.set(key, { at, timer });
  }

  /** Requeues a key that failed, after its backoff; every call doubles the next one. */
  addRateLimited(key: string): void {
    const failures = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, failures);
    this.addAfter(key, backoffDelay(failures, this.backoff));
  }

  /** The key succeeded: its next failure starts from the base delay again. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** The next key to process, or `undefined` once the queue is shut down. Pair with `done`. */
  get(): Promise<string | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) {
      this.dirty.delete(key);
      this.add(key);
    }
  }

  /** Stops handing out keys: waiting and later `get` calls answer `undefined`. */
  shutDown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.queue.length = 0;
    this.dirty.clear();
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }
}
