import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../private-files.js';
import type { AuthStateStore } from './store.js';

/**
 * Local mode: one JSON file per (type, id) under the session's folder. One file per id keeps a
 * write small however many keys an engine holds; write-then-rename keeps a crash from leaving
 * a half-written credential behind. The folder is 0700 and each file 0600: they are the account's
 * credentials.
 */
export class FileAuthStateStore implements AuthStateStore {
  constructor(private readonly dir: string) {}

  async get<T>(type: string, ids: readonly string[]): Promise<Record<string, T>> {
    const found: Record<string, T> = {};
    await Promise.all(
      ids.map(async (id) => {
        try {
          found[id] = JSON.parse(await readFile(this.path(type, id), 'utf8')) as T;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
      }),
    );
    return found;
  }

  async set(data: Record<string, Record<string, unknown>>): Promise<void> {
    await makePrivateDir(this.dir);
    const writes: Promise<void>[] = [];
    for (const [type, values] of Object.entries(data)) {
      for (const [id, value] of Object.entries(values)) {
        const path = this.path(type, id);
        writes.push(value === null || value === undefined ? rm(path, { force: true }) : this.write(path, value));
      }
    }
    await Promise.all(writes);
  }

  async clear(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }

  private async write(path: string, value: unknown): Promise<void> {
    const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    await writeFile(tmp, JSON.stringify(value), { mode: PRIVATE_FILE_MODE });
    await rename(tmp, path);
  }

  /** Type and id come from engines (key ids can hold any character); encode them for a file name. */
  private path(type: string, id: string): string {
    return join(this.dir, `${encodeURIComponent(type)}--${encodeURIComponent(id)}.json`);
  }
}
