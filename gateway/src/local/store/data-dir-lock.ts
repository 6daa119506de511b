import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { makePrivateDirSync, makePrivateFileSync, PRIVATE_FILE_MODE } from '@switchboard/engine-pod';

/** The file whose lock says a gateway runs on this data dir, and the one that names its pid. */
const LOCK_FILE = 'gateway.lock';
const PID_FILE = 'gateway.pid';
const SQLITE_BUSY = 5;

/** Another live gateway holds the data dir: starting a second would run every session twice. */
export class DataDirInUse extends Error {}

export interface DataDirLock {
  release(): void;
}

/**
 * Takes the data dir for this process, or throws DataDirInUse. The lock is SQLite's exclusive
 * lock (an OS file lock) on a file of its own, held as long as this process keeps the file
 * open: the OS drops it when the process ends however it ends, so a gateway killed with
 * SIGKILL leaves no stale lock behind and the next start goes ahead. The pid file is only
 * for the message a second gateway prints.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  makePrivateDirSync(dataDir);
  const lockFile = join(dataDir, LOCK_FILE);
  makePrivateFileSync(lockFile);
  const lock = new DatabaseSync(lockFile);
  try {
    // EXCLUSIVE locking mode keeps the lock until the connection closes; the transaction is never committed.
    lock.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;');
  } catch (error) {
    lock.close();
    if ((error as { errcode?: number }).errcode !== SQLITE_BUSY) throw error;
    const holder = holderPid(dataDir);
    throw new DataDirInUse(
      `data directory ${dataDir} is in use by another gateway${holder ? ` (pid ${holder})` : ''}: ` +
        'stop it first, or give this one its own SWITCHBOARD_DATA_DIR',
    );
  }
  const pidFile = join(dataDir, PID_FILE);
  writeFileSync(pidFile, `${process.pid}\n`, { mode: PRIVATE_FILE_MODE });
  return {
    release() {
      rmSync(pidFile, { force: true });
      lock.close();
    },
  };
}

function holderPid(dataDir: string): string | null {
  try {
    return readFileSync(join(dataDir, PID_FILE), 'utf8').trim() || null;
  } catch {
    return null;
  }
}
