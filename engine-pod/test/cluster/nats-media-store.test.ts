import { DEFAULT_MEDIA_LIFETIME_MS } from '@switchboard/kube';
import { OBJECT_STORES, objectStoreStream } from '@switchboard/protocol';
import { nanos } from 'nats';
import { describe, expect, it } from 'vitest';
import { MediaTooLargeError, NatsMediaStore, purgeSessionMedia } from '../../src/index.js';
import { natsForTests } from './helpers.js';

const nats = natsForTests();
const file = { mimetype: 'image/png', filename: 'a.png', data: Buffer.from('png bytes') };
const maxAge = async (session = 's1') =>
  (await (await nats.nc.jetstreamManager()).streams.info(objectStoreStream(OBJECT_STORES.media(session)))).config.max_age;

// One bucket per session: the tests run in order, each leaving session s1's TTL to the next.
describe('NatsMediaStore (a media object store per session, real nats-server)', () => {
  it('purgeSessionMedia and a read before any file was stored find nothing and create no bucket', async () => {
    expect(await purgeSessionMedia(nats.nc, 'early')).toBe(0);
    expect(await (await NatsMediaStore.open(nats.nc)).get('early', 'A'.repeat(22))).toBeNull();
    await expect(maxAge('early')).rejects.toThrow(/stream not found/);
  });

  it('an engine pod writing first creates its session’s bucket with the default lifetime', async () => {
    const pod = await NatsMediaStore.open(nats.nc);
    const stored = await pod.put('s1', file);
    expect(await maxAge()).toBe(nanos(DEFAULT_MEDIA_LIFETIME_MS));
    expect(stored.expiresAt - Date.now()).toBeGreaterThan(DEFAULT_MEDIA_LIFETIME_MS - 5_000);
  });

  it('the gateway brings the TTL to its lifetime; pods then store with that lifetime', async () => {
    const pod = await NatsMediaStore.open(nats.nc);
    await (await NatsMediaStore.open(nats.nc, { lifetimeMs: 3_600_000 })).keepLifetime('s1');
    expect(await maxAge()).toBe(nanos(3_600_000));
    const stored = await pod.put('s1', file);
    expect(stored.expiresAt - Date.now()).toBeGreaterThan(3_600_000 - 5_000);
    expect(stored.expiresAt - Date.now()).toBeLessThanOrEqual(3_600_000);
  });

  it('what a pod stored, another connection (a gateway replica) reads back: bytes and metadata', async () => {
    const pod = await NatsMediaStore.open(nats.nc);
    const gateway = await NatsMediaStore.open(nats.nc, { lifetimeMs: 3_600_000 });
    const stored = await pod.put('s1', { ...file, filename: 'ñandú.png' });
    expect(stored.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const found = await gateway.get('s1', stored.id);
    expect(found?.data.equals(file.data)).toBe(true);
    expect(found?.meta).toEqual({ ...stored, filename: 'ñandú.png' });
    const unnamed = await pod.put('s1', { mimetype: 'text/plain', filename: null, data: Buffer.from('x') });
    expect((await gateway.get('s1', unnamed.id))?.meta.filename).toBeNull();
  });

  it('keeps a streamed file of many chunks, and nothing of one whose stream fails (over the media limit)', async () => {
    const store = await NatsMediaStore.open(nats.nc);
    const chunk = Buffer.alloc(100 * 1024, 7);
    const stored = await store.putStream('streamed', { mimetype: 'application/octet-stream', filename: null }, Array(30).fill(chunk));
    expect(stored.size).toBe(30 * chunk.length);
    expect((await store.get('streamed', stored.id))?.data.equals(Buffer.concat(Array(30).fill(chunk)))).toBe(true);
    const messages = async () =>
      (await (await nats.nc.jetstreamManager()).streams.info(objectStoreStream(OBJECT_STORES.media('streamed')))).state.messages;
    const before = await messages();
    async function* tooLarge() {
      for (let i = 0; i < 20; i++) yield chunk;
      throw new MediaTooLargeError(20 * chunk.length);
    }
    await expect(store.putStream('streamed', { mimetype: 'application/octet-stream', filename: null }, tooLarge())).rejects.toBeInstanceOf(
      MediaTooLargeError,
    );
    // The chunks written before the failure are purged: the stream holds what it held.
    expect(await messages()).toBe(before);
  });

  it('finds nothing for an unknown id, or under another session', async () => {
    const store = await NatsMediaStore.open(nats.nc);
    const stored = await store.put('s1', file);
    expect(await store.get('s1', 'A'.repeat(22))).toBeNull();
    expect(await store.get('s2', stored.id)).toBeNull();
  });

  it('a file past its lifetime is refused at once, and JetStream removes it', async () => {
    const gateway = await NatsMediaStore.open(nats.nc, { lifetimeMs: 1_000 });
    await gateway.keepLifetime('s1');
    const stored = await gateway.put('s1', file);
    expect(await gateway.get('s1', stored.id)).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await gateway.get('s1', stored.id)).toBeNull();
    const os = await nats.nc.jetstream().views.os(OBJECT_STORES.media('s1'));
    const deadline = Date.now() + 5_000;
    while ((await os.info(`s1/${stored.id}`)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await os.info(`s1/${stored.id}`)).toBeNull();
  });

  it('each session’s files are in a bucket of its own, named by a hash of the session', async () => {
    const store = await NatsMediaStore.open(nats.nc);
    await store.put('Own_Bucket-1', file);
    const names: string[] = [];
    for await (const name of (await nats.nc.jetstreamManager()).streams.names()) names.push(name);
    expect(names).toContain(objectStoreStream(OBJECT_STORES.media('Own_Bucket-1')));
    expect(OBJECT_STORES.media('Own_Bucket-1')).toMatch(/^sb_media_[0-9a-f]{32}$/);
    expect(names.join(' ')).not.toContain('Own_Bucket');
  });

  it('purgeSession removes one session’s files and no other’s', async () => {
    const store = await NatsMediaStore.open(nats.nc, { lifetimeMs: 3_600_000 });
    const mine = await store.put('p1', file);
    const theirs = await store.put('p2', file);
    await store.purgeSession('p1');
    expect(await store.get('p1', mine.id)).toBeNull();
    expect(await store.get('p2', theirs.id)).not.toBeNull();
    expect(await purgeSessionMedia(nats.nc, 'p1')).toBe(0);
  });
});
