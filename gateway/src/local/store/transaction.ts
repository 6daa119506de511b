import type { DatabaseSync } from 'node:sqlite';

/**
 * Runs `work` in one SQLite transaction: committed when it returns, rolled back when it throws.
 * `IMMEDIATE` takes the write lock at the start, for work that reads before it writes and must not
 * be overtaken. A transaction already open on `db` (a `WriteBatch`'s) is joined, not nested, which
 * SQLite does not allow.
 */
export function inTransaction(db: DatabaseSync, work: () => void, begin: 'BEGIN' | 'BEGIN IMMEDIATE' = 'BEGIN'): void {
  if (db.isTransaction) {
    work();
    return;
  }
  db.exec(begin);
  try {
    work();
    db.exec('COMMIT');
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}
