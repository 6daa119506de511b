import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type { HistoryPage, MessageStore } from '@switchboard/engine-pod';
import type { MessageRecord } from '@switchboard/protocol';
import type { SchemaPart } from '../store/database.js';

export const messageSchema: SchemaPart = {
  name: 'messages',
  ddl: `CREATE TABLE IF NOT EXISTS messages (
    session TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    timestamp REAL NOT NULL,
    from_me INTEGER NOT NULL,
    ack INTEGER NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (session, chat_id, message_id)
  );
  CREATE INDEX IF NOT EXISTS messages_by_time ON messages (session, chat_id, timestamp);
  CREATE TABLE IF NOT EXISTS chat_aliases (
    session TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    alias TEXT NOT NULL,
    PRIMARY KEY (session, chat_id)
  );`,
};

/**
 * Local mode's message history, in the gateway's SQLite file beside the sessions. The filter
 * columns (timestamp, from_me, ack) are copies of the record's fields, so a page is one indexed
 * query. An upsert keeps the row (and its rowid), so equal timestamps keep their arrival order.
 */
export class SqliteMessageStore implements MessageStore {
  private readonly selectOne: StatementSync;
  private readonly upsert: StatementSync;
  private readonly upsertAlias: StatementSync;
  private readonly selectAlias: StatementSync;
  private readonly deleteSession: StatementSync;
  private readonly deleteAliases: StatementSync;
  /** One statement per query shape (how many chats, which filters). */
  private readonly pages = new Map<string, StatementSync>();

  constructor(private readonly db: DatabaseSync) {
    this.selectOne = db.prepare('SELECT record FROM messages WHERE session = ? AND chat_id = ? AND message_id = ?');
    this.upsert = db.prepare(
      `INSERT INTO messages (session, chat_id, message_id, timestamp, from_me, ack, record) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (session, chat_id, message_id) DO UPDATE SET timestamp = excluded.timestamp,
         from_me = excluded.from_me, ack = excluded.ack, record = excluded.record`,
    );
    this.upsertAlias = db.prepare(
      `INSERT INTO chat_aliases (session, chat_id, alias) VALUES (?, ?, ?)
       ON CONFLICT (session, chat_id) DO UPDATE SET alias = excluded.alias`,
    );
    this.selectAlias = db.prepare('SELECT alias FROM chat_aliases WHERE session = ? AND chat_id = ?');
    this.deleteSession = db.prepare('DELETE FROM messages WHERE session = ?');
    this.deleteAliases = db.prepare('DELETE FROM chat_aliases WHERE session = ?');
  }

  async get(session: string, chatId: string, messageId: string): Promise<MessageRecord | null> {
    const row = this.selectOne.get(session, chatId, messageId) as { record: string } | undefined;
    return row ? (JSON.parse(row.record) as MessageRecord) : null;
  }

  async put(session: string, chatId: string, messageId: string, record: MessageRecord): Promise<void> {
    this.upsert.run(session, chatId, messageId, record.timestamp, record.fromMe ? 1 : 0, record.ack, JSON.stringify(record));
  }

  async setAlias(session: string, chatId: string, otherId: string): Promise<void> {
    this.upsertAlias.run(session, chatId, otherId);
  }

  async aliasOf(session: string, chatId: string): Promise<string | null> {
    return (this.selectAlias.get(session, chatId) as { alias: string } | undefined)?.alias ?? null;
  }

  async query(session: string, chatIds: readonly string[], page: HistoryPage): Promise<MessageRecord[]> {
    const filters: [string, SQLInputValue | undefined][] = [
      ['timestamp <= ?', page.timestampLte],
      ['timestamp >= ?', page.timestampGte],
      ['from_me = ?', page.fromMe === undefined ? undefined : Number(page.fromMe)],
      ['ack = ?', page.ack],
    ];
    const given = filters.filter(([, value]) => value !== undefined);
    const where = ['session = ?', `chat_id IN (${chatIds.map(() => '?').join(', ')})`, ...given.map(([clause]) => clause)];
    const values: SQLInputValue[] = [session, ...chatIds, ...given.map(([, value]) => value!)];
    const order = page.sortOrder === 'asc' ? 'ASC' : 'DESC';
    const sql = `SELECT record FROM messages WHERE ${where.join(' AND ')}
      ORDER BY timestamp ${order}, rowid ${order} LIMIT ? OFFSET ?`;
    let statement = this.pages.get(sql);
    if (!statement) this.pages.set(sql, (statement = this.db.prepare(sql)));
    const rows = statement.all(...values, page.limit, page.offset) as { record: string }[];
    return rows.map((row) => JSON.parse(row.record) as MessageRecord);
  }

  async purgeSession(session: string): Promise<void> {
    this.deleteSession.run(session);
    this.deleteAliases.run(session);
  }
}
