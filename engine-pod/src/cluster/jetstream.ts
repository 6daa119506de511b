import {
  DiscardPolicy,
  type JetStreamManager,
  type NatsConnection,
  type NatsError,
  nanos,
  type ObjectStore,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
} from 'nats';

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
 * Creates the stream, or brings an existing one to this configuration. Several pods race to
 * do this at start-up: an add with the same configuration succeeds on the server, so only a
 * differing configuration takes the update path.
 */
export async function ensureStream(jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string }): Promise<void> {
  try {
    await jsm.streams.add(config);
  } catch (error) {
    if (jsErrorCode(error) !== JS_ERR.streamNameInUse) throw error;
    await jsm.streams.update(config.name, config);
  }
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
  const open = () => nc.jetstream().views.os(name, { storage: StorageType.File, ttl });
  try {
    return await open();
  } catch (error) {
    if (jsErrorCode(error) !== JS_ERR.streamNameInUse) throw error;
    return open();
  }
}
