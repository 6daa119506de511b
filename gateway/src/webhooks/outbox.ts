import { createHash } from 'node:crypto';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { WebhookConfig } from '@switchboard/protocol';
import type { PublishedEvent } from '../events/event-bus.js';
import type { SchemaPart } from '../store/database.js';

/**
 * One row per (event, webhook). A delivered row is deleted at once so the file does not grow
 * with traffic; a dead row (attempts used up) is kept for the user to inspect. `delivered` stays
 * a valid state so that keeping delivered rows for a while would need no migration. The `id`
 * order is the enqueue order, which is the delivery order within a target key.
 */
export const webhookOutboxSchema: SchemaPart = {
  name: 'webhook-outbox',
  ddl: `
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
  `,
};

/** A pending delivery as the dispatcher needs it. `attempts` counts the failed ones so far. */
export interface DeliveryRow {
  readonly id: number;
  readonly eventId: string;
  readonly session: string;
  readonly targetKey: string;
  readonly target: WebhookConfig;
  readonly body: string;
  readonly attempts: number;
  readonly nextAttemptAt: number;
}

/** A delivery that used up its attempts. Carries no hmac key or header values, so it may be shown. */
export interface DeadDelivery {
  readonly id: number;
  readonly eventId: string;
  readonly session: string;
  readonly url: string;
  readonly attempts: number;
  readonly lastError: string | null;
  readonly createdAt: number;
}

/**
 * Each target key is its own ordered queue: only its oldest pending row (its head) may be sent.
 * The recursive part walks the distinct keys through the partial index (a skip scan), so finding
 * the heads costs one index probe per key, not a scan of every pending row behind a dead receiver.
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

export class WebhookOutbox {
  private readonly insert: StatementSync;
  private readonly due: StatementSync;
  private readonly nextDue: StatementSync;
  private readonly remove: StatementSync;
  private readonly reschedule: StatementSync;
  private readonly bury: StatementSync;
  private readonly countPending: StatementSync;
  private readonly listDead: StatementSync;

  constructor(
    private readonly db: DatabaseSync,
    private readonly now: () => number = Date.now,
  ) {
    this.insert = db.prepare(
      `INSERT INTO webhook_deliveries (event_id, session, target_key, target, body, next_attempt_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.due = db.prepare(
      `${QUEUE_HEADS} SELECT * FROM heads WHERE next_attempt_at <= :now ORDER BY next_attempt_at, id LIMIT :limit`,
    );
    this.nextDue = db.prepare(`${QUEUE_HEADS} SELECT MIN(next_attempt_at) AS at FROM heads`);
    this.remove = db.prepare('DELETE FROM webhook_deliveries WHERE id = ?');
    this.reschedule = db.prepare(
      `UPDATE webhook_deliveries SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?
       WHERE id = ? AND state = 'pending'`,
    );
    this.bury = db.prepare(
      `UPDATE webhook_deliveries SET attempts = attempts + 1, last_error = ?, state = 'dead'
       WHERE id = ? AND state = 'pending'`,
    );
    this.countPending = db.prepare("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE state = 'pending'");
    this.listDead = db.prepare("SELECT * FROM webhook_deliveries WHERE state = 'dead' AND session = ? ORDER BY id");
  }

  /**
   * Writes one row per target, all or none: the event is either owed to every target or to none,
   * so a crash between two inserts cannot deliver it to half of them.
   */
  enqueue(event: PublishedEvent, targets: readonly WebhookConfig[]): void {
    if (targets.length === 0) return;
    const { id, session } = event.envelope;
    const at = this.now();
    this.db.exec('BEGIN');
    try {
      for (const target of targets) {
        const config = JSON.stringify(target);
        this.insert.run(id, session, targetKey(session, target.url, config), config, event.json, at, at);
      }
      this.db.exec('COMMIT');
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
  }

  /** Heads of queues due at `now`, oldest due first, leaving out the keys already being sent. */
  takeDue(now: number, limit: number, excludeKeys: Iterable<string> = []): DeliveryRow[] {
    if (limit <= 0) return [];
    const rows = this.due.all({ now, limit, exclude: JSON.stringify([...excludeKeys]) }) as unknown as RawRow[];
    return rows.map(toDeliveryRow);
  }

  /** When the earliest head outside `excludeKeys` falls due, or null when none is pending. */
  nextDueAt(excludeKeys: Iterable<string> = []): number | null {
    const row = this.nextDue.get({ exclude: JSON.stringify([...excludeKeys]) }) as { at: number | null } | undefined;
    return row?.at ?? null;
  }

  markDelivered(id: number): void {
    this.remove.run(id);
  }

  markFailed(id: number, error: string, nextAttemptAt: number): void {
    this.reschedule.run(error, nextAttemptAt, id);
  }

  markDead(id: number, error: string): void {
    this.bury.run(error, id);
  }

  pendingCount(): number {
    return (this.countPending.get() as { n: number }).n;
  }

  deadFor(session: string): DeadDelivery[] {
    return (this.listDead.all(session) as unknown as RawRow[]).map((row) => ({
      id: row.id,
      eventId: row.event_id,
      session: row.session,
      url: (JSON.parse(row.target) as WebhookConfig).url,
      attempts: row.attempts,
      lastError: row.last_error,
      createdAt: row.created_at,
    }));
  }
}

/**
 * Session + url + a short hash of the whole config: two webhooks of one session with the same
 * url but different filters or secrets are two queues, and an edited webhook starts a new one.
 */
function targetKey(session: string, url: string, configJson: string): string {
  const hash = createHash('sha256').update(configJson).digest('hex').slice(0, 12);
  return `${session} ${hash} ${url}`;
}

function toDeliveryRow(row: RawRow): DeliveryRow {
  return {
    id: row.id,
    eventId: row.event_id,
    session: row.session,
    targetKey: row.target_key,
    target: JSON.parse(row.target) as WebhookConfig,
    body: row.body,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
  };
}
