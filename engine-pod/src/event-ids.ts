import { monotonicFactory } from 'ulid';
import { pooledRandom } from './random-pool.js';

const nextUlid = monotonicFactory(pooledRandom);

/**
 * Event ids: `evt_` + lower-case ULID. Monotonic within a process, so ids sort in the order
 * events were made even within one millisecond.
 */
export function newEventId(timestamp: number): string {
  return `evt_${nextUlid(timestamp).toLowerCase()}`;
}
