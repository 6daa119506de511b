import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Logger } from 'pino';
import type { SchemaPart } from '../store/database.js';
import { DirectWrites, type SqlWrite, type SqlWrites } from '../store/sql-writes.js';
import type { EventLog } from '../webhooks/ports.js';
import type { EventBus, PublishedEvent } from './event-bus.js';

/**
 * Every event of every session, as sent, for `retentionMs` (7 days: as long as cluster mode's
 * SB_EVENTS keeps them). Keyed by (session, id): event ids sort in the order a session made its
 * events, so "after this id" is a range of the primary key.
 */
export const eventLogSchema: SchemaPart = {
  name: 'event-log',
  ddl: `
    CREATE TABLE IF NOT EXISTS event_log (
      session TEXT NOT NULL,
      id TEXT NOT NULL,
      at INTEGER NOT NULL,
      body TEXT NOT NULL,
      PRIMARY KEY (session, id)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS event_log_age ON event_log (at);
  `,
};

const DAY_MS = 24 * 60 * 60 * 1000;

/** Rows removed per statement: pruning a busy week runs in short steps, never one long lock. */
const PRUNE_BATCH = 5_000;

export interface SqliteEventLogOptions {
  readonly db: DatabaseSync;
  readonly bus: EventBus;
  readonly log: Logger;
  /**
   * Where the rows are written: in local mode the group commit of a writer thread (every 20 ms);
   * by default each at once, on `db`.
   */
  readonly writes?: SqlWrites;
  readonly retentionMs?: number;
  readonly pruneEveryMs?: number;
  readonly now?: () => number;
}

const PRUNE = `DELETE FROM event_log WHERE (session, id) IN (SELECT session, id FROM event_log WHERE at < ? LIMIT ${PRUNE_BATCH})`;

/**
 * Local mode's event log for catching up, in `history.db`. It subscribes to the bus like the
 * webhook fan-out; its rows are committed together every few milliseconds (`writes`), so a crash
 * may lose the last few of them from the log, never a webhook delivery. A read awaits the rows
 * queued before it. A row's body is the event's `json`, the very string webhooks and websockets
 * send (serialized once, by the engine host).
 */
export class SqliteEventLog implements EventLog {
  private readonly insert: SqlWrite;
  private readonly after: StatementSync;
  private readonly writes: SqlWrites;
  private readonly retentionMs: number;
  private readonly now: () => number;
  private unsubscribe: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private pruning = false;

  constructor(private readonly options: SqliteEventLogOptions) {
    const { db } = options;
    this.retentionMs = options.retentionMs ?? 7 * DAY_MS;
    this.now = options.now ?? Date.now;
    this.writes = options.writes ?? new DirectWrites(db);
    this.insert = this.writes.statement('INSERT OR IGNORE INTO event_log (session, id, at, body) VALUES (?, ?, ?, ?)');
    this.after = db.prepare('SELECT body FROM event_log WHERE session = ? AND id > ? ORDER BY id LIMIT ?');
  }

  start(): void {
    this.unsubscribe ??= this.options.bus.subscribe((event) => this.append(event));
    void this.pruneOld();
    this.timer = setInterval(() => void this.pruneOld(), this.options.pruneEveryMs ?? 60 * 60 * 1000);
    this.timer.unref();
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    clearInterval(this.timer);
  }

  async since(session: string, since: string | undefined, limit: number): Promise<string[]> {
    // Rows still queued are committed first: a catch-up read sees every event published before it.
    await this.writes.flush();
    return (this.after.all(session, since ?? '', limit) as { body: string }[]).map((row) => row.body);
  }

  private append({ envelope, json }: PublishedEvent): void {
    this.insert.add(envelope.session, envelope.id, this.now(), json);
  }

  /** Removes what is past retention, a batch at a time, one round at a time. */
  private async pruneOld(): Promise<void> {
    if (this.pruning) return;
    this.pruning = true;
    const before = this.now() - this.retentionMs;
    try {
      // Stopped: the database may be closed by now.
      while (this.unsubscribe && (await this.writes.changes(PRUNE, [before])) === PRUNE_BATCH) {
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (error) {
      this.options.log.error({ err: error }, 'event log pruning failed; trying again at the next round');
    } finally {
      this.pruning = false;
    }
  }
}
