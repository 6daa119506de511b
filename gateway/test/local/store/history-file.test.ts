import { existsSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { eventLogSchema } from '../../../src/local/sqlite-event-log.js';
import { messageSchema } from '../../../src/local/sqlite-message-store.js';
import { databaseFile, HISTORY_FILE } from '../../../src/local/store/database.js';
import { startGateway } from '../../support/gateway.js';

function tables(file: string): string[] {
  const db = new DatabaseSync(file);
  try {
    return (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((row) => row.name);
  } finally {
    db.close();
  }
}

/** Puts a data dir back as it was before `history.db`: its tables and rows in switchboard.db. */
function toOldLayout(dataDir: string): void {
  const main = new DatabaseSync(databaseFile(dataDir));
  main.exec(messageSchema.ddl);
  main.exec(eventLogSchema.ddl);
  main.prepare('ATTACH DATABASE ? AS history').run(databaseFile(dataDir, HISTORY_FILE));
  for (const table of ['messages', 'chat_aliases']) main.exec(`INSERT INTO main.${table} SELECT * FROM history.${table} ORDER BY rowid`);
  main.exec('INSERT INTO main.event_log SELECT * FROM history.event_log');
  main.exec('DETACH DATABASE history');
  main.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(databaseFile(dataDir, HISTORY_FILE) + suffix, { force: true });
}

describe('history.db: the event log and the message history in a file of their own', () => {
  it('a data dir of the old layout has its history and event log moved there at start-up, once', async () => {
    const first = await startGateway();
    const chat = '15553330002@c.us';
    let before: { history: unknown; log: unknown[] };
    try {
      await first.api('POST', '/api/sessions', { name: 'moved' });
      await first.api('POST', '/api/moved/sandbox/simulate', { kind: 'scan' });
      await first.api('POST', '/api/moved/sandbox/simulate', { kind: 'message', from: chat, body: 'first' });
      await first.api('POST', '/api/sendText', { session: 'moved', chatId: chat, text: 'second' });
      const history = await waitFor(async () => {
        const res = await first.api('GET', `/api/moved/chats/${chat}/messages?sortOrder=asc`);
        return res.body.length === 2 && res.body[1].ack === 2 && res.body;
      }, 'both messages, the sent one at DEVICE');
      const log = (await first.api('GET', '/api/moved/event-log?limit=1000')).body as unknown[];
      before = { history, log };
      expect(log.length).toBeGreaterThan(3);
    } finally {
      await first.close();
    }
    expect(tables(databaseFile(first.dataDir))).not.toContain('messages');
    toOldLayout(first.dataDir);
    expect(existsSync(databaseFile(first.dataDir, HISTORY_FILE))).toBe(false);

    for (let start = 0; start < 2; start++) {
      const again = await startGateway({ dataDir: first.dataDir });
      try {
        expect((await again.api('GET', `/api/moved/chats/${chat}/messages?sortOrder=asc`)).body).toEqual(before.history);
        const log = (await again.api('GET', '/api/moved/event-log?limit=1000')).body as unknown[];
        // Stopping and starting the session made events of its own; the old ones come first, unchanged.
        expect(log.slice(0, before.log.length)).toEqual(before.log);
      } finally {
        await again.close();
      }
      expect(tables(databaseFile(first.dataDir))).toEqual(expect.not.arrayContaining(['messages', 'chat_aliases', 'event_log']));
      expect(tables(databaseFile(first.dataDir, HISTORY_FILE))).toEqual(['chat_aliases', 'event_log', 'messages']);
    }
  });
});
