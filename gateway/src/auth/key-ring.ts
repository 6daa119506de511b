import { timingSafeEqual } from 'node:crypto';
import type { ApiKeyKind, StoredApiKey } from '@switchboard/protocol';
import { storedDigest } from './api-key.js';
import { type Principal, principalOf } from './principal.js';

interface RingEntry {
  readonly key: StoredApiKey;
  readonly digest: Buffer;
  readonly principal: Principal;
}

/**
 * The stored keys in memory, so the key check on every request is synchronous: a Map lookup by
 * the first 48 bits of the presented key's digest, then a constant-time compare of the whole
 * digest. Both key stores (SQLite, NATS KV) keep one current; it is the only place requests
 * read keys from.
 */
export class KeyRing {
  private readonly byId = new Map<string, RingEntry>();
  /** Buckets, though two keys sharing 48 bits of a SHA-512 digest is not expected to happen. */
  private readonly byDigest = new Map<number, RingEntry[]>();
  private readonly listeners = new Set<(id: string) => void>();

  /** Adds the key, or replaces the one with its id. */
  put(key: StoredApiKey): void {
    this.unlink(key.id);
    const entry: RingEntry = { key, digest: storedDigest(key.hash), principal: principalOf(key) };
    this.byId.set(key.id, entry);
    const bucket = this.byDigest.get(prefixOf(entry.digest));
    if (bucket) bucket.push(entry);
    else this.byDigest.set(prefixOf(entry.digest), [entry]);
    this.changed(key.id);
  }

  delete(id: string): void {
    if (this.unlink(id)) this.changed(id);
  }

  /**
   * Calls `listener` with the id of each key put, replaced or deleted, after the change; returns
   * the unsubscribe. What was opened with a key (a /ws connection) checks it again there.
   */
  onChange(listener: (id: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get(id: string): StoredApiKey | undefined {
    return this.byId.get(id)?.key;
  }

  /** The one media or control key of a session. */
  scoped(kind: Extract<ApiKeyKind, 'media' | 'control'>, session: string): StoredApiKey | undefined {
    for (const { key } of this.byId.values()) if (key.kind === kind && key.session === session) return key;
    return undefined;
  }

  /** Oldest first, so a listing reads in the order keys were made. */
  all(): StoredApiKey[] {
    return [...this.byId.values()].map((entry) => entry.key).sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  }

  /** The principal of the stored key with this id (active or not). */
  principal(id: string): Principal | undefined {
    return this.byId.get(id)?.principal;
  }

  /** The stored key whose secret has this SHA-512 digest (active or not). */
  find(digest: Buffer): { readonly key: StoredApiKey; readonly principal: Principal } | undefined {
    const bucket = this.byDigest.get(prefixOf(digest));
    if (bucket === undefined) return undefined;
    for (let i = 0; i < bucket.length; i++) {
      const entry = bucket[i]!;
      if (timingSafeEqual(entry.digest, digest)) return entry;
    }
    return undefined;
  }

  private unlink(id: string): boolean {
    const entry = this.byId.get(id);
    if (!entry) return false;
    this.byId.delete(id);
    const prefix = prefixOf(entry.digest);
    const rest = this.byDigest.get(prefix)?.filter((other) => other !== entry) ?? [];
    if (rest.length > 0) this.byDigest.set(prefix, rest);
    else this.byDigest.delete(prefix);
    return true;
  }

  private changed(id: string): void {
    for (const listener of this.listeners) listener(id);
  }
}

function prefixOf(digest: Buffer): number {
  return digest.readUIntBE(0, 6);
}
