import type { DatabaseSync } from 'node:sqlite';

/**
 * Group commit for the writes the event bus causes. Each commit costs a WAL append (most of an
 * insert's price), so queued writes share one transaction. Without `delayMs` they are those of
 * one turn of the event loop, committed in a microtask at its end: a burst of events costs one
 * commit, and the answer to the API call that made an event leaves only after the commit (the
 * microtask runs before the turn's I/O). With `delayMs`, those of that many milliseconds, for
 * writes a crash may lose the last of (the event log: webhook deliveries have their own rows).
 */
export class WriteBatch {
  private writes: (() => void)[] = [];

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

  /** Commits what is queued now; on a failure nothing of it is written, and `onError` is told. */
  flush(): void {
    const writes = this.writes;
    if (writes.length === 0) return;
    this.writes = [];
    try {
      this.db.exec('BEGIN');
      for (const write of writes) write();
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      this.onError(error, writes.length);
    }
  }
}
