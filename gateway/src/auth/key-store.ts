import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { SchemaPart } from '../store/database.js';

export const apiKeySchema: SchemaPart = {
  name: 'api_keys',
  ddl: `CREATE TABLE IF NOT EXISTS api_keys (
    id TEXT PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL CHECK (kind IN ('admin', 'general', 'media', 'control')),
    session TEXT,
    created_at INTEGER NOT NULL
  );`,
};

/** Key hashes in SQLite (local mode). Only hashes are ever written. */
export class KeyStore {
  private readonly adminQuery: StatementSync;
  private readonly insert: StatementSync;

  constructor(db: DatabaseSync) {
    this.adminQuery = db.prepare(`SELECT hash FROM api_keys WHERE kind = 'admin' ORDER BY created_at LIMIT 1`);
    this.insert = db.prepare(`INSERT INTO api_keys (id, hash, kind, session, created_at) VALUES (?, ?, ?, ?, ?)`);
  }

  storedAdminHash(): string | null {
    const row = this.adminQuery.get() as { hash: string } | undefined;
    return row?.hash ?? null;
  }

  saveAdminHash(hash: string): void {
    this.insert.run('admin', hash, 'admin', null, Date.now());
  }
}
