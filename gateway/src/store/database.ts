import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/**
 * Two SQLite files hold local mode's state: `switchboard.db` sessions, key hashes, webhook
 * deliveries and media; `history.db` the event log and the message history. Each area owns its
 * tables and hands its schema here as idempotent DDL (`CREATE ... IF NOT EXISTS`), so a fresh
 * data dir and an existing one open the same way.
 */
export interface SchemaPart {
  readonly name: string;
  readonly ddl: string;
}

/** The main file: sessions, keys, webhook deliveries, media. */
export const MAIN_FILE = 'switchboard.db';
/** The event log and the message history, written by a thread of their own (background-writer.ts). */
export const HISTORY_FILE = 'history.db';

/** The path of one of a data dir's SQLite files. */
export function databaseFile(dataDir: string, name = MAIN_FILE): string {
  return join(dataDir, name);
}

export function openDatabase(dataDir: string, parts: readonly SchemaPart[], name = MAIN_FILE): DatabaseSync {
  mkdirSync(dataDir, { recursive: true });
  const db = new DatabaseSync(databaseFile(dataDir, name));
  // WAL lets readers go on while a delivery is written; NORMAL still survives a process crash
  // (only an OS crash can lose the last transactions), which is the failure we design for.
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
  for (const part of parts) db.exec(part.ddl);
  return db;
}
