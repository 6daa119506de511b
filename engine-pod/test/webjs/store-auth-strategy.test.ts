import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { type AuthStateStore, FileAuthStateStore, StoreAuthStrategy } from '../../src/index.js';
import { ProfileSnapshots } from '../../src/engines/webjs/profile-snapshot.js';

const silent = { info() {}, warn() {}, error() {} };
const LEVELDB = 'Default/IndexedDB/https_web.whatsapp.com_0.indexeddb.leveldb';

function scratch() {
  const root = mkdtempSync(join(tmpdir(), 'sb-webjs-profile-'));
  return { root, dir: join(root, 'profile'), store: new CountingStore(new FileAuthStateStore(join(root, 'auth'))) };
}

function write(dir: string, path: string, content: string | Buffer): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), content);
}

const read = (dir: string, path: string) => readFileSync(join(dir, path));

/** Counts the values written, to show what a save leaves alone. */
class CountingStore implements AuthStateStore {
  written: string[] = [];
  constructor(private readonly inner: AuthStateStore) {}
  get<T>(type: string, ids: readonly string[]) {
    return this.inner.get<T>(type, ids);
  }
  async set(data: Record<string, Record<string, unknown>>) {
    for (const [type, values] of Object.entries(data)) {
      for (const [id, value] of Object.entries(values)) this.written.push(`${value === null ? 'delete' : 'put'} ${type} ${id}`);
    }
    await this.inner.set(data);
  }
  clear() {
    return this.inner.clear();
  }
}

describe('ProfileSnapshots: the browser profile in the auth-state store', () => {
  it('restores the login parts of a profile, byte for byte, into an emptied dir; nothing else', async () => {
    const { dir, store } = scratch();
    const big = randomBytes(1_200_000);
    write(dir, `${LEVELDB}/000005.ldb`, big);
    write(dir, `${LEVELDB}/CURRENT`, 'MANIFEST-000001\n');
    write(dir, 'Default/Local Storage/leveldb/000003.log', 'wid=15550000000');
    write(dir, 'Default/Cache/Cache_Data/data_1', 'not a login');
    await new ProfileSnapshots(store, dir).save();

    rmSync(dir, { recursive: true });
    write(dir, 'Default/Cache/leftover', 'from before');
    const restored = new ProfileSnapshots(store, join(dirname(dir), 'elsewhere'));
    expect(await restored.restore()).toBe('restored');
    expect(read(restored.dir, `${LEVELDB}/000005.ldb`).equals(big)).toBe(true);
    expect(read(restored.dir, `${LEVELDB}/CURRENT`).toString()).toBe('MANIFEST-000001\n');
    expect(read(restored.dir, 'Default/Local Storage/leveldb/000003.log').toString()).toBe('wid=15550000000');
    expect(() => read(restored.dir, 'Default/Cache/Cache_Data/data_1')).toThrow();
  });

  it('stores a large file in several values, each small enough for a NATS KV entry', async () => {
    const { dir, store } = scratch();
    write(dir, `${LEVELDB}/000009.ldb`, randomBytes(1_000_000));
    await new ProfileSnapshots(store, dir).save();
    const blobs = store.written.filter((entry) => entry.startsWith('put webjs-profile-blob'));
    expect(blobs.length).toBeGreaterThanOrEqual(3);
    const ids = blobs.map((entry) => entry.split(' ')[2]!);
    const values = await store.get<{ data: string }>('webjs-profile-blob', ids);
    for (const value of Object.values(values)) expect(JSON.stringify(value).length).toBeLessThan(1024 * 1024 - 1024);
  });

  it('a later save writes only what changed and drops what is gone', async () => {
    const { dir, store } = scratch();
    const snapshots = new ProfileSnapshots(store, dir);
    write(dir, `${LEVELDB}/000005.ldb`, 'table one');
    write(dir, `${LEVELDB}/000006.log`, 'log v1');
    await snapshots.save();
    store.written = [];
    write(dir, `${LEVELDB}/000006.log`, 'log v2');
    rmSync(join(dir, `${LEVELDB}/000005.ldb`));
    await snapshots.save();
    expect(store.written.filter((entry) => entry.startsWith('put webjs-profile-blob'))).toHaveLength(1);
    expect(store.written.filter((entry) => entry.startsWith('delete'))).toHaveLength(2);
    expect(store.written).toContain('put webjs-profile manifest');
  });

  it('keeps a dir that matches the snapshot, and empties one when there is no snapshot', async () => {
    const { dir, store } = scratch();
    const snapshots = new ProfileSnapshots(store, dir);
    write(dir, `${LEVELDB}/000006.log`, 'saved');
    await snapshots.save();
    write(dir, `${LEVELDB}/000006.log`, 'newer than the snapshot');
    expect(await snapshots.restore()).toBe('kept');
    expect(read(dir, `${LEVELDB}/000006.log`).toString()).toBe('newer than the snapshot');

    await store.clear();
    expect(await snapshots.restore()).toBe('fresh');
    expect(() => read(dir, `${LEVELDB}/000006.log`)).toThrow();
  });

  it('refuses a snapshot with a part missing, naming the file', async () => {
    const { dir, store } = scratch();
    write(dir, `${LEVELDB}/000005.ldb`, 'table');
    await new ProfileSnapshots(store, dir).save();
    const blob = store.written.find((entry) => entry.startsWith('put webjs-profile-blob'))!.split(' ')[2]!;
    await store.set({ 'webjs-profile-blob': { [blob]: null } });
    await expect(new ProfileSnapshots(store, join(dir, '..', 'other')).restore()).rejects.toThrow(/000005\.ldb.*log the session out/);
  });
});

