import type { DatabaseSync } from 'node:sqlite';

/** The tables `history.db` holds, in the order they are moved. */
const HISTORY_TABLES = ['messages', 'chat_aliases', 'event_log'] as const;

/**
 * Data dirs made before `history.db` existed keep these tables in `switchboard.db`: at start-up,
 * before anything writes, their rows are copied into the history file (whose schema is made
 * already), then the old tables are dropped. Two commits, copy first: a crash in between copies
 * again next time, and every table's key makes the copy skip what is there already.
 */
export function moveHistoryTables(main: DatabaseSync, historyFile: string): void {
  const old = new Set((main.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as { name: string }[]).map((row) => row.name));
  const tables = HISTORY_TABLES.filter((table) => old.has(table));
  if (tables.length === 0) return;
  main.prepare('ATTACH DATABASE ? AS history').run(historyFile);
  try {
    main.exec('BEGIN');
    for (const table of tables) {
      // Messages in rowid order, so equal timestamps keep their arrival order (the log has no rowid).
      const order = table === 'event_log' ? '' : ' ORDER BY rowid';
      main.exec(`INSERT OR IGNORE INTO history.${table} SELECT * FROM main.${table}${order}`);
    }
    main.exec('COMMIT');
    main.exec('BEGIN');
    for (const table of tables) main.exec(`DROP TABLE main.${table}`);
    main.exec('COMMIT');
  } catch (error) {
    if (main.isTransaction) main.exec('ROLLBACK');
    throw error;
  } finally {
    main.exec('DETACH DATABASE history');
  }
}
