import { mkdtempSync } from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe } from 'vitest';
import { messageStoreSuite } from '../../../engine-pod/test/history/message-store-suite.js';
import { messageSchema, SqliteMessageStore } from '../../src/history/sqlite-message-store.js';
import { openDatabase } from '../../src/store/database.js';

// A real SQLite file; each `open` is a new connection to it, as a restarted gateway would make.
const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-history-'));
const connections: DatabaseSync[] = [];
afterAll(() => {
  for (const db of connections) db.close();
});

describe('SqliteMessageStore (the gateway’s SQLite file)', () => {
  messageStoreSuite(async () => {
    const db = openDatabase(dataDir, [messageSchema]);
    connections.push(db);
    return new SqliteMessageStore(db);
  });
});
