import { createHash } from 'node:crypto';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { DeadDelivery, DeliveryFailureReason, EventName, WebhookConfig } from '@switchboard/protocol';
import type { PublishedEvent } from '../../events/event-bus.js';
import type { SchemaPart } from '../store/database.js';
import { storedFailureReason } from '../../webhooks/delivery-failure.js';

/**
 * One row per (event, webhook). A delivered row is deleted at once so the file does not grow
 * with traffic; a dead row (attempts used up) is kept for the user to list and replay. `delivered`
 * stays a valid state so that keeping delivered rows for a while would need no migration. The
 * `id` order is the enqueue order, which is the delivery order within a target key. A dead row is
 * never due again, so its `next_attempt_at` holds when it died.
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
  private readonly head: StatementSync;
  private readonly reschedule: StatementSync;
  private readonly bury: StatementSync;
  private readonly buryUnsent: StatementSync;
  private readonly countPending: StatementSync;
  private readonly listDead: StatementSync;
  private readonly selectDead: StatementSync;
  private readonly reviveRow: StatementSync;
  private readonly dropQueued: StatementSync;
  private readonly dropDead: StatementSync;

  constructor(
    private readonly db: DatabaseSync,
    private readonly now: () => number = Date.now,
  ) {
    this.insert = db.prepare(
      `INSERT INTO webhook_deliveries (event_id, session, target_key, target, body, next_attempt_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.due = db.prepare(`${QUEUE_HEADS} SELECT * FROM heads WHERE next_attempt_at <= :now ORDER BY next_attempt_at, id LIMIT :limit`);
    this.nextDue = db.prepare(`${QUEUE_HEADS} SELECT MIN(next_attempt_at) AS at FROM heads`);
    this.remove = db.prepare('DELETE FROM webhook_deliveries WHERE id IN (SELECT value FROM json_each(?))');
    this.head = db.prepare("SELECT * FROM webhook_deliveries WHERE state = 'pending' AND target_key = ? AND id > ? ORDER BY id LIMIT ?");
    this.reschedule = db.prepare(
      `UPDATE webhook_deliveries SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?
       WHERE id = ? AND state = 'pending'`,
    );
    this.bury = db.prepare(
      `UPDATE webhook_deliveries SET attempts = attempts + 1, last_error = ?, state = 'dead', next_attempt_at = ?
       WHERE id = ? AND state = 'pending'`,
    );
    this.buryUnsent = db.prepare(
      `UPDATE webhook_deliveries SET last_error = ?, state = 'dead', next_attempt_at = ? WHERE id = ? AND state = 'pending'`,
    );
    this.countPending = db.prepare("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE state = 'pending'");
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
    // A session's pending rows are the keys that start with its name (targetKey), dead ones by the index on session.
    this.dropQueued = db.prepare("DELETE FROM webhook_deliveries WHERE state = 'pending' AND target_key >= ? AND target_key < ?");
    this.dropDead = db.prepare("DELETE FROM webhook_deliveries WHERE state = 'dead' AND session = ?");
  }

  /**
   * Writes one row per target, all or none: the event is either owed to every target or to none,
   * so a crash between two inserts cannot deliver it to half of them. `alsoWrite` runs in the same
   * transaction (the event's row in the catch-up log). Returns the rows written, for the dispatcher
   * to send from memory once they are committed (the enclosing transaction's, when there is one).
   */
  enqueue(event: PublishedEvent, targets: readonly WebhookConfig[], alsoWrite?: () => void): DeliveryRow[] {
    if (targets.length === 0) return [];
    const { id: eventId, session } = event.envelope;
    const at = this.now();
    const body = event.json;
    const bytes = Buffer.from(body, 'utf8');
    const rows: DeliveryRow[] = [];
    this.transaction(() => {
      for (const target of targets) {
        const config = configJson(target);
        const key = targetKey(session, target.url, config);
        const id = Number(this.insert.run(eventId, session, key, config, body, at, at).lastInsertRowid);
        rows.push({ id, eventId, session, targetKey: key, target, body, bytes, attempts: 0, nextAttemptAt: at, createdAt: at });
      }
      alsoWrite?.();
    });
    return rows;
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

  /** The first `limit` pending rows of one queue after row `afterId`, due or not, oldest first. */
  headOf(targetKey: string, afterId = 0, limit = 1): DeliveryRow[] {
    return (this.head.all(targetKey, afterId, limit) as unknown as RawRow[]).map(toDeliveryRow);
  }

  /** Deletes delivered rows, several in one statement (one commit). */
  markDelivered(ids: number | readonly number[]): void {
    this.remove.run(JSON.stringify(typeof ids === 'number' ? [ids] : ids));
  }

  markFailed(id: number, reason: DeliveryFailureReason, nextAttemptAt: number): void {
    this.reschedule.run(reason, nextAttemptAt, id);
  }

  markDead(id: number, reason: DeliveryFailureReason): void {
    this.bury.run(reason, this.now(), id);
  }

  /** Dead without a further attempt (its webhook is disabled): `attempts` stays what it was. */
  markDeadUnsent(id: number, reason: DeliveryFailureReason): void {
    this.buryUnsent.run(reason, this.now(), id);
  }

  pendingCount(): number {
    return (this.countPending.get() as { n: number }).n;
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

  /** Puts dead deliveries back in their queue as new, sent with `target`, all or none. */
  revive(rows: readonly { id: number; session: string; target: WebhookConfig }[]): void {
    const at = this.now();
    this.transaction(() => {
      for (const { id, session, target } of rows) {
        const config = JSON.stringify(target);
        this.reviveRow.run(at, config, targetKey(session, target.url, config), id);
      }
    });
  }

  /**
   * Drops every delivery of a deleted session, pending and dead: they belong to that session, not
   * to its name, and a session made again with the name starts with none. Returns how many.
   */
  forgetSession(session: string): number {
    let dropped = 0;
    this.transaction(() => {
      const [from, to] = sessionKeys(session);
      dropped = Number(this.dropQueued.run(from, to).changes) + Number(this.dropDead.run(session).changes);
    });
    return dropped;
  }

  /** Joins a transaction already open (a `WriteBatch`), else runs in one of its own. */
  private transaction(work: () => void): void {
    if (this.db.isTransaction) {
      work();
      return;
    }
    this.db.exec('BEGIN');
    try {
      work();
      this.db.exec('COMMIT');
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
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

/** The target keys of a session's queues lie in [from, to): each starts with the name and a space. */
export function sessionKeys(session: string): [from: string, to: string] {
  return [`${session} `, `${session}!`];
}

/**
 * Session + url + a short hash of the whole config: two webhooks of one session with the same
 * url but different filters or secrets are two queues, and an edited webhook starts a new one.
 */
function targetKey(session: string, url: string, configJson: string): string {
  return `${session} ${configHash(configJson)} ${url}`;
}

/**
 * A webhook's config as stored, serialized once per config object: the session registry and the
 * global hook hand out the same objects for every event until the config changes (never in place).
 */
const configJsons = new WeakMap<WebhookConfig, string>();

function configJson(target: WebhookConfig): string {
  let json = configJsons.get(target);
  if (json === undefined) {
    json = JSON.stringify(target);
    configJsons.set(target, json);
  }
  return json;
}

/** Hashes of the configs seen lately: every event of a session hashes the same few configs. */
const configHashes = new Map<string, string>();

function configHash(configJson: string): string {
  let hash = configHashes.get(configJson);
  if (hash === undefined) {
    hash = createHash('sha256').update(configJson).digest('hex').slice(0, 12);
    // Bounded: edited configs would otherwise pile up for the life of the process.
    if (configHashes.size >= 1024) configHashes.clear();
    configHashes.set(configJson, hash);
  }
  return hash;
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
    createdAt: row.created_at,
  };
}
