import { setTimeout as sleep } from 'node:timers/promises';
import { JS_ERR, jsErrorCode, openLeaseBucket, type StoreOptions } from '@switchboard/kube/pod';
import { LEASE } from '@switchboard/protocol';
import type { KV, NatsConnection } from 'nats';
import type { EngineLog } from '../engine.js';

export interface SessionLeaseOptions extends StoreOptions {
  readonly session: string;
  /** Who holds it: the pod name, shown to whoever reads the bucket. */
  readonly holder: string;
  /**
   * The pod's uid (Kubernetes' `metadata.uid`). A pod's name is the same for every pod of its
   * session, its uid is not: a lease whose record carries this uid was taken by an earlier
   * container of this very pod, which the kubelet only restarts once that container has ended,
   * so it can be taken back at once rather than after its ttl. Absent: never taken back.
   */
  readonly podUid?: string;
  /** The caller's logger, already carrying the session (the pod's does). */
  readonly log: EngineLog;
  /** Tests shorten these; a bucket keeps the ttl it was created with. */
  readonly ttlMs?: number;
  readonly renewMs?: number;
  /** How often a waiting holder tries again. */
  readonly retryMs?: number;
}

/** What the lease key holds: enough to tell an operator who has the session. */
export interface LeaseRecord {
  readonly holder: string;
  readonly podUid?: string;
  readonly acquiredAt: string;
  readonly renewedAt: string;
}

/**
 * Invariant 1: at most one live engine connection per session. A messaging account drops both
 * connections when the same credentials connect twice, so an engine starts only once this pod
 * holds the session's lease, and stops as soon as it may no longer hold it.
 *
 * The lease is one KV key. `create` succeeds for one pod only; renewals are compare-and-set on
 * the revision we last wrote, so a renewal that finds another revision knows someone else
 * holds the key. The bucket's max age is the ttl: a key nobody renews ages out, which is how a
 * crashed pod's lease lapses.
 */
export class SessionLease {
  /** The revision we last wrote, what the next renewal compares against; null when not held. */
  private revision: number | null = null;
  private token: number | null = null;
  private acquiredAt = '';
  private renewTimer: NodeJS.Timeout | null = null;
  private lapseTimer: NodeJS.Timeout | null = null;
  private renewing: Promise<void> = Promise.resolve();
  private readonly lostCallbacks: ((reason: string) => void)[] = [];
  private readonly ttlMs: number;
  private readonly renewMs: number;
  private readonly retryMs: number;

  private constructor(
    private readonly kv: KV,
    private readonly options: SessionLeaseOptions,
  ) {
    this.ttlMs = options.ttlMs ?? LEASE.ttlMs;
    this.renewMs = options.renewMs ?? LEASE.renewMs;
    this.retryMs = options.retryMs ?? 1_000;
  }

  static async open(nc: NatsConnection, options: SessionLeaseOptions): Promise<SessionLease> {
    return new SessionLease(await openLeaseBucket(nc, options), options);
  }

  /**
   * The revision the lease was acquired at, while held. It grows with every new holder, so a
   * write stamped with it can be told apart from one by an older holder.
   */
  get fencingToken(): number | null {
    return this.revision === null ? null : this.token;
  }

  get held(): boolean {
    return this.revision !== null;
  }

