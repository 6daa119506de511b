import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { waitFor } from '@switchboard/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { databaseFile, openDatabase } from '../../../src/local/store/database.js';
import { startWalCheckpointer } from '../../../src/local/store/wal-checkpointer.js';

let dir: string;
let db: DatabaseSync;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchboard-checkpoint-'));
  db = openDatabase(dir, [{ name: 't', ddl: 'CREATE TABLE IF NOT EXISTS t (v TEXT)' }]);
});
afterEach(() => {
  if (db.isOpen) db.close();
  rmSync(dir, { recursive: true, force: true });
});

const size = (file: string) => statSync(file).size;
/** About 2 MB of committed rows, well under the 10,000 pages the main connection waits for. */
const write2MB = () => {
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  for (let i = 0; i < 500; i++) insert.run(`${i}`.padEnd(4_000, 'x'));
};

describe('WAL checkpoints off the event loop', () => {
  it('a worker copies committed pages into the database file; the main connection does not', async () => {
    const errors: string[] = [];
    const checkpointer = startWalCheckpointer(db, databaseFile(dir), (message) => errors.push(message), 20);
    try {
      const before = size(databaseFile(dir));
      write2MB();
      // Without the worker the rows would stay in the WAL: the main connection checkpoints at 10,000 pages now.
      await waitFor(() => size(databaseFile(dir)) > before + 1_500_000, 'the rows copied into the database file');
      expect(errors).toEqual([]);
    } finally {
      await checkpointer.stop();
    }
  });

  it('without the worker, the same rows stay in the WAL', async () => {
    db.exec('PRAGMA wal_autocheckpoint = 10000');
    const before = size(databaseFile(dir));
    write2MB();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(size(databaseFile(dir))).toBeLessThan(before + 100_000);
    expect(size(`${databaseFile(dir)}-wal`)).toBeGreaterThan(1_500_000);
  });

  it('stop waits for the worker to close its connection; the database closes and opens again whole', async () => {
    const checkpointer = startWalCheckpointer(db, databaseFile(dir), () => undefined, 20);
    write2MB();
    await checkpointer.stop();
    db.close();
    db = openDatabase(dir, []);
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 500 });
  });
});
