import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { ApiKeyActions, type StoredApiKey } from '@switchboard/protocol';
import type { SchemaPart } from './store/database.js';
import { KeyRing } from '../auth/key-ring.js';
import { type ApiKeyStore, isScoped } from '../auth/key-store.js';

/** The row of the admin key generated when SWITCHBOARD_API_KEY is unset; not managed by /api/keys. */
const GENERATED_ADMIN_ID = 'admin';

export const apiKeySchema: SchemaPart = {
  name: 'api_keys',
  ddl: `CREATE TABLE IF NOT EXISTS api_keys (
    id TEXT PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL CHECK (kind IN ('admin', 'general', 'media', 'control')),
    session TEXT,
    created_at INTEGER NOT NULL,
    is_active INTEGER NOT NULL DEFAULT 1,
    actions TEXT,
    incarnation TEXT
  );
  CREATE UNIQUE INDEX IF NOT EXISTS api_keys_one_per_session ON api_keys (kind, session) WHERE kind IN ('media', 'control');`,
};

/** Columns added after the first release of the table; data dirs made before get them here. */
const ADDED_COLUMNS: Record<string, string> = {
  is_active: 'is_active INTEGER NOT NULL DEFAULT 1',
  actions: 'actions TEXT',
  incarnation: 'incarnation TEXT',
};

interface KeyRow {
  id: string;
  hash: string;
  kind: StoredApiKey['kind'];
  session: string | null;
  created_at: number;
  is_active: number;
  actions: string | null;
  incarnation: string | null;
}

/** Key hashes in SQLite (local mode). Only hashes are ever written. */
export class KeyStore implements ApiKeyStore {
  readonly ring = new KeyRing();
  private readonly adminQuery: StatementSync;
  private readonly insert: StatementSync;
  private readonly update: StatementSync;
  private readonly deletion: StatementSync;

  constructor(db: DatabaseSync) {
    addMissingColumns(db);
    this.adminQuery = db.prepare(`SELECT hash FROM api_keys WHERE id = '${GENERATED_ADMIN_ID}'`);
    this.insert = db.prepare(
      `INSERT INTO api_keys (id, hash, kind, session, created_at, is_active, actions, incarnation) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT DO NOTHING`,
    );
    this.update = db.prepare(`UPDATE api_keys SET kind = ?, session = ?, is_active = ?, actions = ?, incarnation = ? WHERE id = ?`);
    this.deletion = db.prepare(`DELETE FROM api_keys WHERE id = ?`);
    const rows = db.prepare(`SELECT * FROM api_keys WHERE id != '${GENERATED_ADMIN_ID}'`).all() as unknown as KeyRow[];
    for (const row of rows) this.ring.put(fromRow(row));
  }

  storedAdminHash(): string | null {
    const row = this.adminQuery.get() as { hash: string } | undefined;
    return row?.hash ?? null;
  }

  saveAdminHash(hash: string): void {
    this.insert.run(GENERATED_ADMIN_ID, hash, 'admin', null, Date.now(), 1, null, null);
  }

  async add(key: StoredApiKey): Promise<StoredApiKey> {
    const { changes } = this.insert.run(
      key.id,
      key.hash,
      key.kind,
      key.session,
      key.createdAt,
      key.isActive ? 1 : 0,
      key.actions === null ? null : JSON.stringify(key.actions),
      key.incarnation ?? null,
    );
    if (changes === 0) {
      // Only the one-per-session index can refuse a fresh id and a fresh random secret.
      const existing = isScoped(key) ? this.ring.scoped(key.kind, key.session) : undefined;
      if (!existing) throw new Error(`api key ${key.id} was not stored`);
      return existing;
    }
    this.ring.put(key);
    return key;
  }

  async replace(key: StoredApiKey): Promise<boolean> {
    const actions = key.actions === null ? null : JSON.stringify(key.actions);
    const { changes } = this.update.run(key.kind, key.session, key.isActive ? 1 : 0, actions, key.incarnation ?? null, key.id);
    if (changes === 0) return false;
    this.ring.put(key);
    return true;
  }

  async remove(id: string): Promise<boolean> {
    if (id === GENERATED_ADMIN_ID) return false;
    const { changes } = this.deletion.run(id);
    this.ring.delete(id);
    return changes > 0;
  }
}

function addMissingColumns(db: DatabaseSync): void {
  const present = new Set((db.prepare(`PRAGMA table_info(api_keys)`).all() as { name: string }[]).map((c) => c.name));
  for (const [name, definition] of Object.entries(ADDED_COLUMNS)) {
    if (!present.has(name)) db.exec(`ALTER TABLE api_keys ADD COLUMN ${definition}`);
  }
}

function fromRow(row: KeyRow): StoredApiKey {
  return {
    id: row.id,
    hash: row.hash,
    kind: row.kind,
    session: row.session,
    createdAt: row.created_at,
    isActive: row.is_active === 1,
    actions: row.actions === null ? null : ApiKeyActions.parse(JSON.parse(row.actions)),
    ...(row.incarnation === null ? {} : { incarnation: row.incarnation }),
  };
}
