import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { DeadDelivery, DeliveryFailureReason, EventName, WebhookConfig } from '@switchboard/protocol';
import type { PublishedEvent } from '../../events/event-bus.js';
import type { SchemaPart } from '../store/database.js';
import { queuedEventLogSchema } from '../sqlite-event-log.js';
import { storedFailureReason } from '../../webhooks/delivery-failure.js';
import type { WebhookTarget } from '../../webhooks/webhook-targets.js';
import { adoptOlderRows } from './outbox-upgrade.js';
import { queueKey, sessionKeys, splitKey } from './queue-keys.js';
import { inTransaction } from '../store/transaction.js';

/**
 * The durable side of the (session, webhook) queues. The queue itself is the event log's
 * `webhook_event_log` (sqlite-event-log.ts): one row per event some webhook wants, written here
 * in the group commit, however many webhooks want it. Beside it, per queue:
 * - `webhook_cursors`: the last event of the log the queue is done with (delivered, dead, moved
 *   to an entry, or one its webhook does not want). A queue's pending events are those after it.
 * - `webhook_deliveries`: the few entries of their own: a head waiting for its retry (pending,
 *   `attempts` > 0), a dead letter (`dead`, its `next_attempt_at` holds when it died), a dead
 *   letter replayed (pending again). An entry holds its body, so retention never takes it. An
 *   event becomes an entry in the transaction that moves the cursor past it, and the queue's
 *   pending entries go before its events after the cursor: the order per queue stays the log's.
 */
export const webhookOutboxSchema: SchemaPart = {
  name: 'webhook-outbox',
  // The log first: the queues read it, and it must exist wherever they do.
  ddl: `${queuedEventLogSchema.ddl}
    CREATE TABLE IF NOT EXISTS webhook_deliveries (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      event_id TEXT NOT NULL,
      session TEXT NOT NULL,
      target_key TEXT NOT NULL,
      target TEXT NOT NULL,
      body TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_at INTEGER NOT NULL,
      state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'dead')),
      last_error TEXT,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS webhook_deliveries_queue
      ON webhook_deliveries (target_key, id) WHERE state = 'pending';
    CREATE INDEX IF NOT EXISTS webhook_deliveries_dead
      ON webhook_deliveries (session, id) WHERE state = 'dead';
    CREATE TABLE IF NOT EXISTS webhook_cursors (
      queue TEXT PRIMARY KEY,
      session TEXT NOT NULL,
      after TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS webhook_cursors_session ON webhook_cursors (session, after);
  `,
};

/** A pending delivery as the dispatcher needs it. `attempts` counts the failed ones so far. */
export interface DeliveryRow {
  /** Its entry in `webhook_deliveries`; null for an event read from the log (or just logged). */
  readonly entryId: number | null;
  /** Also its position in the log: event ids sort in the order the session made them. */
  readonly eventId: string;
  readonly session: string;
  /** Its queue: `queueKey(session, target id)`. */
  readonly targetKey: string;
  /** The webhook when the row was read or queued; the dispatcher sends with the current one. */
  readonly target: WebhookConfig;
  readonly body: string;
  /**
   * `body` as UTF-8, when known: the rows `enqueue` returns share one copy per event, so the
   * dispatcher sends every target the same bytes without encoding them again.
   */
  readonly bytes?: Uint8Array;
  readonly attempts: number;
  readonly nextAttemptAt: number;
  /** When it was queued: in local mode, within a millisecond of when the event was made. */
  readonly createdAt: number;
}

/** A queue's webhook as the session has it now, or null once it is gone. */
export type TargetOf = (session: string, targetId: string) => WebhookConfig | null;

/**
 * Each target key is its own ordered queue: only its oldest pending entry (its head) may be sent.
 * The recursive part walks the distinct keys through the partial index (a skip scan), so finding
 * the heads costs one index probe per key, not a scan of every entry behind a dead receiver.
 */
const QUEUE_HEADS = `
  WITH RECURSIVE keys(k) AS (
    SELECT MIN(target_key) FROM webhook_deliveries WHERE state = 'pending'
    UNION ALL
    SELECT (SELECT MIN(target_key) FROM webhook_deliveries WHERE state = 'pending' AND target_key > k)
    FROM keys WHERE k IS NOT NULL
  ),
  heads AS (
    SELECT d.* FROM keys JOIN webhook_deliveries d ON d.id = (
      SELECT id FROM webhook_deliveries WHERE state = 'pending' AND target_key = keys.k ORDER BY id LIMIT 1
    )
    WHERE keys.k NOT IN (SELECT value FROM json_each(:exclude))
  )`;

