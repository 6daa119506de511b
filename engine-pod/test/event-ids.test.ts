import { describe, expect, it } from 'vitest';
import { eventIdsAfter, newEventId } from '../src/event-ids.js';

describe('event ids (engine-pod/src/event-ids.ts)', () => {
  it('sort in the order they were made, within one millisecond too', () => {
    const now = Date.now();
    const ids = Array.from({ length: 100 }, () => newEventId(now));
    expect([...ids].sort()).toEqual(ids);
    expect(ids.every((id) => /^evt_[0-9a-hjkmnp-tv-z]{26}$/.test(id))).toBe(true);
  });

  it('sort after the newest id a log kept, even when the clock has stepped back since it was made', () => {
    // An id of a run whose clock was an hour ahead of this one's.
    const stored = newEventId(Date.now() + 3_600_000);
    eventIdsAfter(stored);
    const later = [newEventId(Date.now()), newEventId(Date.now())];
    expect(later[0]! > stored).toBe(true);
    expect(later[1]! > later[0]!).toBe(true);
  });

  it('ignores what is not an event id', () => {
    const before = newEventId(Date.now());
    eventIdsAfter('evt_not-an-id');
    eventIdsAfter('');
    expect(newEventId(Date.now()) > before).toBe(true);
  });
});
