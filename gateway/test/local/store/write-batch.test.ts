import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/local/store/database.js';
import { WriteBatch } from '../../../src/local/store/write-batch.js';

let dir: string;
let db: DatabaseSync;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchboard-batch-'));
  db = openDatabase(dir, [{ name: 't', ddl: 'CREATE TABLE IF NOT EXISTS t (v TEXT UNIQUE)' }]);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const rows = () => (db.prepare('SELECT v FROM t ORDER BY rowid').all() as { v: string }[]).map((r) => r.v);
const insert = (v: string) => () => void db.prepare('INSERT INTO t (v) VALUES (?)').run(v);

describe('group commit of the writes of one turn', () => {
  it('commits the writes queued in one turn together, before the next turn, in their order', async () => {
    const batch = new WriteBatch(db, () => undefined);
    let sawTransaction = false;
    batch.add(insert('a'));
    batch.add(() => void (sawTransaction = db.isTransaction));
    batch.add(insert('b'));
    expect(rows()).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(rows()).toEqual(['a', 'b']);
    expect(sawTransaction).toBe(true);
    expect(db.isTransaction).toBe(false);
  });

  it('writes nothing of a turn whose write fails, and reports it; the next turn commits again', async () => {
    const errors: number[] = [];
    const batch = new WriteBatch(db, (_, writes) => errors.push(writes));
    batch.add(insert('a'));
    batch.add(insert('a'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(rows()).toEqual([]);
    expect(errors).toEqual([2]);
    batch.add(insert('c'));
    batch.flush();
    expect(rows()).toEqual(['c']);
  });

  it('tells its onSettled listeners after every flush that wrote or failed, once the transaction is over', () => {
    const batch = new WriteBatch(db, () => undefined, 60_000);
    const settled: [boolean, boolean, string[]][] = [];
    batch.onSettled((committed) => settled.push([committed, db.isTransaction, rows()]));
    batch.flush();
    expect(settled).toEqual([]);
    batch.add(insert('a'));
    batch.flush();
    batch.add(insert('a'));
    batch.flush();
    expect(settled).toEqual([
      [true, false, ['a']],
      [false, false, ['a']],
    ]);
  });

  it('runs onCommitting listeners in the transaction after the writes, and tells onSettled whether it committed', () => {
    const batch = new WriteBatch(db, () => undefined, 60_000);
    const seen: string[] = [];
    batch.onCommitting(() => {
      seen.push(`committing in transaction: ${db.isTransaction}, rows: ${rows().join(',')}`);
      db.prepare('INSERT INTO t (v) VALUES (?)').run('joined');
    });
    batch.onSettled((committed) => seen.push(`settled, committed: ${committed}`));
    batch.add(insert('a'));
    batch.flush();
    batch.add(insert('a'));
    batch.flush();
    expect(seen).toEqual(['committing in transaction: true, rows: a', 'settled, committed: true', 'settled, committed: false']);
    // The listener's write went with the first batch; the failed second one wrote nothing.
    expect(rows()).toEqual(['a', 'joined']);
  });
});
