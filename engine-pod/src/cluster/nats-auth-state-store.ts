import { KV_BUCKETS } from '@switchboard/protocol';
import type { KV, NatsConnection } from 'nats';
import type { AuthStateStore } from '../auth-state/store.js';
import { JS_ERR, jsErrorCode, kvOptions, latestValues, type StoreOptions } from './jetstream.js';

/** The stream behind a KV bucket, and the subject of one key in it (nats.js naming). */
const AUTH_STREAM = `KV_${KV_BUCKETS.auth}`;
const sessionSubjects = (session: string) => `$KV.${KV_BUCKETS.auth}.${session}.>`;

/**
 * Type and id come from engines and may hold any character (`:`, `.`, `@`, spaces), while a
 * KV key allows only `-/_=.a-zA-Z0-9` and dots split it into tokens. base64url never yields
 * `.` or `=`, so `=` can stand for the empty string, which would otherwise be an empty token.
 */
export function authKeyToken(value: string): string {
  return value === '' ? '=' : Buffer.from(value, 'utf8').toString('base64url');
}

/** Opens the auth bucket, creating it on first use (unless bound): one value per key, kept on disk. */
export async function openAuthBucket(nc: NatsConnection, options: StoreOptions = {}): Promise<KV> {
  return nc.jetstream().views.kv(KV_BUCKETS.auth, kvOptions(options, { history: 1 }));
}

/**
 * Forgets a session's pairing without its engine: what the gateway or operator calls to log out
 * a session whose pod is not running. One stream purge removes every key of the session,
 * delete markers included. Returns how many entries were removed.
 */
export async function purgeSessionAuth(nc: NatsConnection, session: string): Promise<number> {
  const jsm = await nc.jetstreamManager();
  try {
    const { purged } = await jsm.streams.purge(AUTH_STREAM, { filter: sessionSubjects(session) });
    return purged;
  } catch (error) {
    // No bucket yet means no session was ever paired: nothing to forget.
    if (jsErrorCode(error) === JS_ERR.streamNotFound) return 0;
    throw error;
  }
}

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
