import { latestValues, openAuthBucket, type StoreOptions } from '@switchboard/kube/pod';
import { kvKeyToken } from '@switchboard/protocol';
import type { KV, NatsConnection } from 'nats';
import type { AuthStateStore } from '../auth-state/store.js';

/** Type and id come from engines and may hold any character: each is a key token (protocol `kvKeyToken`). */
export const authKeyToken = kvKeyToken;

/**
 * Cluster mode: the engine's auth state in NATS KV, so an engine pod keeps no local state and
 * can be rescheduled to any node. Key `<session>.<type>.<id>`, the value the JSON of what the
 * engine stored (the same format as `FileAuthStateStore`).
 */
export class NatsAuthStateStore implements AuthStateStore {
  private constructor(
    private readonly kv: KV,
    private readonly session: string,
  ) {}

  static async open(nc: NatsConnection, session: string, options: StoreOptions = {}): Promise<NatsAuthStateStore> {
    return new NatsAuthStateStore(await openAuthBucket(nc, options), session);
  }

  async get<T>(type: string, ids: readonly string[]): Promise<Record<string, T>> {
    const found: Record<string, T> = {};
    await Promise.all(
      ids.map(async (id) => {
        const entry = await this.kv.get(this.key(type, id));
        // A deleted key still answers, with a DEL or PURGE marker and no value.
        if (entry && entry.operation === 'PUT') found[id] = entry.json<T>();
      }),
    );
    return found;
  }

  async set(data: Record<string, Record<string, unknown>>): Promise<void> {
    const writes: Promise<unknown>[] = [];
    for (const [type, values] of Object.entries(data)) {
      for (const [id, value] of Object.entries(values)) {
        const key = this.key(type, id);
        writes.push(value === null || value === undefined ? this.kv.delete(key) : this.kv.put(key, JSON.stringify(value)));
      }
    }
    await Promise.all(writes);
  }

  /**
   * Purges each of the session's keys: an engine pod may not purge the bucket's stream (that
   * would take a filter it cannot be held to), only write its own keys. A purge leaves one marker
   * per key, which `purgeSessionAuth` removes when the session is deleted.
   */
  async clear(): Promise<void> {
    const entries = await latestValues(this.kv, `${this.session}.>`, 'auth state');
    await Promise.all(entries.map((entry) => this.kv.purge(entry.key)));
  }

  private key(type: string, id: string): string {
    return `${this.session}.${authKeyToken(type)}.${authKeyToken(id)}`;
  }
}
