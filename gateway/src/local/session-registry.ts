import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { AppConfig, EngineName, SessionConfig } from '@switchboard/protocol';
import type { SchemaPart } from './store/database.js';

/** What is kept of a session between restarts. Status is not: it belongs to the running engine. */
export interface SessionRecord {
  readonly name: string;
  readonly engine: EngineName;
  readonly config: SessionConfig;
  readonly apps: AppConfig[];
  /** Whether the session should be running: sessions that were running start again. */
  readonly running: boolean;
  readonly createdAt: number;
}

export const sessionSchema: SchemaPart = {
  name: 'sessions',
  ddl: `CREATE TABLE IF NOT EXISTS sessions (
    name TEXT PRIMARY KEY,
    engine TEXT NOT NULL,
    config TEXT NOT NULL,
    apps TEXT NOT NULL,
    running INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  );`,
};

interface Row {
  name: string;
  engine: string;
  config: string;
  apps: string;
  running: number;
  created_at: number;
}

/**
 * The session registry of local mode: SQLite for durability, a map in front of it because
 * every event asks for its session's webhooks and that must not cost a query.
 */
export class SessionRegistry {
  private readonly cache = new Map<string, SessionRecord>();
  private readonly upsert: StatementSync;
  private readonly remove: StatementSync;

  constructor(db: DatabaseSync) {
    this.upsert = db.prepare(
      `INSERT INTO sessions (name, engine, config, apps, running, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET engine = excluded.engine, config = excluded.config,
         apps = excluded.apps, running = excluded.running`,
    );
    this.remove = db.prepare('DELETE FROM sessions WHERE name = ?');
    for (const row of db.prepare('SELECT * FROM sessions ORDER BY created_at, name').all() as unknown as Row[]) {
      this.cache.set(row.name, {
        name: row.name,
        engine: row.engine as EngineName,
        config: JSON.parse(row.config) as SessionConfig,
        apps: JSON.parse(row.apps) as AppConfig[],
        running: row.running === 1,
        createdAt: row.created_at,
      });
    }
  }

  get(name: string): SessionRecord | undefined {
    return this.cache.get(name);
  }

  all(): SessionRecord[] {
    return [...this.cache.values()];
  }

  save(record: SessionRecord): void {
    this.upsert.run(record.name, record.engine, JSON.stringify(record.config), JSON.stringify(record.apps), record.running ? 1 : 0, record.createdAt);
    this.cache.set(record.name, record);
  }

  delete(name: string): void {
    this.remove.run(name);
    this.cache.delete(name);
  }
}
