import { decodeTime, monotonicFactory } from 'ulid';
import { pooledRandom } from './random-pool.js';

const nextUlid = monotonicFactory(pooledRandom);

/** The earliest time an id may carry from now on: past the newest id a log kept (`eventIdsAfter`). */
let notBefore = 0;

const EVENT_ID = /^evt_([0-9a-hjkmnp-tv-z]{26})$/;

/**
 * Event ids: `evt_` + lower-case ULID. Monotonic within a process, so ids sort in the order
 * events were made even within one millisecond; and after every id passed to `eventIdsAfter`.
 */
export function newEventId(timestamp: number): string {
  return `evt_${nextUlid(Math.max(timestamp, notBefore)).toLowerCase()}`;
}

/**
 * Ids made from now on sort after `id`: the newest one a log kept, read back at start. Readers
 * take "after this id" as "made later" (local mode's webhook queues read their log after a cursor;
 * the catch-up log reads after an id), so an id that sorted before one already stored would never
 * be read. That happens when the clock has stepped back since the last run: ids then carry the
 * time just after the stored one until the clock passes it.
 */
export function eventIdsAfter(id: string): void {
  const match = EVENT_ID.exec(id);
  if (match) notBefore = Math.max(notBefore, decodeTime(match[1]!.toUpperCase()) + 1);
}
