import type { KubeConfig } from '@kubernetes/client-node';
import { type MessagingSession, ResourceInformer, sessionClaimProblem } from '@switchboard/kube';
import { MESSAGING_SESSION } from '@switchboard/protocol';
import type { Logger } from 'pino';
import type { SessionResources } from './session-resources.js';

export interface SessionCacheOptions {
  readonly resources: SessionResources;
  readonly kubeConfig: KubeConfig;
  readonly log: Logger;
  /** Longest time this replica prefers its own write over the informer's copy. */
  readonly writeTtlMs?: number;
  /** First delay before restarting a failed informer; doubles up to 30 s. */
  readonly restartDelayMs?: number;
  /** A watch that delivers nothing, not even a bookmark, for this long is restarted (kube's default when left out). */
  readonly watchQuietTimeoutMs?: number;
}

/** A write this replica made that the informer may not have seen yet; `resource` null: deleted. */
interface OwnWrite {
  readonly resource: MessagingSession | null;
  readonly resourceVersion: string | undefined;
  readonly expiresAt: number;
}

type ChangeListener = (resourceName: string) => void;

/**
 * The MessagingSessions of the namespace, kept by kube's informer (list, then watch; the operator
 * uses the same one). Reads are served from memory; the informer restarts itself with backoff
 * after an error, and resumes a watch that stalled.
 *
 * Read-your-writes: the informer sees a write some milliseconds after it returns, so the
 * resource a write returned is kept (`remember`) until the informer has caught up with it, and
 * a read right after this replica's own create or update never answers the older copy.
 */
export class SessionCache {
  private readonly informer: ResourceInformer<MessagingSession>;
  private readonly ownWrites = new Map<string, OwnWrite>();
  private readonly listeners = new Set<ChangeListener>();
  private readonly writeTtlMs: number;

  constructor(private readonly options: SessionCacheOptions) {
    this.writeTtlMs = options.writeTtlMs ?? 30_000;
    this.informer = new ResourceInformer<MessagingSession>({
      name: MESSAGING_SESSION.plural,
      kubeConfig: options.kubeConfig,
      path: options.resources.path,
      list: () => options.resources.list(),
      onChange: (resource, deleted) => this.observed(resource, deleted),
      log: options.log,
      quietTimeoutMs: options.watchQuietTimeoutMs,
      backoff: { baseMs: options.restartDelayMs ?? 1_000, maxMs: 30_000 },
    });
  }

  /** Starts listing and watching; `whenSynced` tells when the cache is whole. */
  start(): void {
    this.informer.start();
  }

  async stop(): Promise<void> {
    await this.informer.stop();
  }

