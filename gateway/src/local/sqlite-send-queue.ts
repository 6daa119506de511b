import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { EngineCommand } from '@switchboard/protocol';
import type { QueuedSendRow, SendQueueStore, SentSend } from '@switchboard/engine-pod';
import type { SchemaPart } from './store/database.js';
import { inTransaction } from './store/transaction.js';

/*
 * The send queues of local mode, in switchboard.db. Written at once, each change its own
 * transaction (not group-committed as the webhook outbox is): a send answered 202 must survive a
 * crash the moment it is answered, and paced sends are few.
 */
export const sendQueueSchema: SchemaPart = {
  name: 'send_queue',
  ddl: `CREATE TABLE IF NOT EXISTS send_queue (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    session TEXT NOT NULL,
    id TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    route TEXT NOT NULL,
    command TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('queued', 'sending')),
    queued_at INTEGER NOT NULL,
    UNIQUE (session, id)
  );
  CREATE TABLE IF NOT EXISTS send_log (
    session TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    sent_at INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS send_log_by_session ON send_log (session, sent_at);
  CREATE TABLE IF NOT EXISTS send_pairing (
    session TEXT PRIMARY KEY,
    paired_at INTEGER NOT NULL
  );`,
};

interface Row {
  session: string;
  id: string;
  chat_id: string;
  route: string;
  command: string;
  state: 'queued' | 'sending';
  queued_at: number;
}

/** The warm-up counts a day of sends: older rows of the log are not needed. */
const LOG_KEPT_MS = 2 * 24 * 60 * 60_000;

export class SqliteSendQueue implements SendQueueStore {
  private readonly statements: Record<
    | 'insert'
    | 'count'
    | 'page'
    | 'position'
    | 'setState'
    | 'remove'
    | 'removeQueued'
    | 'sessions'
    | 'depths'
    | 'inFlight'
    | 'log'
    | 'prune'
    | 'recent'
    | 'pairedAt'
    | 'setPairedAt'
    | 'forgetPairing'
    | 'forgetQueue'
    | 'forgetLog',
    StatementSync
  >;

  constructor(private readonly db: DatabaseSync) {
    const prepare = (sql: string) => db.prepare(sql);
    this.statements = {
      insert: prepare(
        `INSERT INTO send_queue (session, id, chat_id, route, command, state, queued_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      ),
      count: prepare('SELECT count(*) AS n FROM send_queue WHERE session = ?'),
      page: prepare('SELECT * FROM send_queue WHERE session = ? ORDER BY seq LIMIT ? OFFSET ?'),
      position: prepare(
        `SELECT (SELECT count(*) FROM send_queue WHERE session = ? AND seq < (SELECT seq FROM send_queue WHERE session = ? AND id = ?)) AS n,
           EXISTS (SELECT 1 FROM send_queue WHERE session = ? AND id = ?) AS queued`,
      ),
      setState: prepare('UPDATE send_queue SET state = ? WHERE session = ? AND id = ?'),
      remove: prepare('DELETE FROM send_queue WHERE session = ? AND id = ?'),
      removeQueued: prepare(`DELETE FROM send_queue WHERE session = ? AND id = ? AND state = 'queued'`),
      sessions: prepare('SELECT DISTINCT session FROM send_queue'),
      depths: prepare('SELECT session, count(*) AS n FROM send_queue GROUP BY session'),
      inFlight: prepare(`SELECT * FROM send_queue WHERE state = 'sending' ORDER BY seq`),
      log: prepare('INSERT INTO send_log (session, chat_id, sent_at) VALUES (?, ?, ?)'),
      prune: prepare('DELETE FROM send_log WHERE session = ? AND sent_at < ?'),
      recent: prepare('SELECT chat_id, sent_at FROM send_log WHERE session = ? AND sent_at >= ? ORDER BY sent_at'),
      pairedAt: prepare('SELECT paired_at FROM send_pairing WHERE session = ?'),
      setPairedAt: prepare('INSERT INTO send_pairing (session, paired_at) VALUES (?, ?) ON CONFLICT DO NOTHING'),
      forgetPairing: prepare('DELETE FROM send_pairing WHERE session = ?'),
      forgetQueue: prepare('DELETE FROM send_queue WHERE session = ?'),
      forgetLog: prepare('DELETE FROM send_log WHERE session = ?'),
    };
  }

  add(row: QueuedSendRow): boolean {
    const { changes } = this.statements.insert.run(row.session, row.id, row.chatId, row.route, JSON.stringify(row.command), row.state, row.queuedAt);
    return changes === 1;
  }

  count(session: string): number {
    return (this.statements.count.get(session) as { n: number }).n;
  }

  list(session: string, { limit, offset }: { readonly limit: number; readonly offset: number }): QueuedSendRow[] {
    return (this.statements.page.all(session, limit, offset) as unknown as Row[]).map(fromRow);
  }

  position(session: string, id: string): number {
    const row = this.statements.position.get(session, session, id, session, id) as { n: number; queued: number };
    return row.queued ? row.n : -1;
  }

  markSending(session: string, id: string): void {
    this.statements.setState.run('sending', session, id);
  }

  requeue(session: string, id: string): void {
    this.statements.setState.run('queued', session, id);
  }

  markSent(session: string, id: string, sent: SentSend): void {
    this.transaction(() => {
      this.statements.remove.run(session, id);
      this.statements.log.run(session, sent.chatId, sent.at);
      this.statements.prune.run(session, sent.at - LOG_KEPT_MS);
    });
  }

  drop(session: string, id: string): void {
    this.statements.remove.run(session, id);
  }

  cancel(session: string, id: string): boolean {
    return this.statements.removeQueued.run(session, id).changes === 1;
  }

  sessionsWithSends(): string[] {
    return (this.statements.sessions.all() as Array<{ session: string }>).map(({ session }) => session);
  }

  depths(): Map<string, number> {
    return new Map((this.statements.depths.all() as Array<{ session: string; n: number }>).map(({ session, n }) => [session, n]));
  }

  inFlight(): QueuedSendRow[] {
    return (this.statements.inFlight.all() as unknown as Row[]).map(fromRow);
  }

  recentSends(session: string, since: number): SentSend[] {
    return (this.statements.recent.all(session, since) as Array<{ chat_id: string; sent_at: number }>).map((row) => ({
      chatId: row.chat_id,
      at: row.sent_at,
    }));
  }

  pairedAt(session: string): number | null {
    return (this.statements.pairedAt.get(session) as { paired_at: number } | undefined)?.paired_at ?? null;
  }

  setPairedAt(session: string, at: number): void {
    this.statements.setPairedAt.run(session, at);
  }

  forgetPairing(session: string): void {
    this.statements.forgetPairing.run(session);
  }

  forgetSession(session: string): void {
    this.transaction(() => {
      this.statements.forgetQueue.run(session);
      this.statements.forgetLog.run(session);
      this.statements.forgetPairing.run(session);
    });
  }

  private transaction(work: () => void): void {
    inTransaction(this.db, work, 'BEGIN IMMEDIATE');
  }
}

function fromRow(row: Row): QueuedSendRow {
  return {
    id: row.id,
    session: row.session,
    chatId: row.chat_id,
    route: row.route,
    command: JSON.parse(row.command) as EngineCommand,
    state: row.state,
    queuedAt: row.queued_at,
  };
}
