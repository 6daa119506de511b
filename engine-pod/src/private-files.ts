import { chmodSync, closeSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Modes of what holds an account's credentials and a gateway's state (auth state, SQLite files,
 * the data dir): the owner only. Made with these modes a file or dir is never wider, whatever
 * the umask; `tighten` brings ones made before (or by a process with a wider mode) down to them.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** `mkdir -p` whose new dirs are 0700, and `dir` itself 0700 even when it was there before. */
export async function makePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  await chmod(dir, PRIVATE_DIR_MODE);
}

export function makePrivateDirSync(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodSync(dir, PRIVATE_DIR_MODE);
}

/**
 * Makes `file` if it is missing, 0600 either way, before another program (SQLite) opens it:
 * SQLite makes a database's -wal and -shm files with the database file's mode.
 */
export function makePrivateFileSync(file: string): void {
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  chmodSync(file, PRIVATE_FILE_MODE);
}

/** A dir and everything under it to 0700 (dirs) and 0600 (files); a file to 0600; nothing when missing. */
export function tighten(path: string): void {
  let stats;
  try {
    stats = statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (stats.isFile()) {
    chmodSync(path, PRIVATE_FILE_MODE);
    return;
  }
  if (!stats.isDirectory()) return;
  chmodSync(path, PRIVATE_DIR_MODE);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.isDirectory() || entry.isFile()) tighten(join(path, entry.name));
  }
}
