import { COMMAND_OBJECT_TTL_MS, KV_BUCKETS, LEASE, OBJECT_STORES, objectStoreStream, STREAMS, SUBJECTS } from '@switchboard/protocol';
import { type KV, type NatsConnection, nanos, type ObjectStore } from 'nats';
import { durableStreamConfig, ensureStream, JS_ERR, jsErrorCode, openKv, openObjectStore, type StoreOptions } from './jetstream.js';
import { creationOf, raiseCreated, whileSeedJoins } from './replication.js';

/**
 * The streams and buckets of cluster mode, each with the settings it is created with. Engine pods
 * keep their data in them; the operator creates them all before it runs a pod
 * (`ensureClusterStores`); the gateway reads them and purges a deleted session's keys.
 */

/**
 * The stream every session's events land in. The duplicate window is what makes a retried
 * publish safe: the event id is the message id, so a publish that reached the server but lost
 * its ack is stored once however often it is retried within two minutes.
 */
export const EVENTS_STREAM_CONFIG = durableStreamConfig(STREAMS.events, [SUBJECTS.allEvents], 7);

export async function ensureEventStream(nc: NatsConnection): Promise<void> {
  await whileSeedJoins(nc, async () => {
    await ensureStream(await nc.jetstreamManager(), { ...EVENTS_STREAM_CONFIG, ...creationOf(nc) });
    await raiseCreated(nc, STREAMS.events);
  });
}

/** Opens the auth bucket, creating it on first use (unless bound): one value per key, kept on disk. */
export function openAuthBucket(nc: NatsConnection, options: StoreOptions = {}): Promise<KV> {
  return openKv(nc, KV_BUCKETS.auth, options, { history: 1 });
}

/**
 * Forgets a session's pairing without its engine: what the gateway or operator calls to log out
 * a session whose pod is not running. One stream purge removes every key of the session,
 * delete markers included. Returns how many entries were removed.
 */
export function purgeSessionAuth(nc: NatsConnection, session: string): Promise<number> {
  return purgeSessionKeys(nc, KV_BUCKETS.auth, session);
}

/** Opens the message history bucket, creating it on first use (unless bound). */
export function openMessagesBucket(nc: NatsConnection, options: StoreOptions = {}): Promise<KV> {
  return openKv(nc, KV_BUCKETS.messages, options, { history: 1 });
}

/** Opens the bucket of paced sending's queues (cluster mode), creating it on first use (unless bound). */
export function openSendQueuesBucket(nc: NatsConnection, options: StoreOptions = {}): Promise<KV> {
  return openKv(nc, KV_BUCKETS.sendQueues, options, { history: 1 });
}

/**
 * Forgets a deleted session's send queue, recent sends and pairing date: one stream purge of its
 * keys, markers included (what its engine pod cannot do: it may only write its keys). Returns how
 * many entries were removed.
 */
export function purgeSessionSendQueue(nc: NatsConnection, session: string): Promise<number> {
  return purgeSessionKeys(nc, KV_BUCKETS.sendQueues, session);
}

/** One stream purge of a session's keys in a bucket, delete markers included; no bucket yet: nothing to remove. */
async function purgeSessionKeys(nc: NatsConnection, bucket: string, session: string): Promise<number> {
  const jsm = await nc.jetstreamManager();
  try {
    // The stream behind a KV bucket, and the subjects of the session's keys (nats.js naming).
    const { purged } = await jsm.streams.purge(`KV_${bucket}`, { filter: `$KV.${bucket}.${session}.>` });
    return purged;
  } catch (error) {
    if (jsErrorCode(error) === JS_ERR.streamNotFound) return 0;
    throw error;
  }
}

/** Opens the lease bucket, creating it with this ttl when missing (unless bound). */
export function openLeaseBucket(nc: NatsConnection, options: StoreOptions & { readonly ttlMs?: number } = {}): Promise<KV> {
  return openKv(nc, KV_BUCKETS.leases, options, { history: 1, ttl: options.ttlMs ?? LEASE.ttlMs });
}

/** How long a stored file can be downloaded unless configured otherwise: a day. */
export const DEFAULT_MEDIA_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** Binds to a session's media bucket, creating it with this lifetime when missing. */
export function openMediaObjects(nc: NatsConnection, session: string, lifetimeMs: number = DEFAULT_MEDIA_LIFETIME_MS): Promise<ObjectStore> {
  // A gateway and the operator may create it at once with different TTLs: the loser takes the winner's.
  return openObjectStore(nc, OBJECT_STORES.media(session), nanos(lifetimeMs));
}

/** Binds to a session's bucket of large commands, creating it with its TTL when missing. */
export function openCommandObjects(nc: NatsConnection, session: string): Promise<ObjectStore> {
  return openObjectStore(nc, OBJECT_STORES.commands(session), nanos(COMMAND_OBJECT_TTL_MS));
}

/**
 * Whether a session's bucket exists, without creating it (opening a bucket creates a missing
 * one): what a read for a session that may never have stored anything asks first.
 */
export async function objectStoreExists(nc: NatsConnection, bucket: string): Promise<boolean> {
  try {
    await (await nc.jetstreamManager()).streams.info(objectStoreStream(bucket));
    return true;
  } catch (error) {
    if (jsErrorCode(error) === JS_ERR.streamNotFound) return false;
    throw error;
  }
}

/**
 * Creates a session's media and command buckets when missing. The operator calls it before it
 * creates the session's engine pod: a pod with credentials may bind to its own buckets but not
 * create them (operator/src/nats-auth/permissions.ts).
 */
export async function ensureSessionStores(nc: NatsConnection, session: string): Promise<void> {
  await Promise.all([openMediaObjects(nc, session), openCommandObjects(nc, session)]);
}

/**
 * Deletes a deleted session's media and command buckets, files and pending commands with them.
 * Answers how many of the two existed. A session made again with the name gets new ones.
 */
export async function dropSessionStores(nc: NatsConnection, session: string): Promise<number> {
  const jsm = await nc.jetstreamManager();
  let dropped = 0;
  for (const bucket of [OBJECT_STORES.media(session), OBJECT_STORES.commands(session)]) {
    try {
      await jsm.streams.delete(objectStoreStream(bucket));
      dropped++;
    } catch (error) {
      if (jsErrorCode(error) !== JS_ERR.streamNotFound) throw error;
    }
  }
  return dropped;
}

/**
 * Creates every shared stream and bucket an engine pod uses, with the settings it would create
 * them with. The operator calls this before it runs any engine pod: pods that connect with NATS
 * credentials only bind (`StoreOptions.bind`), because their permissions stop at their session's
 * keys and creating a stream is not one of them. A session's own buckets come with its pod
 * (`ensureSessionStores`).
 */
export async function ensureClusterStores(nc: NatsConnection): Promise<void> {
  await ensureEventStream(nc);
  await openAuthBucket(nc);
  await openMessagesBucket(nc);
  await openLeaseBucket(nc);
  await openSendQueuesBucket(nc);
}
