import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/**
 * One SQLite file holds local mode's state: sessions, key hashes, webhook deliveries.
 * Each area owns its tables and hands its schema here as idempotent DDL (`CREATE ... IF NOT
 * EXISTS`), so a fresh data dir and an existing one open the same way.
 */
export interface SchemaPart {
  readonly name: string;
  readonly ddl: string;
}

export function openDatabase(dataDir: string, parts: readonly SchemaPart[]): DatabaseSync {
  mkdirSync(dataDir, { recursive: true });
  const db = new DatabaseSync(join(dataDir, 'switchboard.db'));
  // WAL lets readers go on while a delivery is written; NORMAL still survives a process crash
  // (only an OS crash can lose the last transactions), which is the failure we design for.
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
  for (const part of parts) db.exec(part.ddl);
  return db;
}
