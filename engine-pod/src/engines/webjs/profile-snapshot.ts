import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, posix, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { AuthStateStore } from '../../auth-state/store.js';
import { makePrivateDir, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../private-files.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/**
 * The parts of a Chromium profile that hold a WhatsApp Web login: the web client keeps its keys
 * in IndexedDB and a few values in Local Storage. The same set the library's RemoteAuth saves.
 */
const PROFILE_PARTS: readonly string[] = ['Default/IndexedDB', 'Default/Local Storage'];

const MANIFEST = { type: 'webjs-profile', id: 'manifest' } as const;
const BLOB_TYPE = 'webjs-profile-blob';
/** Compressed bytes per stored value: base64 makes 512 KiB of it, under NATS' default 1 MiB payload. */
const CHUNK_BYTES = 384 * 1024;
/** In the profile dir: the generation of the snapshot the dir was saved as or restored from. */
const MARKER_FILE = '.switchboard-profile';

interface ProfileFile {
  readonly path: string;
  readonly sha256: string;
  readonly size: number;
  readonly chunks: number;
}

interface ProfileManifest {
  readonly generation: string;
  readonly savedAt: number;
  readonly files: readonly ProfileFile[];
}

/** How a profile dir was prepared for the browser. */
export type RestoreOutcome = 'fresh' | 'restored' | 'kept';

/**
 * Saves a browser profile's login parts into an `AuthStateStore` and puts them back. Files are
 * stored by content hash, gzipped, in chunks; a save writes only files it has not stored
 * before (LevelDB's table files never change once written) and drops the ones no longer used.
 * The manifest is written last, so a save cut short leaves the previous snapshot whole.
 */
export class ProfileSnapshots {
  constructor(
    private readonly store: AuthStateStore,
    readonly dir: string,
    private readonly parts: readonly string[] = PROFILE_PARTS,
  ) {}

  /**
   * Prepares the dir for the browser. No snapshot: an empty dir (a leftover profile from an
   * earlier pairing is removed). The dir matches the snapshot (same generation): kept, as it is
   * at least as new. Otherwise the snapshot is written into an emptied dir.
   */
  async restore(): Promise<RestoreOutcome> {
    const manifest = await this.manifest();
    if (manifest && (await this.marker()) === manifest.generation) return 'kept';
    await rm(this.dir, { recursive: true, force: true });
    await makePrivateDir(this.dir);
    if (!manifest) return 'fresh';
    for (const file of manifest.files) {
      const ids = Array.from({ length: file.chunks }, (_, index) => blobId(file.sha256, index));
      const found = await this.store.get<{ data: string }>(BLOB_TYPE, ids);
      const chunks = ids.map((id) => found[id]?.data);
      if (chunks.some((chunk) => chunk === undefined)) throw brokenSnapshot(file.path, 'a part is missing');
      const content = await gunzipAsync(Buffer.concat(chunks.map((chunk) => Buffer.from(chunk!, 'base64'))));
      if (sha256(content) !== file.sha256) throw brokenSnapshot(file.path, 'its content does not match its hash');
      const target = join(this.dir, ...file.path.split(posix.sep));
      await mkdir(dirname(target), { recursive: true, mode: PRIVATE_DIR_MODE });
      await writeFile(target, content, { mode: PRIVATE_FILE_MODE });
    }
    await writeFile(join(this.dir, MARKER_FILE), manifest.generation);
    return 'restored';
  }

  async save(): Promise<void> {
    const previous = await this.manifest();
    const stored = new Map(previous?.files.map((file) => [file.sha256, file.chunks]));
    const files: ProfileFile[] = [];
    for (const path of await this.profileFiles()) {
      const content = await readFile(join(this.dir, ...path.split(posix.sep))).catch(ignoreVanished);
      if (!content) continue;
      const hash = sha256(content);
      let chunks = stored.get(hash);
      if (chunks === undefined) {
        chunks = await this.storeBlob(hash, content);
        stored.set(hash, chunks);
      }
      files.push({ path, sha256: hash, size: content.length, chunks });
    }
    const manifest: ProfileManifest = { generation: randomUUID(), savedAt: Date.now(), files };
    await this.store.set({ [MANIFEST.type]: { [MANIFEST.id]: manifest } });
    await writeFile(join(this.dir, MARKER_FILE), manifest.generation);
    const used = new Set(files.map((file) => file.sha256));
    const unused = (previous?.files ?? []).filter((file) => !used.has(file.sha256));
    if (unused.length > 0) await this.store.set({ [BLOB_TYPE]: blobDeletions(unused) });
  }

  /** Logout: the snapshot and the dir are gone. */
  async forget(): Promise<void> {
    await this.store.clear();
    await rm(this.dir, { recursive: true, force: true });
  }

  private async manifest(): Promise<ProfileManifest | undefined> {
    return (await this.store.get<ProfileManifest>(MANIFEST.type, [MANIFEST.id]))[MANIFEST.id];
  }

  private async marker(): Promise<string | null> {
    return readFile(join(this.dir, MARKER_FILE), 'utf8').catch(() => null);
  }

  private async storeBlob(hash: string, content: Buffer): Promise<number> {
    const packed = await gzipAsync(content);
    const count = Math.max(1, Math.ceil(packed.length / CHUNK_BYTES));
    const values: Record<string, { data: string }> = {};
    for (let index = 0; index < count; index++) {
      values[blobId(hash, index)] = { data: packed.subarray(index * CHUNK_BYTES, (index + 1) * CHUNK_BYTES).toString('base64') };
    }
    await this.store.set({ [BLOB_TYPE]: values });
    return count;
  }

  /** Relative paths with `/`, so a snapshot restores on any platform. */
  private async profileFiles(): Promise<string[]> {
    const paths: string[] = [];
    for (const part of this.parts) {
      const entries = await readdir(join(this.dir, part), { recursive: true, withFileTypes: true }).catch(ignoreVanished);
      for (const entry of entries ?? []) {
        if (entry.isFile()) paths.push(relative(this.dir, join(entry.parentPath, entry.name)).split(sep).join(posix.sep));
      }
    }
    return paths.sort();
  }
}

const blobId = (hash: string, index: number) => `${hash}.${index}`;

/** A null value deletes a key (`AuthStateStore.set`). */
function blobDeletions(files: readonly ProfileFile[]): Record<string, null> {
  const entries: Record<string, null> = {};
  for (const file of files) for (let index = 0; index < file.chunks; index++) entries[blobId(file.sha256, index)] = null;
  return entries;
}

function sha256(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

/** The browser deletes files while it runs (LevelDB compactions); a file gone is not an error. */
function ignoreVanished(error: NodeJS.ErrnoException): undefined {
  if (error.code === 'ENOENT') return undefined;
  throw error;
}

function brokenSnapshot(path: string, why: string): Error {
  return new Error(`the saved WEBJS browser profile cannot be restored: ${path}: ${why}; log the session out and pair it again`);
}
