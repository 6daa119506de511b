import { mkdtempSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HistoryRecorder } from '@switchboard/engine-pod';
import type { MessageRecord } from '@switchboard/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { messageStoreSuite } from '../../../engine-pod/test/history/message-store-suite.js';
import { messageSchema, SqliteMessageStore } from '../../src/local/sqlite-message-store.js';
import { BackgroundWriter } from '../../src/local/store/background-writer.js';
import { databaseFile, HISTORY_FILE, openDatabase } from '../../src/local/store/database.js';

// A real SQLite file; each `open` is a new connection to it, as a restarted gateway would make.
const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-history-'));
const connections: DatabaseSync[] = [];
const writers: BackgroundWriter[] = [];
afterAll(async () => {
  await Promise.all(writers.map((writer) => writer.close()));
  for (const db of connections) db.close();
});

describe('SqliteMessageStore (the gateway’s SQLite file)', () => {
  messageStoreSuite(async () => {
    const db = openDatabase(dataDir, [messageSchema]);
    connections.push(db);
    return new SqliteMessageStore(db);
  });
});

describe('SqliteMessageStore written by a writer thread (as local mode runs it)', () => {
  // A file of its own: the suite names its sessions the same way in each run.
  const threadDir = mkdtempSync(join(tmpdir(), 'switchboard-history-thread-'));
  // As a gateway closes before another opens the file, the earlier stores' writes are committed first.
  messageStoreSuite(async () => {
    await Promise.all(writers.map((writer) => writer.flush()));
    const db = openDatabase(threadDir, [messageSchema], HISTORY_FILE);
    connections.push(db);
    const writer = new BackgroundWriter({ file: databaseFile(threadDir, HISTORY_FILE), delayMs: 20, onError: () => undefined });
    writers.push(writer);
    return new SqliteMessageStore(db, writer);
  });
});

describe('SqliteMessageStore: what the writer thread changes', () => {
  const silent = { info() {}, warn() {}, error() {} };
  const chat = '15550001111@c.us';
  const sent = (id: string, ack = 0): MessageRecord => ({
    id: `true_${chat}_${id}`,
    timestamp: 1_700_000_000,
    from: '15550000000@c.us',
    fromMe: true,
    source: 'api',
    to: chat,
    participant: null,
    body: id,
    hasMedia: false,
    media: null,
    ack: ack as MessageRecord['ack'],
    ackName: (['PENDING', 'SERVER', 'DEVICE', 'READ'] as const)[ack]!,
    vCards: [],
    replyTo: null,
    _data: {},
  });
  const open = () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-history-thread-'));
    const db = openDatabase(dir, [messageSchema, { name: 't', ddl: 'CREATE TABLE IF NOT EXISTS t (v TEXT UNIQUE)' }], HISTORY_FILE);
    const errors: number[] = [];
    // A commit a minute away: only a read (or `flush`) sends the writes to be committed.
    const writer = new BackgroundWriter({ file: databaseFile(dir, HISTORY_FILE), delayMs: 60_000, onError: (_, writes) => errors.push(writes) });
    writers.push(writer);
    // Another connection sees only what is committed.
    const other = new DatabaseSync(databaseFile(dir, HISTORY_FILE));
    connections.push(db, other);
    const committed = () =>
      (other.prepare('SELECT message_id, ack FROM messages ORDER BY rowid').all() as { message_id: string; ack: number }[]).map(
        (r) => `${r.message_id}:${r.ack}`,
      );
    return { db, writer, errors, committed, store: new SqliteMessageStore(db, writer) };
  };

  it('writes wait for the batch, and every read of the store sees them first', async () => {
    const { writer, committed, store } = open();
    const recorder = new HistoryRecorder(store, silent);
    recorder.record({ session: 's', event: 'message.any', payload: sent('A') });
    recorder.record({ session: 's', event: 'message.ack', payload: { id: sent('A').id, fromMe: true, participant: null, ack: 2 } });
    recorder.record({ session: 's', event: 'message.any', payload: sent('B') });
    await recorder.flush();
    expect(committed()).toEqual([]);
    // A page commits what is queued, so the API reads every write made before it.
    const page = await store.query('s', [chat], { limit: 10, offset: 0, sortOrder: 'asc' });
    expect(page.map((r) => [r.body, r.ack, r.ackName])).toEqual([
      ['A', 2, 'DEVICE'],
      ['B', 0, 'PENDING'],
    ]);
    expect(committed()).toEqual(['A:2', 'B:0']);

    await store.advanceAck('s', chat, 'B', 3);
    expect(committed()).toEqual(['A:2', 'B:0']);
    expect(await store.get('s', chat, 'B')).toMatchObject({ ack: 3, ackName: 'READ' });
    expect(committed()).toEqual(['A:2', 'B:3']);

    await store.setAlias('s', chat, '8550001111@lid');
    expect(await store.aliasOf('s', chat)).toBe('8550001111@lid');
    await store.put('s', chat, 'C', sent('C'));
    await writer.flush();
    expect(committed()).toEqual(['A:2', 'B:3', 'C:0']);
  });

  it('a batch that fails writes none of its history, reports it, and the store carries on', async () => {
    const { db, writer, errors, committed, store } = open();
    db.prepare("INSERT INTO t (v) VALUES ('taken')").run();
    await store.put('s', chat, 'LOST', sent('LOST'));
    writer.statement('INSERT INTO t (v) VALUES (?)').add('taken');
    await writer.flush();
    expect(errors).toEqual([2]);
    expect(await store.get('s', chat, 'LOST')).toBeNull();
    await store.put('s', chat, 'KEPT', sent('KEPT'));
    expect((await store.get('s', chat, 'KEPT'))?.body).toBe('KEPT');
    expect(committed()).toEqual(['KEPT:0']);
  });

  it('a record that cannot be stored fails its own put, not the batch', async () => {
    const { writer, errors, committed, store } = open();
    await store.put('s', chat, 'OK', sent('OK'));
    await expect(store.put('s', chat, 'BAD', { ...sent('BAD'), timestamp: undefined as never })).rejects.toThrow(/timestamp/);
    await writer.flush();
    expect(errors).toEqual([]);
    expect(committed()).toEqual(['OK:0']);
  });
});
