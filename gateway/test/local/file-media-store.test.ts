import { chmodSync, existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MediaTooLargeError } from '@switchboard/engine-pod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileMediaStore, mediaSchema } from '../../src/local/file-media-store.js';
import { openDatabase } from '../../src/local/store/database.js';

const silent = { info() {}, warn() {}, error() {} };
const file = { mimetype: 'image/png', filename: 'a.png', data: Buffer.from('png bytes') };

describe('FileMediaStore (files under the data dir, rows in SQLite)', () => {
  let dataDir: string;
  let opened: ReturnType<typeof openDatabase>[];
  const open = (lifetimeMs = 60_000) => {
    const db = openDatabase(dataDir, [mediaSchema]);
    opened.push(db);
    return new FileMediaStore({ db, dir: join(dataDir, 'media'), lifetimeMs, log: silent });
  };

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-media-'));
    opened = [];
  });
  afterEach(() => {
    for (const db of opened) db.close();
  });

  it('keeps a file under an unguessable id and gives back its bytes and metadata', async () => {
    const store = open();
    const before = Date.now();
    const stored = await store.put('s1', file);
    expect(stored).toMatchObject({ session: 's1', mimetype: 'image/png', filename: 'a.png', size: 9 });
    expect(stored.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(stored.expiresAt).toBeGreaterThanOrEqual(before + 60_000);
    const found = await store.get('s1', stored.id);
    expect(found?.data.equals(file.data)).toBe(true);
    expect(found?.meta).toEqual(stored);
    expect(readdirSync(join(dataDir, 'media', 's1'))).toEqual([stored.id]);
    const ids = new Set(await Promise.all(Array.from({ length: 50 }, async () => (await store.put('s1', file)).id)));
    expect(ids.size).toBe(50);
  });

  it('keeps a streamed file chunk by chunk, and nothing of one whose stream fails (over the media limit)', async () => {
    const store = open();
    const chunks = [Buffer.from('one '), Buffer.from('two '), Buffer.from('three')];
    const stored = await store.putStream('s1', { mimetype: 'text/plain', filename: null }, chunks);
    expect(stored.size).toBe(13);
    expect((await store.get('s1', stored.id))?.data.toString()).toBe('one two three');
    async function* tooLarge() {
      yield Buffer.from('the start of a file');
      throw new MediaTooLargeError(19);
    }
    await expect(store.putStream('s1', { mimetype: 'text/plain', filename: null }, tooLarge())).rejects.toBeInstanceOf(MediaTooLargeError);
    expect(readdirSync(join(dataDir, 'media', 's1'))).toEqual([stored.id]);
    expect(await store.sweep(Number.MAX_SAFE_INTEGER)).toBe(1);
  });

  it('finds nothing for an unknown id, or under another session', async () => {
    const store = open();
    const stored = await store.put('s1', file);
    expect(await store.get('s1', 'A'.repeat(22))).toBeNull();
    expect(await store.get('s2', stored.id)).toBeNull();
  });

  it('survives a restart: a store on the same data dir serves what the last one stored', async () => {
    const stored = await open().put('s1', file);
    expect((await open().get('s1', stored.id))?.data.toString()).toBe('png bytes');
  });

  it('refuses a file past its lifetime at once, and the sweep deletes it', async () => {
    const store = open(50);
    const stored = await store.put('s1', file);
    const kept = await open(60_000).put('s1', file);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await store.get('s1', stored.id)).toBeNull();
    expect(existsSync(join(dataDir, 'media', 's1', stored.id))).toBe(true);
    expect(await store.sweep()).toBe(1);
    expect(existsSync(join(dataDir, 'media', 's1', stored.id))).toBe(false);
    expect(await store.get('s1', kept.id)).not.toBeNull();
  });

  it('sweeps on its own once started', async () => {
    const store = open(1_000);
    const stored = await store.put('s1', file);
    store.start();
    try {
      const path = join(dataDir, 'media', 's1', stored.id);
      const deadline = Date.now() + 5_000;
      while (existsSync(path) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(existsSync(path)).toBe(false);
    } finally {
      store.stop();
    }
  });

  it('keeps files 0600 in 0700 dirs, as the rest of the data dir, whatever the umask; a store opened on wider ones narrows them', async () => {
    const mode = (path: string) => statSync(path).mode & 0o777;
    const before = process.umask(0o002);
    try {
      const stored = await open().put('s1', file);
      expect(mode(join(dataDir, 'media'))).toBe(0o700);
      expect(mode(join(dataDir, 'media', 's1'))).toBe(0o700);
      expect(mode(join(dataDir, 'media', 's1', stored.id))).toBe(0o600);
      // As a store before this rule left them.
      chmodSync(join(dataDir, 'media'), 0o755);
      chmodSync(join(dataDir, 'media', 's1'), 0o755);
      chmodSync(join(dataDir, 'media', 's1', stored.id), 0o644);
      open();
      expect(mode(join(dataDir, 'media'))).toBe(0o700);
      expect(mode(join(dataDir, 'media', 's1'))).toBe(0o700);
      expect(mode(join(dataDir, 'media', 's1', stored.id))).toBe(0o600);
    } finally {
      process.umask(before);
    }
  });

  it('purgeSession removes one session’s files and no other’s', async () => {
    const store = open();
    const mine = await store.put('s1', file);
    const theirs = await store.put('s2', file);
    await store.purgeSession('s1');
    expect(await store.get('s1', mine.id)).toBeNull();
    expect(existsSync(join(dataDir, 'media', 's1'))).toBe(false);
    expect(await store.get('s2', theirs.id)).not.toBeNull();
  });
});
