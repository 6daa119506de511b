import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Logger } from 'pino';
import type { SchemaPart } from '../store/database.js';
import type { WriteBatch } from '../store/write-batch.js';
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
  /** Group commit with the other writes of the turn; without it each event is its own transaction. */
  readonly writes?: Pick<WriteBatch, 'add'>;
  readonly retentionMs?: number;
  readonly pruneEveryMs?: number;
  readonly now?: () => number;
}

/**
 * Local mode's event log for catching up. It subscribes to the bus like the webhook fan-out; its
 * rows are committed together every few milliseconds (`writes`), so a crash may lose the last
 * few of them from the log, never a webhook delivery.
 */
export class SqliteEventLog implements EventLog {
  private readonly insert: StatementSync;
  private readonly after: StatementSync;
  private readonly prune: StatementSync;
  private readonly retentionMs: number;
  private readonly now: () => number;
  private unsubscribe: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: SqliteEventLogOptions) {
    const { db } = options;
    this.retentionMs = options.retentionMs ?? 7 * DAY_MS;
    this.now = options.now ?? Date.now;
    this.insert = db.prepare('INSERT OR IGNORE INTO event_log (session, id, at, body) VALUES (?, ?, ?, ?)');
    this.after = db.prepare('SELECT body FROM event_log WHERE session = ? AND id > ? ORDER BY id LIMIT ?');
    this.prune = db.prepare(
      `DELETE FROM event_log WHERE (session, id) IN (SELECT session, id FROM event_log WHERE at < ? LIMIT ${PRUNE_BATCH})`,
    );
  }

  start(): void {
    this.unsubscribe ??= this.options.bus.subscribe((event) => this.append(event));
    this.pruneOld();
    this.timer = setInterval(() => this.pruneOld(), this.options.pruneEveryMs ?? 60 * 60 * 1000);
    this.timer.unref();
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    clearInterval(this.timer);
  }

  async since(session: string, since: string | undefined, limit: number): Promise<string[]> {
    return (this.after.all(session, since ?? '', limit) as { body: string }[]).map((row) => row.body);
  }

  private append({ envelope, json }: PublishedEvent): void {
    const at = this.now();
    const write = () => this.insert.run(envelope.session, envelope.id, at, json);
    if (this.options.writes) this.options.writes.add(write);
    else write();
  }

  /** Removes what is past retention, a batch per turn of the event loop. */
  private pruneOld(): void {
    const before = this.now() - this.retentionMs;
    const step = () => {
      // Stopped: the database may be closed by now.
      if (!this.unsubscribe) return;
      try {
        if (Number(this.prune.run(before).changes) === PRUNE_BATCH) setImmediate(step);
      } catch (error) {
        this.options.log.error({ err: error }, 'event log pruning failed; trying again at the next round');
      }
    };
    step();
  }
}
