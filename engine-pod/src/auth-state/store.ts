/**
 * Where an engine keeps what it needs to reconnect without pairing again: credentials and
 * signal keys. The shape is Baileys' key store (`get(type, ids)` / `set({type: {id: value}})`),
 * which the other engines can use as a plain key-value store. Local mode keeps it in files,
 * cluster mode in NATS KV, so an engine pod can move to any node.
 */
export interface AuthStateStore {
  get<T = unknown>(type: string, ids: readonly string[]): Promise<Record<string, T>>;
  /** A `null` value deletes that id. */
  set(data: Record<string, Record<string, unknown>>): Promise<void>;
  /** Forget everything: logout. */
  clear(): Promise<void>;
}
