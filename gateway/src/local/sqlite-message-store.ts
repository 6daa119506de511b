import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type { HistoryPage, LidPair, MessageStore, StoredChat } from '@switchboard/engine-pod';
import { type Ack, ACKS, ackName, type MessageRecord } from '@switchboard/protocol';
import type { SchemaPart } from './store/database.js';
import { DirectWrites, type SqlWrite, type SqlWrites } from './store/sql-writes.js';

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
 * `furtherAck` (engine-pod history-recorder.ts) in SQL, `current` and `next` being SQL
 * expressions: acknowledgements only move forward, and ERROR only from before DEVICE.
 */
const furtherAckSql = (current: string, next: string) =>
  `CASE WHEN ${next} = ${ACKS.ERROR} THEN (CASE WHEN ${current} < ${ACKS.DEVICE} THEN ${ACKS.ERROR} ELSE ${current} END)
        WHEN ${next} > ${current} THEN ${next} ELSE ${current} END`;

const INSERT = `INSERT INTO messages (session, chat_id, message_id, timestamp, from_me, ack, record) VALUES (?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (session, chat_id, message_id) DO UPDATE SET timestamp = excluded.timestamp,
    from_me = excluded.from_me, record = excluded.record`;

/**
 * Local mode's message history, in the SQLite file `history.db` (store/database.ts). The filter
 * columns (timestamp, from_me, ack) are copies of the record's fields, so a page is one indexed
 * query. An upsert keeps the row (and its rowid), so equal timestamps keep their arrival order.
 *
 * The `ack` column is the truth about a message's acknowledgement: `advanceAck` and `upsert`
 * move it in one statement, without reading the row or rewriting its JSON, and every read puts
 * it (and its `ackName`) into the record it parses.
 *
 * `db` is for reading. Writes go through `writes`: in local mode the group commit of a writer
 * thread (store/background-writer.ts), as writing a message at every event was most of a
 * sendText's cost (docs/architecture.md); by default each at once on `db`. A read awaits the
 * writes queued before it, so it sees every one of them.
 */
export class SqliteMessageStore implements MessageStore {
  private readonly selectOne: StatementSync;
  private readonly selectAlias: StatementSync;
  private readonly selectChats: StatementSync;
  private readonly selectLids: StatementSync;
  private readonly countLids: StatementSync;
  private readonly replace: SqlWrite;
  private readonly merge: SqlWrite;
  private readonly forward: SqlWrite;
  private readonly upsertAlias: SqlWrite;
  private readonly deleteChat: SqlWrite;
  private readonly deleteSession: SqlWrite;
  private readonly deleteAliases: SqlWrite;
  /** One statement per query shape (how many chats, which filters). */
  private readonly pages = new Map<string, StatementSync>();

  constructor(
    private readonly db: DatabaseSync,
    private readonly writes: SqlWrites = new DirectWrites(db),
  ) {
    this.selectOne = db.prepare('SELECT ack, record FROM messages WHERE session = ? AND chat_id = ? AND message_id = ?');
    this.selectAlias = db.prepare('SELECT alias FROM chat_aliases WHERE session = ? AND chat_id = ?');
    this.selectChats = db.prepare(
      `SELECT chat_id, ack, record, messages FROM (
         SELECT chat_id, ack, record, COUNT(*) OVER (PARTITION BY chat_id) AS messages,
                ROW_NUMBER() OVER (PARTITION BY chat_id ORDER BY timestamp DESC, rowid DESC) AS newest
         FROM messages WHERE session = ?)
       WHERE newest = 1`,
    );
    this.selectLids = db.prepare(
      "SELECT chat_id AS lid, alias AS pn FROM chat_aliases WHERE session = ? AND chat_id LIKE '%@lid' ORDER BY chat_id LIMIT ? OFFSET ?",
    );
    this.countLids = db.prepare("SELECT count(*) AS count FROM chat_aliases WHERE session = ? AND chat_id LIKE '%@lid'");
    this.replace = writes.statement(`${INSERT}, ack = excluded.ack`);
    this.merge = writes.statement(`${INSERT}, ack = ${furtherAckSql('ack', 'excluded.ack')}`);
    // Only a row whose acknowledgement moves is written at all. Numbered parameters: binding an
    // object by name cost half as much again as the update itself.
    this.forward = writes.statement(
      `UPDATE messages SET ack = ?1 WHERE session = ?2 AND chat_id = ?3 AND message_id = ?4
         AND ack <> ${furtherAckSql('ack', '?1')}`,
    );
    this.upsertAlias = writes.statement(
      `INSERT INTO chat_aliases (session, chat_id, alias) VALUES (?, ?, ?)
       ON CONFLICT (session, chat_id) DO UPDATE SET alias = excluded.alias`,
    );
    this.deleteChat = writes.statement('DELETE FROM messages WHERE session = ? AND chat_id = ?');
    this.deleteSession = writes.statement('DELETE FROM messages WHERE session = ?');
    this.deleteAliases = writes.statement('DELETE FROM chat_aliases WHERE session = ?');
  }

