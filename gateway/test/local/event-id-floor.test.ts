import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newEventId } from '../../../engine-pod/src/event-ids.js';
import { floorEventIds } from '../../src/local/event-id-floor.js';
import { eventLogSchema, queuedEventLogSchema } from '../../src/local/sqlite-event-log.js';
import { HISTORY_FILE, openDatabase } from '../../src/local/store/database.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('event ids after a restart whose clock stepped back (local/event-id-floor.ts)', () => {
  it('sort after the newest id either log kept, so no queue cursor or catch-up skips the new events', () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-id-floor-'));
    dirs.push(dir);
    const db = openDatabase(dir, [queuedEventLogSchema]);
    const historyDb = openDatabase(dir, [eventLogSchema], HISTORY_FILE);
    const insert = (database: typeof db, table: string, at: number) => {
      const id = newEventId(at);
      database.prepare(`INSERT INTO ${table} (session, id, at, body) VALUES ('default', ?, ?, '{}')`).run(id, at);
      return id;
    };
    // The last run's clock was ahead: its newest events carry ids from two hours from now.
    const ahead = Date.now() + 2 * 3_600_000;
    insert(db, 'webhook_event_log', ahead - 10);
    const newestQueued = insert(db, 'webhook_event_log', ahead - 5);
    const newestLogged = insert(historyDb, 'event_log', ahead);
    // An old row far outside the newest hour is not what decides.
    insert(historyDb, 'event_log', ahead - 3 * 3_600_000);

    floorEventIds([
      { db, table: 'webhook_event_log' },
      { db: historyDb, table: 'event_log' },
    ]);
    const next = newEventId(Date.now());
    expect(next > newestQueued).toBe(true);
    expect(next > newestLogged).toBe(true);
    db.close();
    historyDb.close();
  });
});
