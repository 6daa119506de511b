import { KV_BUCKETS, StoredApiKey } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from '../../src/auth/api-key.js';
import { ApiKeyAuthenticator } from '../../src/auth/authenticator.js';
import { KvKeyStore } from '../../src/cluster/kv-key-store.js';
import { natsPerTest } from './nats-support.js';

const { connection } = natsPerTest();
const stores: KvKeyStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});

/** One gateway replica's key store, on a connection of its own. */
async function replica(): Promise<KvKeyStore> {
  const store = await KvKeyStore.open(await connection(), pino({ level: 'silent' }));
  stores.push(store);
  return store;
}

let ids = 0;
function newKey(overrides: Partial<StoredApiKey> = {}): { key: StoredApiKey; secret: string } {
  const secret = generateApiKey();
  const key: StoredApiKey = {
    id: `key_${String(++ids).padStart(26, '0')}`,
    hash: hashApiKey(secret),
    kind: 'general',
    session: null,
    isActive: true,
    actions: null,
    createdAt: Date.now(),
    ...overrides,
  };
  return { key, secret };
}

const ADMIN_HASH = hashApiKey('configured-admin');

describe('cluster mode: API keys shared by every replica (NATS KV)', () => {
  it('a key made on one replica authenticates on another; the maker sees it at once', async () => {
    const [a, b] = [await replica(), await replica()];
    const { key, secret } = newKey({ session: 's1' });
    await a.add(key);
    expect(a.ring.get(key.id)).toEqual(key);

    const onB = new ApiKeyAuthenticator(ADMIN_HASH, b.ring);
    await waitFor(() => b.ring.get(key.id), 'the key on replica b');
    expect(onB.authenticate(secret, 'header')).toEqual({ kind: 'general', id: key.id, session: 's1', actions: null });
    expect(onB.authenticate('configured-admin', 'header')).toMatchObject({ kind: 'admin' });
  });

  it('a replica started later has every stored key before it serves', async () => {
    const a = await replica();
    const made = [newKey(), newKey({ kind: 'media', session: 's1' }), newKey({ kind: 'admin' })];
    for (const { key } of made) await a.add(key);
    const later = await replica();
    expect(
      later.ring
        .all()
        .map((key) => key.id)
        .sort(),
    ).toEqual(made.map(({ key }) => key.id).sort());
  });

  it('updates and deletes reach every replica', async () => {
    const [a, b] = [await replica(), await replica()];
    const { key, secret } = newKey();
    await a.add(key);
    await waitFor(() => b.ring.get(key.id), 'the key on b');

    expect(await b.replace({ ...key, isActive: false })).toBe(true);
    expect(b.ring.get(key.id)?.isActive).toBe(false);
    await waitFor(() => a.ring.get(key.id)?.isActive === false, 'the deactivation on a');
    expect(() => new ApiKeyAuthenticator(ADMIN_HASH, a.ring).authenticate(secret, 'header')).toThrow('inactive');

    expect(await a.remove(key.id)).toBe(true);
    expect(a.ring.get(key.id)).toBeUndefined();
    await waitFor(() => b.ring.get(key.id) === undefined, 'the delete on b');
    expect(() => new ApiKeyAuthenticator(ADMIN_HASH, b.ring).authenticate(secret, 'header')).toThrow('invalid API key');
    expect(await b.remove(key.id)).toBe(false);
    expect(await b.replace(key)).toBe(false);
  });

  it('two replicas making the media key of one session at once end up with one key', async () => {
    const [a, b] = [await replica(), await replica()];
    const first = newKey({ kind: 'media', session: 's1' });
    const second = newKey({ kind: 'media', session: 's1' });
    const [fromA, fromB] = await Promise.all([a.add(first.key), b.add(second.key)]);
    expect(fromA.id).toBe(fromB.id);
    await waitFor(() => a.ring.scoped('media', 's1') && b.ring.scoped('media', 's1'), 'the key on both');
    expect(a.ring.all()).toHaveLength(1);
    expect(b.ring.all()).toEqual(a.ring.all());
  });

  it('the bucket holds stored keys (hashes), never a secret', async () => {
    const a = await replica();
    const { key, secret } = newKey({ kind: 'control', session: 's1' });
    await a.add(key);
    const kv = await (await connection()).jetstream().views.kv(KV_BUCKETS.apiKeys, { bindOnly: true });
    const entry = await kv.get('control.s1');
    expect(StoredApiKey.parse(entry!.json())).toEqual(key);
    expect(entry!.string()).not.toContain(secret);
  });

  it('a value that is not a stored key is ignored, and the rest still load', async () => {
    const a = await replica();
    const kv = await (await connection()).jetstream().views.kv(KV_BUCKETS.apiKeys, { bindOnly: true });
    await kv.put('key.garbage', 'not json');
    const { key } = newKey();
    await a.add(key);
    const later = await replica();
    expect(later.ring.all().map((k) => k.id)).toEqual([key.id]);
  });
});
