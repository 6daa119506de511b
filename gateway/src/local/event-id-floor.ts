import type { DatabaseSync } from 'node:sqlite';
import { eventIdsAfter } from '@switchboard/engine-pod';

/** How far before the newest row's time an id may still be the newest (ids and `at` are read from two clocks a moment apart). */
const WINDOW_MS = 60 * 60 * 1000;

/**
 * Makes the ids of this run's events sort after every id the logs kept (`eventIdsAfter`), so
 * that a clock stepped back since the last run cannot hide new events behind a webhook queue's
 * cursor or a catch-up's "after". Reads the newest hour of each log through its `at` index, not
 * the whole log.
 */
export function floorEventIds(logs: readonly { db: DatabaseSync; table: 'event_log' | 'webhook_event_log' }[]): void {
  for (const { db, table } of logs) {
    const row = db.prepare(`SELECT MAX(id) AS id FROM ${table} WHERE at >= (SELECT MAX(at) FROM ${table}) - ?`).get(WINDOW_MS) as
      { id: string | null } | undefined;
    if (row?.id) eventIdsAfter(row.id);
  }
}
