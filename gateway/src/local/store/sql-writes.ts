import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';

/**
 * Where a store's writes go. A store reads through a connection of its own and writes only
 * through this: at once (`DirectWrites`), or queued for a group commit in a worker thread
 * (`BackgroundWriter`). A read that must see the writes made before it awaits `flush` first.
 */
export interface SqlWrites {
  /** A write statement; its `add` queues one execution with these parameters. */
  statement(sql: string): SqlWrite;
  /**
   * Resolves once every write queued before the call is committed, held to be retried while the
   * storage fails (BackgroundWriter's `onHolding`), or given up (`onError`).
   */
  flush(): Promise<void>;
  /** Runs `sql` once after the queued writes, committed on its own, and tells how many rows it changed. */
  changes(sql: string, params: readonly SQLInputValue[]): Promise<number>;
}

export interface SqlWrite {
  add(...params: SQLInputValue[]): void;
}

/** Each write runs and commits at once, on the store's own connection: tests, and tools that open a file. */
export class DirectWrites implements SqlWrites {
  private readonly statements = new Map<string, StatementSync>();

  constructor(private readonly db: DatabaseSync) {}

  statement(sql: string): SqlWrite {
    const prepared = this.prepared(sql);
    return { add: (...params) => void prepared.run(...params) };
  }

  async flush(): Promise<void> {}

  async changes(sql: string, params: readonly SQLInputValue[]): Promise<number> {
    return Number(this.prepared(sql).run(...params).changes);
  }

  private prepared(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (!statement) this.statements.set(sql, (statement = this.db.prepare(sql)));
    return statement;
  }
}