  /** Resolves with the fencing token once this pod holds the lease; rejects if aborted first. */
  async acquire(signal?: AbortSignal): Promise<number> {
    const { session, holder, log } = this.options;
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      const sentAt = Date.now();
      this.acquiredAt = new Date(sentAt).toISOString();
      try {
        const revision = await this.kv.create(session, this.value());
        this.revision = revision;
        this.token = revision;
        this.scheduleRenewal(sentAt);
        log.info({ holder, fencingToken: revision }, 'session lease acquired');
        return revision;
      } catch (error) {
        if (jsErrorCode(error) !== JS_ERR.wrongLastSequence) log.warn({ err: error }, 'session lease: acquire failed');
        else {
          const revision = await this.takeBackFromEarlierContainer(sentAt);
          if (revision !== null) return revision;
          if (attempt === 0) log.info({ holder }, 'session lease held by another pod; waiting');
        }
      }
      await sleep(this.retryMs, undefined, { signal });
    }
  }

  /**
   * The key is held: when its record names this pod's uid, the holder was a container of this pod
   * that has ended (killed, or out of memory), and the kubelet started this one in its place; or
   * this very holder, before its lease lapsed (NATS out of reach longer than the ttl), whose engine
   * the pod stopped then. Either way no engine runs on it, and waiting out its ttl would only keep
   * the session down for nothing, so the key is taken over by a compare-and-set on the revision
   * read: a new revision, hence a higher fencing token, and nobody else's write lost. Null when
   * the record is another pod's, or the key moved meanwhile.
   */
  private async takeBackFromEarlierContainer(sentAt: number): Promise<number | null> {
    const { session, podUid, holder, log } = this.options;
    if (podUid === undefined) return null;
    try {
      const entry = await this.kv.get(session);
      if (entry?.operation !== 'PUT') return null;
      const record = entry.json<Partial<LeaseRecord>>();
      if (record.podUid !== podUid || record.holder !== holder) return null;
      const revision = await this.kv.update(session, this.value(), entry.revision);
      const from = this.token === null ? 'an earlier container of this pod' : 'its own record, from before it lapsed';
      this.revision = revision;
      this.token = revision;
      this.scheduleRenewal(sentAt);
      log.info({ holder, fencingToken: revision, previous: entry.revision }, `session lease taken back from ${from}`);
      return revision;
    } catch (error) {
      // Unreadable record or a write in between: wait like any other holder.
      if (jsErrorCode(error) !== JS_ERR.wrongLastSequence) log.warn({ err: error }, "session lease: could not take back our own pod's lease");
      return null;
    }
  }

  /**
   * Called each time the lease is lost (once per acquisition): the holder must stop its engine at
   * once. It may then `acquire` again, as a fresh start would.
   */
  onLost(callback: (reason: string) => void): void {
    this.lostCallbacks.push(callback);
  }

  /** Deletes the key, but only the revision we wrote: a lease taken over is not ours to end. */
  async release(): Promise<void> {
    this.stopTimers();
    await this.renewing;
    // A renewal that was under way has armed the timers again.
    this.stopTimers();
    const revision = this.revision;
    if (revision === null) return;
    this.revision = null;
    try {
      await this.kv.delete(this.options.session, { previousSeq: revision });
      this.options.log.info({ fencingToken: this.token }, 'session lease released');
    } catch (error) {
      this.options.log.warn({ err: error }, 'session lease: release failed; it lapses after its ttl');
    }
  }

  private scheduleRenewal(sentAt: number): void {
    this.stopTimers();
    this.renewTimer = setTimeout(() => {
      this.renewing = this.renew();
    }, this.renewMs);
    // The server counts the ttl from when it stored our write, which is after we sent it; we
    // give up the lease a little earlier still, so the next holder never overlaps with us.
    const margin = Math.min(this.renewMs / 2, 1_000);
    this.lapseTimer = setTimeout(() => this.lose('not renewed within its ttl'), sentAt + this.ttlMs - margin - Date.now());
  }

  private async renew(): Promise<void> {
    const revision = this.revision;
    if (revision === null) return;
    const sentAt = Date.now();
    try {
      const next = await this.kv.update(this.options.session, this.value(), revision);
      if (this.revision !== revision) return;
      this.revision = next;
      this.scheduleRenewal(sentAt);
    } catch (error) {
      if (this.revision !== revision) return;
      if (jsErrorCode(error) === JS_ERR.wrongLastSequence) {
        this.lose('another holder wrote the lease key');
        return;
      }
      // NATS unreachable: keep trying until the lapse timer says the ttl has run out.
      this.options.log.warn({ err: error }, 'session lease: renewal failed; retrying');
      this.renewTimer = setTimeout(
        () => {
          this.renewing = this.renew();
        },
        Math.min(this.renewMs, 1_000),
      );
    }
  }

  private lose(reason: string): void {
    if (this.revision === null) return;
    this.revision = null;
    this.stopTimers();
    this.options.log.error({ reason, fencingToken: this.token }, 'session lease lost');
    for (const callback of this.lostCallbacks) callback(reason);
  }

  private stopTimers(): void {
    if (this.renewTimer) clearTimeout(this.renewTimer);
    if (this.lapseTimer) clearTimeout(this.lapseTimer);
    this.renewTimer = null;
    this.lapseTimer = null;
  }

  private value(): string {
    const { holder, podUid } = this.options;
    const record: LeaseRecord = {
      holder,
      ...(podUid === undefined ? {} : { podUid }),
      acquiredAt: this.acquiredAt,
      renewedAt: new Date().toISOString(),
    };
    return JSON.stringify(record);
  }
}
