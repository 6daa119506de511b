import { type KubeConfig, type KubernetesListObject, type KubernetesObject, Watch } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { type BackoffOptions, backoffDelay } from './backoff.js';
import { withTimeout } from './with-timeout.js';

/**
 * How often the API server sends a watch that asked for them (`allowWatchBookmarks`) a BOOKMARK
 * when nothing else happens: about once a minute (the watch cache's bookmark frequency).
 */
export const BOOKMARK_PERIOD_MS = 60_000;

/**
 * A watch that delivers nothing, not even a bookmark, for this long is taken as stalled (a
 * connection a network device dropped without a reset) and restarted. Two bookmark periods: a
 * quiet but healthy watch always gets one in between, even when the server's timing jitters.
 */
export const DEFAULT_WATCH_QUIET_TIMEOUT_MS = 2 * BOOKMARK_PERIOD_MS;

export interface ResourceInformerOptions<T extends KubernetesObject> {
  /** For logs: `pods`, `messagingsessions`. */
  readonly name: string;
  readonly kubeConfig: KubeConfig;
  /** The collection's URL path, e.g. `/api/v1/namespaces/default/pods`. */
  readonly path: string;
  readonly labelSelector?: string;
  readonly list: () => Promise<KubernetesListObject<T>>;
  /**
   * Called for every added, changed or deleted object (a deleted one as last seen, with `deleted`
   * true), and for every cached object at each resync.
   */
  readonly onChange: (object: T, deleted: boolean) => void;
  readonly log: Logger;
  /** A watch that delivers nothing (not even a bookmark) for this long is restarted. */
  readonly quietTimeoutMs?: number;
  /** Restarts after errors back off exponentially between these bounds. */
  readonly backoff?: BackoffOptions;
  /**
   * Every cached object is handed to `onChange` this often, so a consumer that missed or
   * mishandled an event catches up (client-go's resync). None when left out.
   */
  readonly resyncMs?: number;
}

type WatchEnd = 'closed' | 'quiet' | 'gone' | 'stopped';

const LIST_TIMEOUT_MS = 60_000;
/** A watch that ends sooner than this counts as a failure, so a flapping server is not hammered. */
const MIN_HEALTHY_WATCH_MS = 1_000;

/**
 * One resource collection kept in memory by list, then watch, like client-go's reflector. It
 * never gives up: a watch that fails is restarted with backoff from a fresh list (the cache may
 * have missed deletions); one that ends or goes quiet (stalled: no event and no bookmark for
 * `quietTimeoutMs`) is resumed from the last resourceVersion; a resourceVersion the server no
 * longer has (410 Gone) means a fresh list. Objects are kept as the API server sends them (plain
 * JSON) and must not be mutated.
 */
export class ResourceInformer<T extends KubernetesObject> {
  private readonly objects = new Map<string, T>();
  private resourceVersion = '';
  private synced = false;
  private stopped = false;
  private failures = 0;
  private error: unknown;
  private abortWatch: (() => void) | null = null;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private resyncTimer: NodeJS.Timeout | undefined;
  private readonly syncWaiters: (() => void)[] = [];
  private readonly stopping: Promise<never>;
  private signalStop: () => void = () => {};
  private readonly quietTimeoutMs: number;
  private readonly backoff: BackoffOptions;

  constructor(private readonly options: ResourceInformerOptions<T>) {
    this.quietTimeoutMs = options.quietTimeoutMs ?? DEFAULT_WATCH_QUIET_TIMEOUT_MS;
    this.backoff = options.backoff ?? { baseMs: 1_000, maxMs: 30_000 };
    this.stopping = new Promise<never>((_, reject) => {
      this.signalStop = () => reject(new Error(`informer ${options.name} stopped`));
    });
    this.stopping.catch(() => {});
  }

  /** Whether the first list is in the cache. */
  get hasSynced(): boolean {
    return this.synced;
  }

  /** Why the last list or watch failed; undefined once one succeeds. */
  get lastError(): unknown {
    return this.error;
  }

  get(name: string): T | undefined {
    return this.objects.get(name);
  }

  list(): T[] {
    return [...this.objects.values()];
  }

  start(): void {
    this.loop ??= this.run();
    if (this.options.resyncMs !== undefined && !this.resyncTimer) {
      this.resyncTimer = setInterval(() => this.resync(), this.options.resyncMs);
      this.resyncTimer.unref();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.resyncTimer);
    this.signalStop();
    this.abortWatch?.();
    this.wake?.();
    await this.loop;
    for (const resolve of this.syncWaiters.splice(0)) resolve();
  }

  /** Resolves once the first list is in the cache, or when the informer stops. */
  waitForSync(): Promise<void> {
    if (this.synced || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  private resync(): void {
    for (const object of this.objects.values()) this.options.onChange(object, false);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        if (!this.resourceVersion) await this.relist();
        const started = Date.now();
        const end = await this.watchOnce();
        if (end === 'gone') this.resourceVersion = '';
        if (end === 'closed' && Date.now() - started < MIN_HEALTHY_WATCH_MS) await this.backOff(new Error('the watch ended at once'));
        else this.failures = 0;
      } catch (error) {
        if (this.stopped) break;
        this.resourceVersion = '';
        await this.backOff(error);
      }
    }
  }

