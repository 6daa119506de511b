import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Logger } from 'pino';
import type { SchemaPart } from './store/database.js';
import { DirectWrites, type SqlWrite, type SqlWrites } from './store/sql-writes.js';
import type { EventLog, EventLogWriter } from '../webhooks/ports.js';
import type { PublishedEvent } from '../events/event-bus.js';

/**
 * Every event of every session, as sent, for `retentionMs` (7 days: as long as cluster mode's
 * SB_EVENTS keeps them). Keyed by (session, id): event ids sort in the order a session made its
 * events, so "after this id" is a range of the primary key.
 */
function logTable(table: string): string {
  return `
    CREATE TABLE IF NOT EXISTS ${table} (
      session TEXT NOT NULL,
      id TEXT NOT NULL,
      at INTEGER NOT NULL,
      body TEXT NOT NULL,
      PRIMARY KEY (session, id)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS ${table}_age ON ${table} (at);
  `;
}

/** The events no webhook takes, in `history.db`, written by the history writer. */
export const eventLogSchema: SchemaPart = { name: 'event-log', ddl: logTable('event_log') };

/**
 * The events queued for a webhook, in `switchboard.db`: the webhooks' queue, written by the outbox
 * (webhooks/outbox.ts) in the group commit before the answer, read through each queue's cursor. A
 * crash never leaves a delivered or queued event out of the log.
 */
export const queuedEventLogSchema: SchemaPart = { name: 'webhook-event-log', ddl: logTable('webhook_event_log') };

const DAY_MS = 24 * 60 * 60 * 1000;

/** Rows removed per statement: pruning a busy week runs in short steps, never one long lock. */
const PRUNE_BATCH = 5_000;

export interface SqliteEventLogOptions {
  /** `history.db`, read here; its rows are written through `writes`. */
  readonly db: DatabaseSync;
  readonly log: Logger;
  /**
   * Where the rows of `db` are written: in local mode the group commit of a writer thread (every
   * 20 ms); by default each at once, on `db`.
   */
  readonly writes?: SqlWrites;
  /**
   * The outbox's database (`switchboard.db`): the events queued for a webhook are logged there, by
   * the outbox, and read here too.
   */
  readonly queued?: DatabaseSync;
  readonly retentionMs?: number;
  readonly pruneEveryMs?: number;
  readonly now?: () => number;
}

const PRUNE = (table: string) => `DELETE FROM ${table} WHERE (session, id) IN (SELECT session, id FROM ${table} WHERE at < ? LIMIT ${PRUNE_BATCH})`;
/**
 * An event queued for a webhook stays while a queue's cursor has not passed it, past retention
 * too: retention waits for the queue rather than lose an event it owes (webhooks/README.md).
 */
const PRUNE_QUEUED = `DELETE FROM webhook_event_log WHERE (session, id) IN (
  SELECT session, id FROM webhook_event_log l WHERE at < ?
    AND NOT EXISTS (SELECT 1 FROM webhook_cursors c WHERE c.session = l.session AND c.after < l.id)
  LIMIT ${PRUNE_BATCH})`;
const AFTER = (table: string) => `SELECT id, body FROM ${table} WHERE session = ? AND id > ? ORDER BY id LIMIT ?`;

interface LogRow {
  readonly id: string;
  readonly body: string;
}

/**
 * Local mode's event log for catching up, in two parts:
 * - an event queued for a webhook: in `switchboard.db`, written by the outbox in the group commit
 *   (it is the webhooks' queue), so the log holds every event that was delivered or will be,
 *   whatever crashes, and a commit that fails (a full disk) leaves neither;
 * - any other event: in `history.db`, committed with the others of the last 20 ms by the writer
 *   thread (`writes`), off the event loop. A crash may lose the last of these (docs/events.md).
 * A read awaits the rows queued before it and merges the two. A row's body is the event's `json`,
 * the very string webhooks and websockets send (serialized once, by the engine host).
 */
export class SqliteEventLog implements EventLog, EventLogWriter {
  private readonly insert: SqlWrite;
  private readonly after: StatementSync;
  private readonly queuedAfter: StatementSync | undefined;
  private readonly writes: SqlWrites;
  private readonly retentionMs: number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private pruning = false;

  constructor(private readonly options: SqliteEventLogOptions) {
    const { db, queued } = options;
    this.retentionMs = options.retentionMs ?? 7 * DAY_MS;
    this.now = options.now ?? Date.now;
    this.writes = options.writes ?? new DirectWrites(db);
    this.insert = this.writes.statement('INSERT OR IGNORE INTO event_log (session, id, at, body) VALUES (?, ?, ?, ?)');
    this.after = db.prepare(AFTER('event_log'));
    this.queuedAfter = queued?.prepare(AFTER('webhook_event_log'));
  }

  /** Starts pruning what is past retention, at once and then every `pruneEveryMs`. */
  start(): void {
    if (this.running) return;
    this.running = true;
    void this.pruneOld();
    this.timer = setInterval(() => void this.pruneOld(), this.options.pruneEveryMs ?? 60 * 60 * 1000);
    this.timer.unref();
  }

  stop(): void {
    this.running = false;
    clearInterval(this.timer);
  }

  append({ envelope, json }: PublishedEvent): void {
    this.insert.add(envelope.session, envelope.id, this.now(), json);
  }

  async since(session: string, since: string | undefined, limit: number): Promise<string[]> {
    // Rows still queued are committed first: a catch-up read sees every event published before it.
    await this.writes.flush();
    const from = since ?? '';
    const alone = this.after.all(session, from, limit) as unknown as LogRow[];
    const queued = (this.queuedAfter?.all(session, from, limit) ?? []) as unknown as LogRow[];
    return mergeById(alone, queued, limit);
  }

  /** Forgets every event of a deleted session: a session made again with its name starts with an empty log. */
  async forget(session: string): Promise<void> {
    this.options.queued?.prepare('DELETE FROM webhook_event_log WHERE session = ?').run(session);
    await this.writes.changes('DELETE FROM event_log WHERE session = ?', [session]);
  }

  /** Removes what is past retention, a batch at a time, one round at a time. */
  private async pruneOld(): Promise<void> {
    if (this.pruning) return;
    this.pruning = true;
    const before = this.now() - this.retentionMs;
    try {
      // Stopped: the database may be closed by now.
      while (this.running && (await this.writes.changes(PRUNE('event_log'), [before])) === PRUNE_BATCH) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      const queued = this.options.queued && new DirectWrites(this.options.queued);
      while (queued && this.running && (await queued.changes(PRUNE_QUEUED, [before])) === PRUNE_BATCH) {
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (error) {
      this.options.log.error({ err: error }, 'event log pruning failed; trying again at the next round');
    } finally {
      this.pruning = false;
    }
  }
}

/** Two pages sorted by id, as one sorted page of at most `limit` bodies. */
function mergeById(a: readonly LogRow[], b: readonly LogRow[], limit: number): string[] {
  const bodies: string[] = [];
  let i = 0;
  let j = 0;
  while (bodies.length < limit && (i < a.length || j < b.length)) {
    if (j >= b.length || (i < a.length && a[i]!.id < b[j]!.id)) bodies.push(a[i++]!.body);
    else if (i < a.length && a[i]!.id === b[j]!.id) {
      bodies.push(a[i++]!.body);
      j++;
    } else bodies.push(b[j++]!.body);
  }
  return bodies;
}
