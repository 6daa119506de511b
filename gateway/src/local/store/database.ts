import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { makePrivateDirSync, makePrivateFileSync, tighten } from '@switchboard/engine-pod';

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
const MAIN_FILE = 'switchboard.db';
/** The event log and the message history, written by a thread of their own (background-writer.ts). */
export const HISTORY_FILE = 'history.db';

/** The path of one of a data dir's SQLite files. */
export function databaseFile(dataDir: string, name = MAIN_FILE): string {
  return join(dataDir, name);
}

/**
 * Opens (or makes) one of the data dir's SQLite files. The dir is 0700 and the file 0600, made so
 * or brought down to it, as are -wal and -shm files left by an earlier run: they hold key hashes,
 * webhook secrets and messages. SQLite makes new -wal and -shm files with the file's mode.
 */
export function openDatabase(dataDir: string, parts: readonly SchemaPart[], name = MAIN_FILE): DatabaseSync {
  makePrivateDirSync(dataDir);
  const file = databaseFile(dataDir, name);
  makePrivateFileSync(file);
  tighten(`${file}-wal`);
  tighten(`${file}-shm`);
  const db = new DatabaseSync(file);
  // WAL lets readers go on while a delivery is written; NORMAL still survives a process crash
  // (only an OS crash can lose the last transactions), which is the failure we design for.
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
  for (const part of parts) db.exec(part.ddl);
  return db;
}