  private async backOff(error: unknown): Promise<void> {
    this.error = error;
    this.failures += 1;
    const delayMs = backoffDelay(this.failures, this.backoff);
    this.options.log.warn({ informer: this.options.name, err: error, retryInMs: delayMs }, 'watch failed; restarting it');
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, delayMs);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = null;
  }

  private async relist(): Promise<void> {
    const listing = withTimeout(this.options.list(), LIST_TIMEOUT_MS, `listing ${this.options.name}`);
    const list = await Promise.race([listing, this.stopping]);
    // Typed lists carry Date objects where watch events carry strings: keep one form, the JSON.
    const items = JSON.parse(JSON.stringify(list.items)) as T[];
    const seen = new Set<string>();
    for (const item of items) {
      seen.add(nameOf(item));
      this.upsert(item);
    }
    for (const [name, old] of this.objects) {
      if (seen.has(name)) continue;
      this.objects.delete(name);
      this.options.onChange(old, true);
    }
    this.resourceVersion = list.metadata?.resourceVersion ?? '';
    this.error = undefined;
    if (!this.synced) {
      this.synced = true;
      for (const resolve of this.syncWaiters.splice(0)) resolve();
    }
  }

  private upsert(object: T): void {
    const name = nameOf(object);
    const old = this.objects.get(name);
    if (old && old.metadata?.resourceVersion === object.metadata?.resourceVersion) return;
    this.objects.set(name, object);
    this.options.onChange(object, false);
  }

  private watchOnce(): Promise<WatchEnd> {
    return new Promise<WatchEnd>((resolve, reject) => {
      let ended = false;
      let quiet = false;
      let gone = false;
      let statusError: Error | null = null;
      let controller: AbortController | null = null;
      let quietTimer: NodeJS.Timeout | undefined;
      const abort = () => controller?.abort();
      const armQuietTimer = () => {
        clearTimeout(quietTimer);
        quietTimer = setTimeout(() => {
          quiet = true;
          this.options.log.info({ informer: this.options.name, quietMs: this.quietTimeoutMs }, 'watch stalled; resuming it');
          abort();
        }, this.quietTimeoutMs);
      };
      this.abortWatch = abort;
      armQuietTimer();

      const onEvent = (phase: string, object: T & { code?: number; message?: string }) => {
        armQuietTimer();
        if (phase === 'ERROR') {
          // A Status object; the server closes the stream after it.
          if (object.code === 410) gone = true;
          else statusError = new Error(`watch error ${object.code ?? ''}: ${object.message ?? 'unknown'}`);
          return;
        }
        if (phase === 'ADDED' || phase === 'MODIFIED') this.upsert(object);
        else if (phase === 'DELETED' && this.objects.delete(nameOf(object))) this.options.onChange(object, true);
        // BOOKMARK carries only the resourceVersion to resume from.
        const version = object.metadata?.resourceVersion;
        if (version) this.resourceVersion = version;
      };
      const onDone = (error: unknown) => {
        if (ended) return;
        ended = true;
        clearTimeout(quietTimer);
        this.abortWatch = null;
        if (this.stopped) resolve('stopped');
        else if (quiet || (error as Error | null)?.name === 'TimeoutError') resolve('quiet');
        else if (gone || (error as { statusCode?: number } | null)?.statusCode === 410) resolve('gone');
        else if (statusError) reject(statusError);
        else if (error) reject(error instanceof Error ? error : new Error('the watch failed', { cause: error }));
        else resolve('closed');
      };

      const query = {
        resourceVersion: this.resourceVersion,
        allowWatchBookmarks: true,
        // The server ends the watch after 5 to 10 minutes, as client-go asks: watches spread out.
        timeoutSeconds: 300 + Math.floor(Math.random() * 300),
        ...(this.options.labelSelector ? { labelSelector: this.options.labelSelector } : {}),
      };
      watchWithQuietTimeout(this.options.kubeConfig, this.quietTimeoutMs)
        .watch(this.options.path, query, onEvent, onDone)
        .then(
          (started) => {
            controller = started;
            if (ended || quiet || this.stopped) started.abort();
          },
          (error: unknown) => onDone(error ?? new Error('watch failed to start')),
        );
    });
  }
}

/**
 * client-node's Watch ends a watch that received nothing for 30 s (its private
 * `requestTimeoutMs`), which is below the bookmark period: a healthy but quiet watch would be
 * cut twice a minute. It gets a little longer than the informer's own quiet timeout instead, so
 * the informer decides when a watch has stalled.
 */
function watchWithQuietTimeout(kubeConfig: KubeConfig, quietTimeoutMs: number): Watch {
  const watch = new Watch(kubeConfig);
  (watch as unknown as { requestTimeoutMs: number }).requestTimeoutMs = quietTimeoutMs + 5_000;
  return watch;
}

function nameOf(object: KubernetesObject): string {
  return object.metadata?.name ?? '';
}