/** The events of a queue's log after its cursor that its webhook wants (`:all`, else a name in `:events`). */
const LOG_AFTER_CURSOR = `
  SELECT l.id, l.at, l.body FROM webhook_cursors c
  JOIN webhook_event_log l ON l.session = c.session AND l.id > c.after
  WHERE c.queue = :queue AND (:all OR l.body ->> '$.event' IN (SELECT value FROM json_each(:events)))
  ORDER BY l.id LIMIT :limit`;

interface RawRow {
  id: number;
  event_id: string;
  session: string;
  target_key: string;
  target: string;
  body: string;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  created_at: number;
}

interface LogRow {
  id: string;
  at: number;
  body: string;
}

export interface WebhookOutboxOptions {
  /** The session's current webhooks decide what a queue sends, and to whom (as in cluster mode). */
  readonly targetOf: TargetOf;
  readonly now?: () => number;
}

export class WebhookOutbox {
  private readonly now: () => number;
  readonly targetOf: TargetOf;
  private readonly insertEvent: StatementSync;
  private readonly insertCursor: StatementSync;
  private readonly advance: StatementSync;
  private readonly skipToEnd: StatementSync;
  private readonly insertEntry: StatementSync;
  private readonly dueEntries: StatementSync;
  private readonly dueLogs: StatementSync;
  private readonly nextDue: StatementSync;
  private readonly removeEntries: StatementSync;
  private readonly pendingEntries: StatementSync;
  private readonly logAfterCursor: StatementSync;
  private readonly reschedule: StatementSync;
  private readonly bury: StatementSync;
  private readonly countEntries: StatementSync;
  private readonly cursors: StatementSync;
  private readonly countAfter: StatementSync;
  private readonly listDead: StatementSync;
  private readonly selectDead: StatementSync;
  private readonly reviveRow: StatementSync;
  private readonly dropQueued: StatementSync;
  private readonly dropDead: StatementSync;
  private readonly dropCursors: StatementSync;
  private readonly dropCursor: StatementSync;
  private readonly dropQueueEntries: StatementSync;
  /** Queues whose cursor row is known to exist: the steady state writes no cursor per event. */
  private readonly knownCursors = new Set<string>();