describe('StoreAuthStrategy: a whatsapp-web.js auth strategy on the AuthStateStore port', () => {
  function strategy() {
    const { dir, store } = scratch();
    const auth = new StoreAuthStrategy({ store, profileDir: dir, log: silent, firstSaveAfterMs: 5, saveEveryMs: 60_000 });
    const client = { options: { puppeteer: { headless: true } as Record<string, unknown> } };
    auth.setup(client);
    return { auth, client, dir, store };
  }

  it("extends the library's BaseAuthStrategy", () => {
    const Base = createRequire(import.meta.url)('whatsapp-web.js/src/authStrategies/BaseAuthStrategy.js');
    expect(strategy().auth).toBeInstanceOf(Base);
  });

  it('points the browser at the session profile, restored from the store', async () => {
    const { auth, client, dir } = strategy();
    await auth.beforeBrowserInitialized();
    expect(client.options.puppeteer).toEqual({ headless: true, userDataDir: dir });
  });

  it('saves a while after ready, and once more on destroy; not before ready', async () => {
    const { auth, dir, store } = strategy();
    await auth.beforeBrowserInitialized();
    write(dir, `${LEVELDB}/000006.log`, 'logged in');
    await auth.destroy();
    expect(store.written).toEqual([]);

    await auth.afterAuthReady();
    await waitFor(() => store.written.includes('put webjs-profile manifest'), 'the first save after ready');
    store.written = [];
    await auth.destroy();
    expect(store.written).toContain('put webjs-profile manifest');
  });

  it('a restored login that WhatsApp refuses is an auth failure, and the snapshot is dropped', async () => {
    const { auth, dir, store } = strategy();
    write(dir, `${LEVELDB}/000006.log`, 'stale login');
    await new ProfileSnapshots(store, dir).save();
    await auth.beforeBrowserInitialized();
    const outcome = await auth.onAuthenticationNeeded();
    expect(outcome).toMatchObject({ failed: true, restart: false });
    expect(await store.get('webjs-profile', ['manifest'])).toEqual({});
    expect(await auth.onAuthenticationNeeded()).toMatchObject({ failed: false });
  });

  it('a fresh profile needs a QR code, which is no failure', async () => {
    const { auth } = strategy();
    await auth.beforeBrowserInitialized();
    expect(await auth.onAuthenticationNeeded()).toMatchObject({ failed: false });
  });

  it('logout forgets the snapshot and the profile, and a later destroy saves nothing', async () => {
    const { auth, dir, store } = strategy();
    await auth.beforeBrowserInitialized();
    write(dir, `${LEVELDB}/000006.log`, 'logged in');
    await auth.afterAuthReady();
    await auth.logout();
    store.written = [];
    await auth.destroy();
    expect(store.written).toEqual([]);
    expect(await store.get('webjs-profile', ['manifest'])).toEqual({});
    expect(() => read(dir, `${LEVELDB}/000006.log`)).toThrow();
  });
});
