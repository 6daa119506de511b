import { JS_ERR, jsErrorCode, openKv } from '@switchboard/kube';
import { KV_BUCKETS, StoredApiKey } from '@switchboard/protocol';
import type { KV, KvEntry, NatsConnection, QueuedIterator } from 'nats';
import type { Logger } from 'pino';
import { KeyRing } from '../auth/key-ring.js';
import { type ApiKeyStore, isScoped } from '../auth/key-store.js';
import { ApiError } from '../http/errors.js';

/** How long a write waits to come back through the watch before answering anyway. */
const ECHO_TIMEOUT_MS = 5_000;
/** How long start-up waits for the stored keys; a replica that cannot know them must not serve. */
const SYNC_TIMEOUT_MS = 30_000;

/** A key's place in the bucket: the one media or control key of a session has a fixed one. */
export function kvKeyOf(key: StoredApiKey): string {
  return isScoped(key) ? `${key.kind}.${key.session}` : `key.${key.id}`;
}

/**
 * Cluster mode: the keys every gateway replica shares, in the NATS KV bucket `sb_api_keys`
 * (hashes only). Each replica watches the bucket into its KeyRing, so the key check stays a
 * synchronous in-memory lookup; a replica learns of another's changes within the watch's
 * latency. The ring changes only through the watch, in bucket order; a write waits until it
 * has come back that way, so the replica that made it sees it at once (read your writes).
 */
export class KvKeyStore implements ApiKeyStore {
  readonly ring = new KeyRing();
  /** Bucket key to key id and the revision last seen there, for deletes (which carry no value) and compare-and-set. */
  private readonly entries = new Map<string, { id: string; revision: number }>();
  private appliedRevision = 0;
  private closed = false;
  private readonly waiters = new Set<{ done: (applied: boolean) => boolean }>();

  private constructor(
    private readonly kv: KV,
    private readonly watcher: QueuedIterator<KvEntry>,
    private readonly log: Logger,
  ) {}

  /** Creates the bucket when missing and resolves once every stored key is in the ring. */
  static async open(nc: NatsConnection, log: Logger): Promise<KvKeyStore> {
    const kv = await openKv(nc, KV_BUCKETS.apiKeys, {}, { history: 1 });
    let initialized!: () => void;
    const synced = new Promise<void>((resolve) => (initialized = resolve));
    const watcher = await kv.watch({ key: '>', initializedFn: () => initialized() });
    const store = new KvKeyStore(kv, watcher, log);
    void store.follow();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`API keys: the KV bucket ${KV_BUCKETS.apiKeys} did not sync within ${SYNC_TIMEOUT_MS} ms`)),
        SYNC_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([synced, timedOut]);
    } catch (error) {
      store.close();
      throw error;
    } finally {
      clearTimeout(timer);
    }
    return store;
  }

  async add(key: StoredApiKey): Promise<StoredApiKey> {
    const kvKey = kvKeyOf(key);
    let revision: number;
    try {
      revision = await this.kv.create(kvKey, JSON.stringify(key));
    } catch (error) {
      if (jsErrorCode(error) !== JS_ERR.wrongLastSequence || !isScoped(key)) throw error;
      // The session already has its key of this kind (maybe made by another replica just now).
      const existing = await this.kv.get(kvKey);
      const parsed = existing ? StoredApiKey.safeParse(jsonOf(existing)) : null;
      if (!parsed?.success) throw error;
      await this.applied((applied) => applied >= existing!.revision);
      return parsed.data;
    }
    await this.applied((applied) => applied >= revision);
    return key;
  }

  async replace(key: StoredApiKey): Promise<boolean> {
    const kvKey = kvKeyOf(key);
    const seen = this.entries.get(kvKey);
    if (seen?.id !== key.id) return false;
    let revision: number;
    try {
      revision = await this.kv.update(kvKey, JSON.stringify(key), seen.revision);
    } catch (error) {
      if (jsErrorCode(error) !== JS_ERR.wrongLastSequence) throw error;
      throw new ApiError(409, `API key ${key.id} was changed or deleted meanwhile; read it again and retry`, { id: key.id });
    }
    await this.applied((applied) => applied >= revision);
    return true;
  }

  async remove(id: string): Promise<boolean> {
    const key = this.ring.get(id);
    if (!key) return false;
    const kvKey = kvKeyOf(key);
    await this.kv.delete(kvKey);
    // A delete answers no revision: wait until the watch has taken this key out.
    await this.applied(() => this.entries.get(kvKey)?.id !== id);
    return true;
  }

  close(): void {
    this.closed = true;
    this.watcher.stop();
    for (const waiter of this.waiters) waiter.done(true);
  }

  private async follow(): Promise<void> {
    try {
      for await (const entry of this.watcher) {
        this.apply(entry);
        this.appliedRevision = Math.max(this.appliedRevision, entry.revision);
        for (const waiter of this.waiters) waiter.done(false);
      }
      if (!this.closed) this.log.error('API key watch ended: keys changed from now on are not seen by this replica');
    } catch (error) {
      this.log.error({ err: error }, 'API key watch failed: keys changed from now on are not seen by this replica');
    }
  }

  private apply(entry: KvEntry): void {
    const previous = this.entries.get(entry.key);
    if (entry.operation !== 'PUT') {
      if (previous) this.ring.delete(previous.id);
      this.entries.delete(entry.key);
      return;
    }
    const parsed = StoredApiKey.safeParse(jsonOf(entry));
    if (!parsed.success) {
      this.log.warn({ kvKey: entry.key }, 'API key bucket holds a value that is not a stored key; ignored');
      return;
    }
    if (previous && previous.id !== parsed.data.id) this.ring.delete(previous.id);
    this.ring.put(parsed.data);
    this.entries.set(entry.key, { id: parsed.data.id, revision: entry.revision });
  }

  /** Resolves once `reached(appliedRevision)` holds, or after ECHO_TIMEOUT_MS (the write itself succeeded). */
  private applied(reached: (appliedRevision: number) => boolean): Promise<void> {
    if (reached(this.appliedRevision)) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.log.warn('API key write not seen on the watch in time; this replica may answer with the old keys for a moment');
        waiter.done(true);
      }, ECHO_TIMEOUT_MS);
      const waiter = {
        done: (force: boolean) => {
          if (!force && !reached(this.appliedRevision)) return false;
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve();
          return true;
        },
      };
      this.waiters.add(waiter);
    });
  }
}

function jsonOf(entry: KvEntry): unknown {
  try {
    return entry.json();
  } catch {
    return undefined;
  }
}
