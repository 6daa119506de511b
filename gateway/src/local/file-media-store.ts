import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import {
  type EngineLog,
  type MediaFile,
  type MediaFileInfo,
  type MediaStore,
  newMediaId,
  PRIVATE_DIR_MODE,
  PRIVATE_FILE_MODE,
  type StoredMedia,
  tighten,
} from '@switchboard/engine-pod';
import type { SchemaPart } from './store/database.js';

export const mediaSchema: SchemaPart = {
  name: 'media',
  ddl: `CREATE TABLE IF NOT EXISTS media_files (
    id TEXT PRIMARY KEY,
    session TEXT NOT NULL,
    mimetype TEXT NOT NULL,
    filename TEXT,
    size INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS media_files_by_expiry ON media_files (expires_at);
  CREATE INDEX IF NOT EXISTS media_files_by_session ON media_files (session);`,
};

interface Row {
  id: string;
  session: string;
  mimetype: string;
  filename: string | null;
  size: number;
  expires_at: number;
}

export interface FileMediaStoreOptions {
  readonly db: DatabaseSync;
  /** Files go under `<dir>/<session>/<id>`. */
  readonly dir: string;
  readonly lifetimeMs: number;
  readonly log: EngineLog;
}

/** The sweep runs this often, or as often as the lifetime when that is shorter. */
const SWEEP_EVERY_MS = 60_000;

/**
 * Local mode's media: each file under the data dir (0600, in 0700 dirs, as the rest of it), what
 * is known of it in the gateway's SQLite file. A file expires `lifetimeMs` after it was stored: reads refuse it from then on, and a
 * periodic sweep deletes it. The row is written before the file, so a crash in between leaves
 * a row the sweep removes, never a file nothing points to.
 */
export class FileMediaStore implements MediaStore {
  private readonly insert: StatementSync;
  private readonly select: StatementSync;
  private readonly expired: StatementSync;
  private readonly remove: StatementSync;
  private readonly resize: StatementSync;
  private readonly removeSession: StatementSync;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: FileMediaStoreOptions) {
    const { db } = options;
    this.insert = db.prepare('INSERT INTO media_files (id, session, mimetype, filename, size, expires_at) VALUES (?, ?, ?, ?, ?, ?)');
    this.select = db.prepare('SELECT * FROM media_files WHERE id = ? AND session = ?');
    this.expired = db.prepare('SELECT * FROM media_files WHERE expires_at <= ? LIMIT 1000');
    this.remove = db.prepare('DELETE FROM media_files WHERE id = ?');
    this.resize = db.prepare('UPDATE media_files SET size = ? WHERE id = ?');
    this.removeSession = db.prepare('DELETE FROM media_files WHERE session = ?');
    // What an account received is as private as its credentials; files stored before were 0644 in 0755 dirs.
    tighten(options.dir);
  }

  async put(session: string, file: MediaFile): Promise<StoredMedia> {
    return this.putStream(session, { mimetype: file.mimetype, filename: file.filename }, [file.data]);
  }

  /**
   * The row first (its size written once the file is), then the bytes streamed to the file's
   * place: a source that throws leaves neither, and a crash in between leaves a row (and a
   * partial file) that the sweep removes at expiry.
   */
  async putStream(session: string, file: MediaFileInfo, data: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<StoredMedia> {
    const id = newMediaId();
    const expiresAt = Date.now() + this.options.lifetimeMs;
    this.insert.run(id, session, file.mimetype, file.filename, 0, expiresAt);
    const path = this.path(session, id);
    try {
      await mkdir(this.sessionDir(session), { recursive: true, mode: PRIVATE_DIR_MODE });
      const out = createWriteStream(path, { mode: PRIVATE_FILE_MODE });
      await pipeline(data, out);
      this.resize.run(out.bytesWritten, id);
      return { id, session, mimetype: file.mimetype, filename: file.filename, size: out.bytesWritten, expiresAt };
    } catch (error) {
      this.remove.run(id);
      await unlink(path).catch(() => {});
      throw error;
    }
  }

  async get(session: string, id: string): Promise<{ meta: StoredMedia; data: Buffer } | null> {
    const row = this.select.get(id, session) as Row | undefined;
    if (!row || row.expires_at <= Date.now()) return null;
    try {
      const data = await readFile(this.path(session, id));
      return { meta: metaOf(row), data };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async purgeSession(session: string): Promise<void> {
    this.removeSession.run(session);
    await rm(this.sessionDir(session), { recursive: true, force: true });
  }

  /** Deletes the files whose lifetime has passed; returns how many. */
  async sweep(now = Date.now()): Promise<number> {
    let swept = 0;
    for (;;) {
      const rows = this.expired.all(now) as unknown as Row[];
      for (const row of rows) {
        await unlink(this.path(row.session, row.id)).catch((error: unknown) => {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        });
        this.remove.run(row.id);
      }
      swept += rows.length;
      if (rows.length < 1000) return swept;
    }
  }

  start(): void {
    const every = Math.max(1_000, Math.min(SWEEP_EVERY_MS, this.options.lifetimeMs));
    this.timer = setInterval(() => {
      this.sweep().catch((error: unknown) => this.options.log.error({ err: error }, 'media sweep failed'));
    }, every);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private sessionDir(session: string): string {
    return join(this.options.dir, session);
  }

  private path(session: string, id: string): string {
    return join(this.sessionDir(session), id);
  }
}

function metaOf(row: Row): StoredMedia {
  return {
    id: row.id,
    session: row.session,
    mimetype: row.mimetype,
    filename: row.filename,
    size: row.size,
    expiresAt: row.expires_at,
  };
}
