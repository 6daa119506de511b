import {
  DiscardPolicy,
  type JetStreamManager,
  type KV,
  type KvEntry,
  type KvOptions,
  type NatsConnection,
  type NatsError,
  nanos,
  type ObjectStore,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
} from 'nats';
import { creationOf, raiseCreated, whileSeedJoins } from './replication.js';

/** JetStream API error codes (nats-server `errors.json`) the cluster runtime reacts to. */
export const JS_ERR = {
  /** Another configuration already uses this stream name. */
  streamNameInUse: 10058,
  streamNotFound: 10059,
  /** The expected last sequence of a subject did not match: a compare-and-set lost. */
  wrongLastSequence: 10071,
} as const;

export function jsErrorCode(error: unknown): number | undefined {
  return (error as NatsError | null)?.api_error?.err_code;
}

/**
 * Creates the stream, or brings an existing one to this configuration, never with fewer copies
 * than it has: a part started with a lower replica setting (an upgrade under way) must not undo
 * what raiseReplicas did. An existing stream is read first rather than added again, since the
 * server may take an add that differs in replicas alone as the same stream. Several pods race to
 * do this at start-up: an add that loses the race takes the update path.
 */
export async function ensureStream(jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string }): Promise<void> {
  const existing = async () => {
    try {
      return (await jsm.streams.info(config.name)).config;
    } catch (error) {
      if (jsErrorCode(error) === JS_ERR.streamNotFound) return null;
      throw error;
    }
  };
  let current = await existing();
  if (!current) {
    try {
      await jsm.streams.add(config);
      return;
    } catch (error) {
      if (jsErrorCode(error) !== JS_ERR.streamNameInUse) throw error;
      current = await existing();
      if (!current) throw error;
    }
  }
  // Where it is stays as it is: a placement given for the creation (on the seed) is for creating only.
  const { placement: _placement, ...wanted } = config;
  await jsm.streams.update(config.name, {
    ...wanted,
    ...(current.placement ? { placement: current.placement } : {}),
    num_replicas: Math.max(current.num_replicas, config.num_replicas ?? 1),
  });
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A file-backed stream that keeps messages for `maxAgeDays`, dropping the oldest first. The
 * two-minute duplicate window makes a retried publish with the same msgID land once.
 */
export function durableStreamConfig(name: string, subjects: string[], maxAgeDays: number) {
  return {
    name,
    subjects,
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_age: nanos(maxAgeDays * DAY_MS),
    duplicate_window: nanos(2 * 60 * 1000),
  };
}

/**
 * Binds to an object store on disk, creating it with this TTL (nanoseconds) when missing. Two
 * processes creating it at the same moment with different settings collide once; the loser binds
 * to the winner's.
 */
export async function openObjectStore(nc: NatsConnection, name: string, ttl: number): Promise<ObjectStore> {
  // No `replicas` here: nats.js copies the option into the stream's configuration as it is, and
  // nats-server 2.12 refuses the unknown field. The copies come from raiseCreated below instead;
  // a placement (on the seed, replication.ts) is a field of the stream and passes.
  const { placement } = creationOf(nc);
  const open = () => nc.jetstream().views.os(name, { storage: StorageType.File, ttl, ...(placement ? { placement } : {}) });
  return whileSeedJoins(nc, async () => {
    let store: ObjectStore;
    try {
      store = await open();
    } catch (error) {
      if (jsErrorCode(error) !== JS_ERR.streamNameInUse) throw error;
      store = await open();
    }
    await raiseCreated(nc, `OBJ_${name}`);
    return store;
  });
}

/**
 * How a store reaches its stream. An engine pod that connects with credentials may not create or
 * look up streams (its NATS permissions name its own session's keys only): it binds to the
 * streams and buckets the operator created (`ensureClusterStores`), with direct gets, whose
 * subject names the key. Without credentials, and for the gateway and operator, a store creates
 * what is missing.
 */
export interface StoreOptions {
  readonly bind?: boolean;
}

/**
 * Opens a KV bucket through `nc`: bound only, or created with these settings (kept on disk, the
 * connection's replicas: first on the seed, then raised, replication.ts) when missing.
 */
export async function openKv(nc: NatsConnection, bucket: string, options: StoreOptions, create: Partial<KvOptions>): Promise<KV> {
  if (options.bind) return nc.jetstream().views.kv(bucket, { bindOnly: true, allow_direct: true });
  const { num_replicas, placement } = creationOf(nc);
  return whileSeedJoins(nc, async () => {
    const kv = await nc
      .jetstream()
      .views.kv(bucket, { storage: StorageType.File, replicas: num_replicas, ...(placement ? { placement } : {}), ...create });
    await raiseCreated(nc, `KV_${bucket}`);
    return kv;
  });
}

/** Longest a read of many keys waits for the server to hand them over. */
const READ_TIMEOUT_MS = 10_000;

/**
 * The latest value of every key `filter` matches, as one ordered consumer delivers them, up to
 * the moment it reports the keys' current values all delivered (`initializedFn`), each key once
 * (a key written meanwhile: its newest value, or none if deleted). Deleted keys
 * are skipped here rather than by the watcher: with `ignoreDeletes`, a last entry that is a
 * delete would keep that report from ever coming. A watcher's consumer is named, so its filter
 * is in the create subject, which an engine pod's NATS permissions can restrict to its session.
 */
export async function latestValues(kv: KV, filter: string, what: string): Promise<KvEntry[]> {
  // By key: a key written while the current values are being delivered comes again (the watcher
  // delivers updates too until it is stopped), and only its newest entry is its value.
  const latest = new Map<string, KvEntry>();
  let initialized = false;
  let stop = () => {};
  const watcher = await kv.watch({
    key: filter,
    initializedFn: () => {
      initialized = true;
      stop();
    },
  });
  stop = () => watcher.stop();
  // With nothing to deliver, the report came before the watcher was returned.
  if (initialized) watcher.stop();
  const timer = setTimeout(() => watcher.stop(new Error(`${what}: the keys ${filter} did not arrive within ${READ_TIMEOUT_MS} ms`)), READ_TIMEOUT_MS);
  try {
    for await (const entry of watcher) {
      const seen = latest.get(entry.key);
      if (seen && seen.revision > entry.revision) continue;
      if (entry.operation === 'PUT') latest.set(entry.key, entry);
      else latest.delete(entry.key);
    }
  } finally {
    clearTimeout(timer);
  }
  return [...latest.values()];
}