  async get(session: string, chatId: string, messageId: string): Promise<MessageRecord | null> {
    await this.writes.flush();
    const row = this.selectOne.get(session, chatId, messageId) as StoredRow | undefined;
    return row ? recordOf(row) : null;
  }

  async put(session: string, chatId: string, messageId: string, record: MessageRecord): Promise<void> {
    writeRecord(this.replace, session, chatId, messageId, record);
  }

  async upsert(session: string, chatId: string, messageId: string, record: MessageRecord): Promise<void> {
    writeRecord(this.merge, session, chatId, messageId, record);
  }

  async advanceAck(session: string, chatId: string, messageId: string, ack: Ack): Promise<void> {
    this.forward.add(ack, session, chatId, messageId);
  }

  async setAlias(session: string, chatId: string, otherId: string): Promise<void> {
    this.upsertAlias.add(session, chatId, otherId);
  }

  async aliasOf(session: string, chatId: string): Promise<string | null> {
    await this.writes.flush();
    return (this.selectAlias.get(session, chatId) as { alias: string } | undefined)?.alias ?? null;
  }

  async lids(session: string, page: { readonly limit: number; readonly offset: number }): Promise<LidPair[]> {
    await this.writes.flush();
    return (this.selectLids.all(session, page.limit, page.offset) as unknown as LidPair[]).map(({ lid, pn }) => ({ lid, pn }));
  }

  async lidCount(session: string): Promise<number> {
    await this.writes.flush();
    return (this.countLids.get(session) as { count: number }).count;
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
    const sql = `SELECT ack, record FROM messages WHERE ${where.join(' AND ')}
      ORDER BY timestamp ${order}, rowid ${order} LIMIT ? OFFSET ?`;
    await this.writes.flush();
    let statement = this.pages.get(sql);
    if (!statement) this.pages.set(sql, (statement = this.db.prepare(sql)));
    return (statement.all(...values, page.limit, page.offset) as unknown as StoredRow[]).map(recordOf);
  }

  async chats(session: string): Promise<StoredChat[]> {
    await this.writes.flush();
    const rows = this.selectChats.all(session) as unknown as (StoredRow & { chat_id: string; messages: number })[];
    return rows.map((row) => ({ chatId: row.chat_id, last: recordOf(row), messages: row.messages }));
  }

  async forgetChat(session: string, chatId: string): Promise<void> {
    this.deleteChat.add(session, chatId);
    await this.writes.flush();
  }

  async purgeSession(session: string): Promise<void> {
    this.deleteSession.add(session);
    this.deleteAliases.add(session);
    await this.writes.flush();
  }
}

/**
 * What can fail for this record alone fails here, in its own call: inside the group commit it
 * would roll back the other writes of the batch too.
 */
function writeRecord(statement: SqlWrite, session: string, chatId: string, messageId: string, record: MessageRecord): void {
  if (typeof record.timestamp !== 'number' || typeof record.ack !== 'number') {
    throw new TypeError(`message ${String(record.id)}: timestamp and ack must be numbers`);
  }
  statement.add(session, chatId, messageId, record.timestamp, record.fromMe ? 1 : 0, record.ack, JSON.stringify(record));
}

interface StoredRow {
  readonly ack: number;
  readonly record: string;
}

/** The record as stored, with the acknowledgement of its `ack` column. */
function recordOf(row: StoredRow): MessageRecord {
  const record = JSON.parse(row.record) as MessageRecord;
  const ack = row.ack as Ack;
  record.ack = ack;
  record.ackName = ackName(ack);
  return record;
}