  constructor(
    private readonly db: DatabaseSync,
    options: WebhookOutboxOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.targetOf = options.targetOf;
    this.insertEvent = db.prepare('INSERT OR IGNORE INTO webhook_event_log (session, id, at, body) VALUES (?, ?, ?, ?)');
    // A queue seen for the first time starts just before this event: a webhook added later
    // gets the events from then on, never the log's past.
    this.insertCursor = db.prepare(
      `INSERT OR IGNORE INTO webhook_cursors (queue, session, after)
       VALUES (?, ?, COALESCE((SELECT MAX(id) FROM webhook_event_log WHERE session = ? AND id < ?), ''))`,
    );
    this.advance = db.prepare('UPDATE webhook_cursors SET after = ? WHERE queue = ? AND after < ?');
    this.skipToEnd = db.prepare(
      `UPDATE webhook_cursors SET after = (SELECT MAX(id) FROM webhook_event_log WHERE session = webhook_cursors.session)
       WHERE queue = ? AND after < (SELECT MAX(id) FROM webhook_event_log WHERE session = webhook_cursors.session)`,
    );
    this.insertEntry = db.prepare(
      `INSERT INTO webhook_deliveries (event_id, session, target_key, target, body, attempts, next_attempt_at, state, last_error, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.dueEntries = db.prepare(
      `${QUEUE_HEADS} SELECT target_key FROM heads WHERE next_attempt_at <= :now ORDER BY next_attempt_at, id LIMIT :limit`,
    );
    // Queues with events after their cursor and no entry ahead of them: due now.
    this.dueLogs = db.prepare(
      `SELECT c.queue FROM webhook_cursors c
       WHERE c.queue NOT IN (SELECT value FROM json_each(:exclude))
         AND EXISTS (SELECT 1 FROM webhook_event_log l WHERE l.session = c.session AND l.id > c.after)
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.state = 'pending' AND d.target_key = c.queue)
       LIMIT :limit`,
    );
    this.nextDue = db.prepare(`${QUEUE_HEADS} SELECT MIN(next_attempt_at) AS at FROM heads`);
    this.removeEntries = db.prepare('DELETE FROM webhook_deliveries WHERE id IN (SELECT value FROM json_each(?))');
    this.pendingEntries = db.prepare("SELECT * FROM webhook_deliveries WHERE state = 'pending' AND target_key = ? ORDER BY id LIMIT ?");
    this.logAfterCursor = db.prepare(LOG_AFTER_CURSOR);
    this.reschedule = db.prepare(
      `UPDATE webhook_deliveries SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?
       WHERE id = ? AND state = 'pending'`,
    );
    this.bury = db.prepare(
      `UPDATE webhook_deliveries SET attempts = attempts + ?, last_error = ?, state = 'dead', next_attempt_at = ?
       WHERE id = ? AND state = 'pending'`,
    );
    this.countEntries = db.prepare("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE state = 'pending'");
    this.cursors = db.prepare('SELECT queue, session FROM webhook_cursors');
    this.countAfter = db.prepare(
      `SELECT COUNT(*) AS n FROM webhook_cursors c JOIN webhook_event_log l ON l.session = c.session AND l.id > c.after
       WHERE c.queue = :queue AND (:all OR l.body ->> '$.event' IN (SELECT value FROM json_each(:events)))`,
    );
    this.listDead = db.prepare("SELECT * FROM webhook_deliveries WHERE state = 'dead' AND session = ? ORDER BY id LIMIT ? OFFSET ?");
    this.selectDead = db.prepare(
      "SELECT * FROM webhook_deliveries WHERE state = 'dead' AND session = ? AND id IN (SELECT value FROM json_each(?)) ORDER BY id",
    );
    // Back to its first attempt, due now; under the current config, so its queue may change too.
    this.reviveRow = db.prepare(
      `UPDATE webhook_deliveries SET state = 'pending', attempts = 0, last_error = NULL, next_attempt_at = ?,
         target = ?, target_key = ?
       WHERE id = ? AND state = 'dead'`,
    );
    // A session's queues are the keys that start with its name (queueKey), dead entries by the index on session.
    this.dropQueued = db.prepare("DELETE FROM webhook_deliveries WHERE state = 'pending' AND target_key >= ? AND target_key < ?");
    this.dropDead = db.prepare("DELETE FROM webhook_deliveries WHERE state = 'dead' AND session = ?");
    this.dropCursors = db.prepare('DELETE FROM webhook_cursors WHERE queue >= ? AND queue < ?');
    this.dropCursor = db.prepare('DELETE FROM webhook_cursors WHERE queue = ?');
    this.dropQueueEntries = db.prepare("DELETE FROM webhook_deliveries WHERE state = 'pending' AND target_key = ?");
  }

  /**
   * Takes over the pending rows an older version wrote (`outbox-upgrade.ts`). Called once the
   * sessions can be asked for their webhooks, before the first look at the queues.
   */
  adoptOlderRows(): void {
    adoptOlderRows(this.db, this.targetOf);
  }

  /**
   * Logs the event once, whatever the number of targets, and gives each target's queue a cursor
   * if it has none yet, all or none. Returns the rows for the dispatcher to send from memory once
   * they are committed (the enclosing transaction's, when there is one). A caller whose
   * transaction rolls back calls `rolledBack`: the cursors it believed made were not.
   */
  enqueue(event: PublishedEvent, targets: readonly WebhookTarget<WebhookConfig>[]): DeliveryRow[] {
    if (targets.length === 0) return [];
    const { id: eventId, session } = event.envelope;
    const at = this.now();
    const body = event.json;
    const bytes = Buffer.from(body, 'utf8');
    const rows: DeliveryRow[] = [];
    this.transaction(() => {
      this.insertEvent.run(session, eventId, at, body);
      for (const { id, config } of targets) {
        const key = queueKey(session, id);
        if (!this.knownCursors.has(key)) {
          this.insertCursor.run(key, session, session, eventId);
          this.knownCursors.add(key);
        }
        rows.push({ entryId: null, eventId, session, targetKey: key, target: config, body, bytes, attempts: 0, nextAttemptAt: at, createdAt: at });
      }
    });
    return rows;
  }

  /** The transaction of the last `enqueue`s rolled back: their cursors are made again next time. */
  rolledBack(): void {
    this.knownCursors.clear();
  }

  /**
   * Queues due at `now` outside `excludeKeys`: those whose head entry is due, oldest due first,
   * then those with events after their cursor.
   */
  takeDue(now: number, limit: number, excludeKeys: Iterable<string> = []): string[] {
    if (limit <= 0) return [];
    const exclude = JSON.stringify([...excludeKeys]);
    const keys = (this.dueEntries.all({ now, limit, exclude }) as { target_key: string }[]).map((row) => row.target_key);
    if (keys.length >= limit) return keys;
    const logs = this.dueLogs.all({ limit: limit - keys.length, exclude }) as { queue: string }[];
    return [...keys, ...logs.map((row) => row.queue)];
  }

  /** When the earliest head entry outside `excludeKeys` falls due, or null when none is pending. */
  nextDueAt(excludeKeys: Iterable<string> = []): number | null {
    const row = this.nextDue.get({ exclude: JSON.stringify([...excludeKeys]) }) as { at: number | null } | undefined;
    return row?.at ?? null;
  }

  /**
   * The first `limit` pending rows of a queue, due or not: its entries, then the events after
   * its cursor that its webhook wants. None: the queue is done with the log up to its end, and
   * its cursor moves there (past events its webhook does not want), so retention may prune them.
   * Null: the webhook is gone, and so are the queue's cursor and pending entries.
   */
  headOf(targetKey: string, limit: number): DeliveryRow[] | null {
    const [session, targetId] = splitKey(targetKey);
    const target = this.targetOf(session, targetId);
    if (target === null) {
      this.dropQueue(targetKey);
      return null;
    }
    const rows = (this.pendingEntries.all(targetKey, limit) as unknown as RawRow[]).map((row) => toDeliveryRow(row, target));
    if (rows.length < limit) {
      const all = target.events.includes('*') ? 1 : 0;
      const logged = this.logAfterCursor.all({ queue: targetKey, all, events: JSON.stringify(target.events), limit: limit - rows.length });
      for (const { id, at, body } of logged as unknown as LogRow[]) {
        rows.push({ entryId: null, eventId: id, session, targetKey, target, body, attempts: 0, nextAttemptAt: at, createdAt: at });
      }
    }
    if (rows.length === 0) this.skipToEnd.run(targetKey);
    return rows;
  }

  /**
   * Delivered rows: entries deleted in one statement, and each queue's cursor moved past its last
   * event in one UPDATE per queue. Several rows cost a statement per queue, not per row.
   */
  markDelivered(rows: readonly DeliveryRow[]): void {
    const entries: number[] = [];
    const cursors = new Map<string, string>();
    for (const row of rows) {
      if (row.entryId !== null) entries.push(row.entryId);
      else if ((cursors.get(row.targetKey) ?? '') < row.eventId) cursors.set(row.targetKey, row.eventId);
    }
    this.transaction(() => {
      if (entries.length > 0) this.removeEntries.run(JSON.stringify(entries));
      for (const [key, eventId] of cursors) this.advance.run(eventId, key, eventId);
    });
  }

  markFailed(row: DeliveryRow, reason: DeliveryFailureReason, nextAttemptAt: number): void {
    if (row.entryId !== null) {
      this.reschedule.run(reason, nextAttemptAt, row.entryId);
      return;
    }
    this.toEntry(row, 1, nextAttemptAt, 'pending', reason);
  }

  markDead(row: DeliveryRow, reason: DeliveryFailureReason): void {
    this.buryRow(row, 1, reason);
  }

  /** Dead without a further attempt (its webhook is disabled): `attempts` stays what it was. */
  markDeadUnsent(row: DeliveryRow, reason: DeliveryFailureReason): void {
    this.buryRow(row, 0, reason);
  }

  /** Deliveries not made yet: pending entries, and the events after each cursor its webhook wants. */
  pendingCount(): number {
    let n = (this.countEntries.get() as { n: number }).n;
    for (const { queue, session } of this.cursors.all() as { queue: string; session: string }[]) {
      const target = this.targetOf(session, splitKey(queue)[1]);
      if (target === null) continue;
      const all = target.events.includes('*') ? 1 : 0;
      n += (this.countAfter.get({ queue, all, events: JSON.stringify(target.events) }) as { n: number }).n;
    }
    return n;
  }

  /** The session's dead deliveries, oldest first. Shows the webhook's url only: never its secrets. */
  deadFor(session: string, page: { limit: number; offset: number } = { limit: 1000, offset: 0 }): DeadDelivery[] {
    return (this.listDead.all(session, page.limit, page.offset) as unknown as RawRow[]).map(toDeadDelivery);
  }

  /** The named dead deliveries of the session (all of them without `ids`); unknown ids are left out. */
  deadByIds(session: string, ids: readonly number[] | undefined): DeadDelivery[] {
    if (ids === undefined) return this.deadFor(session, { limit: -1, offset: 0 });
    return (this.selectDead.all(session, JSON.stringify(ids)) as unknown as RawRow[]).map(toDeadDelivery);
  }

  /** Puts dead deliveries back at the head of their queue as new, sent with `target`, all or none. */
  revive(rows: readonly { id: number; session: string; target: WebhookTarget<WebhookConfig> }[]): void {
    const at = this.now();
    this.transaction(() => {
      for (const { id, session, target } of rows) this.reviveRow.run(at, JSON.stringify(target.config), queueKey(session, target.id), id);
    });
  }

  /**
   * Drops every delivery of a deleted session, its cursors, pending and dead entries: they belong
   * to that session, not to its name, and a session made again with the name starts with none.
   * (The event log forgets its events: `SqliteEventLog.forget`.) Returns how many entries.
   */
  forgetSession(session: string): number {
    let dropped = 0;
    const [from, to] = sessionKeys(session);
    this.transaction(() => {
      this.dropCursors.run(from, to);
      dropped = Number(this.dropQueued.run(from, to).changes) + Number(this.dropDead.run(session).changes);
    });
    for (const key of [...this.knownCursors]) if (key >= from && key < to) this.knownCursors.delete(key);
    return dropped;
  }

  /** A webhook removed from its session: its cursor and pending entries go; its dead letters stay. */
  dropQueue(targetKey: string): void {
    this.transaction(() => {
      this.dropCursor.run(targetKey);
      this.dropQueueEntries.run(targetKey);
    });
    this.knownCursors.delete(targetKey);
  }

  /** An event of the log becomes an entry, and the cursor moves past it, in one transaction. */
  private toEntry(row: DeliveryRow, attempts: number, at: number, state: 'pending' | 'dead', reason: DeliveryFailureReason): void {
    this.transaction(() => {
      this.insertEntry.run(row.eventId, row.session, row.targetKey, JSON.stringify(row.target), row.body, attempts, at, state, reason, row.createdAt);
      this.advance.run(row.eventId, row.targetKey, row.eventId);
    });
  }

  private buryRow(row: DeliveryRow, attempt: 0 | 1, reason: DeliveryFailureReason): void {
    const at = this.now();
    if (row.entryId !== null) this.bury.run(attempt, reason, at, row.entryId);
    else this.toEntry(row, row.attempts + attempt, at, 'dead', reason);
  }

  /** Joins a transaction already open (a `WriteBatch`), else runs in one of its own. */
  private transaction(work: () => void): void {
    inTransaction(this.db, work);
  }
}

function toDeadDelivery(row: RawRow): DeadDelivery {
  return {
    id: row.id,
    eventId: row.event_id,
    // The stored body is the envelope as sent; only its name is read back.
    event: (JSON.parse(row.body) as { event: EventName }).event,
    session: row.session,
    url: (JSON.parse(row.target) as WebhookConfig).url,
    attempts: row.attempts,
    lastError: storedFailureReason(row.last_error),
    createdAt: row.created_at,
    deadAt: row.next_attempt_at,
  };
}

function toDeliveryRow(row: RawRow, target: WebhookConfig): DeliveryRow {
  return {
    entryId: row.id,
    eventId: row.event_id,
    session: row.session,
    targetKey: row.target_key,
    target,
    body: row.body,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
  };
}