  /**
   * Resolves once the first list succeeded. Webhook delivery waits for this: an event handled
   * before it would find no webhooks for its session. Rejects with the last error on timeout.
   */
  async whenSynced(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const namespace = this.options.resources.namespace;
        const lastError = this.informer.lastError;
        const cause = lastError instanceof Error ? lastError.message : typeof lastError === 'string' ? lastError : 'no answer';
        reject(new Error(`cannot list MessagingSessions in namespace '${namespace}' within ${timeoutMs} ms: ${cause}`));
      }, timeoutMs);
    });
    try {
      await Promise.race([this.informer.waitForSync(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether the cache holds the whole namespace: false until the first list succeeded. */
  get synced(): boolean {
    return this.informer.hasSynced;
  }

  /** The newest copy known here; null when this replica deleted it; undefined when not in the cache. */
  lookup(resourceName: string): MessagingSession | null | undefined {
    const own = this.ownWrite(resourceName);
    if (own) return own.resource;
    return this.informer.get(resourceName);
  }

  /** Every resource, this replica's own writes applied; undefined until the cache is synced. */
  list(): MessagingSession[] | undefined {
    if (!this.informer.hasSynced) return undefined;
    const byName = new Map(this.informer.list().map((r) => [r.metadata.name, r]));
    for (const name of this.ownWrites.keys()) {
      const own = this.ownWrite(name);
      if (own?.resource) byName.set(name, own.resource);
      else if (own) byName.delete(name);
    }
    // A resource whose spec.session is another resource's session is no session: listed, it would
    // be taken for that session (its webhooks fed that session's events, its deletion drop them).
    return [...byName.values()].filter((resource) => sessionClaimProblem(resource) === null);
  }

  /** Calls `listener` with the resource name after each change seen here; returns the unsubscribe. */
  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Records what a write returned, for reads until the informer catches up. */
  remember(resource: MessagingSession): void {
    this.keep(resource.metadata?.name ?? '', resource, resource.metadata?.resourceVersion);
  }

  /** Records that this replica saw `resourceName` gone; `last` is its last known copy. */
  rememberGone(resourceName: string, last: MessagingSession | undefined): void {
    this.keep(resourceName, null, last?.metadata?.resourceVersion);
  }

  /**
   * Waits until `done` holds for the resource as the API server has it (undefined: gone), or the
   * timeout passes. Checks again at each informer event for it, and every `pollMs` in case the
   * informer is down.
   */
  async waitFor(
    resourceName: string,
    done: (resource: MessagingSession | undefined) => boolean,
    timeoutMs: number,
    pollMs = 1_000,
  ): Promise<{ settled: boolean; resource: MessagingSession | undefined }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const resource = await this.options.resources.get(resourceName);
      if (done(resource)) return { settled: true, resource };
      const left = deadline - Date.now();
      if (left <= 0) return { settled: false, resource };
      await this.nextChange(resourceName, Math.min(pollMs, left));
    }
  }

  private nextChange(resourceName: string, timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.listeners.delete(listener);
        resolve();
      };
      const listener: ChangeListener = (name) => {
        if (name === resourceName) finish();
      };
      const timer = setTimeout(finish, timeoutMs);
      this.listeners.add(listener);
    });
  }

  private keep(resourceName: string, resource: MessagingSession | null, resourceVersion: string | undefined): void {
    this.ownWrites.set(resourceName, { resource, resourceVersion, expiresAt: Date.now() + this.writeTtlMs });
    this.notify(resourceName);
  }

  private ownWrite(resourceName: string): OwnWrite | undefined {
    const own = this.ownWrites.get(resourceName);
    if (own && own.expiresAt <= Date.now()) {
      this.ownWrites.delete(resourceName);
      return undefined;
    }
    return own;
  }

  /** An informer event: drops our own copy once the informer has seen that write or a later one. */
  private observed(resource: MessagingSession, deleted: boolean): void {
    const name = resource.metadata?.name ?? '';
    const own = this.ownWrites.get(name);
    if (own) {
      const caughtUp = own.resource === null ? deleted || isNewer(resource, own.resourceVersion) : !isOlder(resource, own.resourceVersion);
      if (caughtUp) this.ownWrites.delete(name);
    }
    this.notify(name);
  }

  private notify(resourceName: string): void {
    for (const listener of [...this.listeners]) listener(resourceName);
  }
}

/**
 * Resource versions are opaque to clients, but every API server backed by etcd issues them as
 * increasing integers; when one is not, any other version counts as newer (the informer's
 * events arrive in order, so the next one it reports follows our write).
 */
function compareVersions(resource: MessagingSession, version: string | undefined): number {
  const theirs = resource.metadata?.resourceVersion;
  if (theirs === undefined || version === undefined) return 1;
  if (/^\d+$/.test(theirs) && /^\d+$/.test(version)) {
    const a = BigInt(theirs);
    const b = BigInt(version);
    return a === b ? 0 : a > b ? 1 : -1;
  }
  return theirs === version ? 0 : 1;
}

const isNewer = (resource: MessagingSession, version: string | undefined) => compareVersions(resource, version) > 0;
const isOlder = (resource: MessagingSession, version: string | undefined) => compareVersions(resource, version) < 0;
