import type { StoredApiKey } from '@switchboard/protocol';
import type { KeyRing } from './key-ring.js';

/**
 * Where the keys made through `/api/keys` live: SQLite in local mode (local/sqlite-key-store.ts),
 * a NATS KV bucket in cluster mode (cluster/kv-key-store.ts). Each keeps a KeyRing current, which
 * is what requests are checked against; writes go to storage first, then to the ring.
 */
export interface ApiKeyStore {
  readonly ring: KeyRing;
  /**
   * Saves a new key and answers the stored one. A session has at most one media and one control
   * key: when it already has one (another replica may just have made it), that one is answered.
   */
  add(key: StoredApiKey): Promise<StoredApiKey>;
  /** Replaces a key; false when there is none with its id (any more). */
  replace(key: StoredApiKey): Promise<boolean>;
  remove(id: string): Promise<boolean>;
}

/** A media or control key: bound to one session, and the only one of its kind there. */
export function isScoped(key: StoredApiKey): key is StoredApiKey & { kind: 'media' | 'control'; session: string } {
  return (key.kind === 'media' || key.kind === 'control') && key.session !== null;
}
