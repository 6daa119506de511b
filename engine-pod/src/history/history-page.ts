import type { MessageRecord } from '@switchboard/protocol';
import type { HistoryPage } from './message-store.js';

/** A stored record and where it arrived among the others (ties of equal timestamps keep that order). */
export interface OrderedRecord {
  readonly record: MessageRecord;
  readonly order: number;
}

/** Whether a record passes the page's filters. SQLite stores say the same in SQL. */
export function matchesPage(record: MessageRecord, page: HistoryPage): boolean {
  return (
    (page.timestampLte === undefined || record.timestamp <= page.timestampLte) &&
    (page.timestampGte === undefined || record.timestamp >= page.timestampGte) &&
    (page.fromMe === undefined || record.fromMe === page.fromMe) &&
    (page.ack === undefined || record.ack === page.ack)
  );
}

/** Filters, sorts by timestamp then arrival, and cuts one page: for stores that cannot query. */
export function selectPage(entries: readonly OrderedRecord[], page: HistoryPage): MessageRecord[] {
  const direction = page.sortOrder === 'asc' ? 1 : -1;
  return entries
    .filter(({ record }) => matchesPage(record, page))
    .sort((a, b) => direction * (a.record.timestamp - b.record.timestamp || a.order - b.order))
    .slice(page.offset, page.offset + page.limit)
    .map(({ record }) => record);
}
