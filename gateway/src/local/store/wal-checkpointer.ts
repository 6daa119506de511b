import type { DatabaseSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';

/**
 * The worker's whole code, evaluated, so there is no file to find from both `src` (tests) and
 * `dist`. It takes its modules from `process.getBuiltinModule`: the code may run as a script or,
 * when the process was started with `--input-type=module`, as a module. It opens its own
 * connection to the file and checkpoints on a timer.
 */
const WORKER_CODE = `
const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads');
const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
const db = new DatabaseSync(workerData.file);
db.exec('PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
const timer = setInterval(() => {
  try {
    db.exec('PRAGMA wal_checkpoint(PASSIVE)');
  } catch (error) {
    parentPort.postMessage(String(error && error.message ? error.message : error));
  }
}, workerData.everyMs);
parentPort.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/** Pages the WAL may reach before the main connection checkpoints itself: the worker fell behind. */
const FALLBACK_PAGES = 10_000;

export interface WalCheckpointer {
  /** Stops the worker once its checkpoint in progress is done; before the main connection closes. */
  stop(): Promise<void>;
}

/**
 * Moves WAL checkpoints off the event loop. SQLite checkpoints in the connection whose commit
 * makes the WAL reach 1,000 pages: that commit copies the pages into the database file and waits
 * for two fsyncs, and with the history and the event log written at every event it was a good
 * part of a sendText's time. A worker thread with a connection of its own checkpoints (PASSIVE:
 * it never blocks a writer) every `everyMs`; the main connection keeps only a distant fallback.
 *
 * Nothing about durability changes: commits are durable as `synchronous = NORMAL` makes them
 * (database.ts) whoever checkpoints, and a checkpoint copies only committed pages.
 */
export function startWalCheckpointer(db: DatabaseSync, file: string, onError: (message: string) => void, everyMs = 100): WalCheckpointer {
  db.exec(`PRAGMA wal_autocheckpoint = ${FALLBACK_PAGES}`);
  const worker = new Worker(WORKER_CODE, { eval: true, workerData: { file, everyMs } });
  worker.on('message', (message: string) => onError(message));
  worker.on('error', (error: Error) => onError(error.message));
  // A worker that died leaves the checkpoints to the main connection again.
  worker.once('exit', () => db.isOpen && db.exec('PRAGMA wal_autocheckpoint = 1000'));
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    stop() {
      // Referenced again, so the process waits for it to close its connection.
      worker.ref();
      worker.postMessage('stop');
      return exited;
    },
  };
}
