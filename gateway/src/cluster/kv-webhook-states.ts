import { createHash } from 'node:crypto';
import { openKv } from '@switchboard/kube';
import { KV_BUCKETS } from '@switchboard/protocol';
import { type KV, type KvEntry, type NatsConnection, type QueuedIterator } from 'nats';
import type { Logger } from 'pino';
import type { DisabledEntry, WebhookStates } from '../webhooks/ports.js';

/** How long start-up waits for the stored states. */
const SYNC_TIMEOUT_MS = 30_000;

/** The bucket key of a session's webhook: the url hashed, as a url is no subject token. */
function keyOf(session: string, url: string): string {
  return `${session}.${createHash('sha256').update(url).digest('hex').slice(0, 32)}`;
}

/**
 * Cluster mode's `WebhookStates`: the KV bucket `sb_webhook_states`, which every replica watches
 * into memory, so the look before each attempt is a lookup in a map, and a webhook one replica
 * disabled stops on the others within the watch's latency. A write updates this replica's copy at
 * once (read your writes); the watch brings the same change again.
 */
export class KvWebhookStates implements WebhookStates {
  /** session → url → entry, and the bucket key of each. */
  private readonly disabled = new Map<string, Map<string, DisabledEntry>>();
  private readonly byKey = new Map<string, { session: string; url: string }>();
  private closed = false;

  private constructor(
    private readonly kv: KV,
    private readonly watcher: QueuedIterator<KvEntry>,
    private readonly log: Logger,
  ) {}

  /** Creates the bucket when missing and resolves once every stored state is known. */
  static async open(nc: NatsConnection, log: Logger): Promise<KvWebhookStates> {
    // Through openKv, as every bucket: made on the seed server, then raised (kube's replication.ts).
    const kv = await openKv(nc, KV_BUCKETS.webhookStates, {}, { history: 1 });
    let initialized!: () => void;
    const synced = new Promise<void>((resolve) => (initialized = resolve));
    const watcher = await kv.watch({ key: '>', initializedFn: () => initialized() });
    const states = new KvWebhookStates(kv, watcher, log);
    void states.follow();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`webhook states: the KV bucket ${KV_BUCKETS.webhookStates} did not sync within ${SYNC_TIMEOUT_MS} ms`)),
        SYNC_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([synced, timedOut]);
    } catch (error) {
      states.close();
      throw error;
    } finally {
      clearTimeout(timer);
    }
    return states;
  }

  isDisabled(session: string, url: string): boolean {
    return this.disabled.size > 0 && (this.disabled.get(session)?.has(url) ?? false);
  }

  async disable(session: string, url: string, at: number): Promise<void> {
    if (this.isDisabled(session, url)) return;
    const entry = { url, disabledAt: at };
    this.remember(keyOf(session, url), session, entry);
    await this.kv.put(keyOf(session, url), JSON.stringify(entry));
  }

  list(session: string): Promise<DisabledEntry[]> {
    const entries = [...(this.disabled.get(session)?.values() ?? [])];
    return Promise.resolve(entries.sort((a, b) => a.disabledAt - b.disabledAt));
  }

  async enable(session: string, urls?: readonly string[]): Promise<string[]> {
    const held = [...(this.disabled.get(session)?.keys() ?? [])];
    const enabled = held.filter((url) => urls === undefined || urls.includes(url));
    for (const url of enabled) {
      this.forget(keyOf(session, url));
      await this.kv.delete(keyOf(session, url));
    }
    return enabled;
  }

  /** A deleted session's states go with it: one made again under the name starts enabled. */
  async forgetSession(session: string): Promise<void> {
    await this.enable(session);
  }

  close(): void {
    this.closed = true;
    this.watcher.stop();
  }

  private async follow(): Promise<void> {
    try {
      for await (const entry of this.watcher) this.apply(entry);
      if (!this.closed) this.log.error('webhook state watch ended: webhooks disabled from now on by other replicas are not seen here');
    } catch (error) {
      this.log.error({ err: error }, 'webhook state watch failed: webhooks disabled from now on by other replicas are not seen here');
    }
  }

  private apply(entry: KvEntry): void {
    if (entry.operation !== 'PUT') {
      this.forget(entry.key);
      return;
    }
    const session = entry.key.slice(0, entry.key.lastIndexOf('.'));
    try {
      const value = entry.json<DisabledEntry>();
      if (typeof value.url !== 'string' || typeof value.disabledAt !== 'number') throw new Error('not a webhook state');
      this.remember(entry.key, session, { url: value.url, disabledAt: value.disabledAt });
    } catch {
      this.log.warn({ kvKey: entry.key }, 'webhook state bucket holds a value that is not a webhook state; ignored');
    }
  }

  private remember(key: string, session: string, entry: DisabledEntry): void {
    let held = this.disabled.get(session);
    if (!held) this.disabled.set(session, (held = new Map<string, DisabledEntry>()));
    held.set(entry.url, entry);
    this.byKey.set(key, { session, url: entry.url });
  }

  private forget(key: string): void {
    const known = this.byKey.get(key);
    if (!known) return;
    this.byKey.delete(key);
    const held = this.disabled.get(known.session);
    held?.delete(known.url);
    if (held?.size === 0) this.disabled.delete(known.session);
  }
}
