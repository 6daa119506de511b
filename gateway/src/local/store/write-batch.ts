import type { DatabaseSync } from 'node:sqlite';

/**
 * Group commit for the writes the event bus causes. Each commit costs a WAL append (most of an
 * insert's price), so queued writes share one transaction. Without `delayMs` they are those of
 * one turn of the event loop, committed in a microtask at its end: a burst of events costs one
 * commit, and the answer to the API call that made an event leaves only after the commit (the
 * microtask runs before the turn's I/O). With `delayMs`, those of that many milliseconds, for
 * writes a crash may lose the last of. (The event log and the message history are committed off
 * the event loop instead: background-writer.ts.)
 */
export class WriteBatch {
  private writes: (() => void)[] = [];
  private readonly settled: ((committed: boolean) => void)[] = [];
  private readonly committing: (() => void)[] = [];

  constructor(
    private readonly db: DatabaseSync,
    private readonly onError: (error: unknown, writes: number) => void,
    private readonly delayMs = 0,
  ) {}

  add(write: () => void): void {
    if (this.writes.length === 0) {
      if (this.delayMs > 0) setTimeout(() => this.flush(), this.delayMs).unref();
      else queueMicrotask(() => this.flush());
    }
    this.writes.push(write);
  }

  /**
   * `listener` runs after every flush, committed or not, once the transaction is over. It is told
   * whether the flush committed: the webhook fan-out hands its rows to the dispatcher only then.
   */
  onSettled(listener: (committed: boolean) => void): void {
    this.settled.push(listener);
  }

  /**
   * `listener` runs in every flush's transaction, after the queued writes and before the COMMIT: a
   * writer with writes that may wait (the webhook dispatcher's deletes of delivered rows) joins a
   * commit that happens anyway instead of paying for one of its own. It must not throw; what it
   * wrote is committed or not with the rest, as `onSettled` then says.
   */
  onCommitting(listener: () => void): void {
    this.committing.push(listener);
  }

  /** Commits what is queued now; on a failure nothing of it is written, and `onError` is told. */
  flush(): void {
    const writes = this.writes;
    if (writes.length === 0) return;
    this.writes = [];
    let committed = false;
    try {
      this.db.exec('BEGIN');
      for (const write of writes) write();
      for (const listener of this.committing) listener();
      this.db.exec('COMMIT');
      committed = true;
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      this.onError(error, writes.length);
    } finally {
      for (const listener of this.settled) listener(committed);
    }
  }
}
