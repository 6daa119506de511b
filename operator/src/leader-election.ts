import { CoordinationV1Api, type KubeConfig, V1MicroTime, type V1Lease, type V1LeaseSpec, Watch } from '@kubernetes/client-node';
import { httpStatusOf, withTimeout } from '@switchboard/kube';
import type { Logger } from 'pino';

/** client-go's defaults: a leader renews every 2 s, gives up after 10 s, others wait 15 s. */
export interface LeaseTimings {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

export const DEFAULT_LEASE_TIMINGS: LeaseTimings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

export interface LeaderElectorOptions {
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
  readonly leaseName: string;
  readonly identity: string;
  readonly log: Logger;
  readonly timings?: LeaseTimings;
}

export interface LeadershipCallbacks {
  onStartedLeading(): void;
  /**
   * Called when a leader could not renew within the renew deadline. The elector campaigns again
   * only once what it returns has settled: the workers must be stopped before this replica may
   * lead again.
   */
  onStoppedLeading(): void | Promise<void>;
}

/**
 * Leader election on a coordination.k8s.io/v1 Lease, the way client-go's leaderelection does
 * it, so that of several replicas exactly one runs the workers:
 * - a candidate takes the lease when it is free, released, or was not renewed for a lease
 *   duration (measured on the candidate's own clock, from when it last saw the lease change,
 *   so clock skew between replicas does not matter);
 * - every write carries the resourceVersion read, so two candidates cannot both win;
 * - a leader that cannot renew within the renew deadline stops leading; the deadline is
 *   shorter than the lease duration, so it stops before anyone else may start. It then becomes a
 *   candidate again, in the same process: an API server that was away (a restart, an upgrade of
 *   the control plane) comes back to a replica that campaigns, rather than to one that exited
 *   and waits out a restart backoff;
 * - `stop` releases a held lease (empty holder), so the next replica takes over at once: a
 *   candidate watches the lease while it waits, and a release wakes it (below).
 */
export class LeaderElector {
  private readonly api: CoordinationV1Api;
  private readonly timings: LeaseTimings;
  private leading = false;
  private stopped = false;
  private observedRecord = '';
  private observedAt = 0;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;

  constructor(private readonly options: LeaderElectorOptions) {
    this.api = options.kubeConfig.makeApiClient(CoordinationV1Api);
    this.timings = options.timings ?? DEFAULT_LEASE_TIMINGS;
  }

  get isLeader(): boolean {
    return this.leading;
  }

  run(callbacks: LeadershipCallbacks): void {
    this.loop ??= this.campaign(callbacks);
  }

  /** Stops campaigning; a leader releases the lease first. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    if (this.leading) {
      this.leading = false;
      await this.release();
    }
  }

  /** Acquires, leads until a renewal fails for the renew deadline, stands down, and campaigns again, until stopped. */
  private async campaign(callbacks: LeadershipCallbacks): Promise<void> {
    while (!this.stopped) {
      if (!(await this.acquire())) return;
      this.options.log.info({ lease: this.options.leaseName, identity: this.options.identity }, 'became the leader');
      callbacks.onStartedLeading();
      if (!(await this.renewUntilLost())) return;
      this.options.log.error(
        { lease: this.options.leaseName, renewDeadlineMs: this.timings.renewDeadlineMs },
        'could not renew the lease within the renew deadline; stopped leading, and campaigning again once the workers have stopped',
      );
      await callbacks.onStoppedLeading();
    }
  }

  /** Retries until this replica holds the lease (true) or is stopped (false). */
  private async acquire(): Promise<boolean> {
    const { retryPeriodMs } = this.timings;
    const unwatch = this.watchForRelease();
    try {
      // Jittered as client-go's JitterUntil (factor 1.2), so candidates do not retry in step.
      while (!this.stopped && !this.leading) {
        this.leading = await this.tryAcquireOrRenew(retryPeriodMs);
        if (!this.leading && !this.stopped) await this.sleep(retryPeriodMs * (1 + Math.random() * 1.2));
      }
    } finally {
      unwatch();
    }
    // Stopped while acquiring: `stop` releases what was just taken.
    return !this.stopped;
  }

  /**
   * While this replica waits for the lease: a watch on it, so that a release (an empty holder)
   * wakes the wait at once instead of at the next retry, 2 to 4.4 s later. That is what makes a
   * deleted leader's standby the next leader: the Deployment's replacement pod campaigns as soon
   * as it runs, and without the watch it won the race about one time in five on a real node.
   * A watch that cannot be opened (an older RBAC without list and watch) leaves the retries,
   * which find the released lease anyway.
   */
  private watchForRelease(): () => void {
    const { kubeConfig, namespace, leaseName: name, log } = this.options;
    let done = false;
    let controller: AbortController | null = null;
    const open = (): void => {
      if (done) return;
      new Watch(kubeConfig)
        .watch(
          `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`,
          { fieldSelector: `metadata.name=${name}` },
          (_type: string, lease: V1Lease) => {
            if ((lease.spec?.holderIdentity ?? '') === '') this.wake?.();
          },
          (error: unknown) => {
            if (!done) setTimeout(open, error ? this.timings.retryPeriodMs : 0);
          },
        )
        .then(
          (opened) => (done ? opened.abort() : (controller = opened)),
          (error: unknown) => {
            log.debug({ lease: name, err: error }, 'cannot watch the lease; a release is found at the next retry');
            if (!done) setTimeout(open, this.timings.retryPeriodMs * 5);
          },
        );
    };
    open();
    return () => {
      done = true;
      controller?.abort();
    };
  }

  /** Renews every retry period; true once a renewal has failed for the renew deadline, false when stopped. */
  private async renewUntilLost(): Promise<boolean> {
    const { retryPeriodMs, renewDeadlineMs } = this.timings;
    let renewedAt = performance.now();
    while (!this.stopped) {
      await this.sleep(retryPeriodMs);
      if (this.stopped) return false;
      const remaining = renewDeadlineMs - (performance.now() - renewedAt);
      if (remaining > 0 && (await this.tryAcquireOrRenew(Math.min(remaining, retryPeriodMs * 2)))) {
        renewedAt = performance.now();
      } else if (performance.now() - renewedAt >= renewDeadlineMs) {
        this.leading = false;
        return true;
      }
    }
    return false;
  }

  /** One attempt, as client-go's tryAcquireOrRenew: true when we hold the lease afterwards. */
  private async tryAcquireOrRenew(timeoutMs: number): Promise<boolean> {
    try {
      return await withTimeout(this.attempt(), timeoutMs, `lease ${this.options.leaseName}`);
    } catch (error) {
      this.options.log.warn({ lease: this.options.leaseName, err: error }, 'lease attempt failed');
      return false;
    }
  }

  private async attempt(): Promise<boolean> {
    const { namespace, leaseName: name, identity } = this.options;
    const now = new V1MicroTime();
    const fresh: V1LeaseSpec = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(this.timings.leaseDurationMs / 1000),
      acquireTime: now,
      renewTime: now,
      leaseTransitions: 0,
    };
    let lease: V1Lease;
    try {
      lease = await this.api.readNamespacedLease({ name, namespace });
    } catch (error) {
      if (httpStatusOf(error) !== 404) throw error;
      await this.api.createNamespacedLease({ namespace, body: { metadata: { name, namespace }, spec: fresh } }).catch(conflictIsLoss);
      this.observe(fresh);
      return true;
    }
    const spec = lease.spec ?? {};
    this.observe(spec);
    const holder = spec.holderIdentity ?? '';
    const heldByOther = holder !== '' && holder !== identity;
    if (heldByOther && performance.now() - this.observedAt < (spec.leaseDurationSeconds ?? 0) * 1000) return false;

    const next: V1LeaseSpec =
      holder === identity
        ? { ...spec, renewTime: now, leaseDurationSeconds: fresh.leaseDurationSeconds }
        : { ...fresh, leaseTransitions: (spec.leaseTransitions ?? 0) + 1 };
    // The resourceVersion read makes this write fail if another replica wrote in between.
    await this.api.replaceNamespacedLease({ name, namespace, body: { ...lease, spec: next } }).catch(conflictIsLoss);
    this.observe(next);
    return true;
  }

  /** Remembers when the lease last changed, by our own monotonic clock. */
  private observe(spec: V1LeaseSpec): void {
    const record = JSON.stringify([spec.holderIdentity, String(spec.renewTime), String(spec.acquireTime), spec.leaseTransitions]);
    if (record !== this.observedRecord) {
      this.observedRecord = record;
      this.observedAt = performance.now();
    }
  }

  /** Empties the holder, as client-go's ReleaseOnCancel does, so a follower need not wait. */
  private async release(): Promise<void> {
    const { namespace, leaseName: name, identity, log } = this.options;
    try {
      const lease = await this.api.readNamespacedLease({ name, namespace });
      if (lease.spec?.holderIdentity !== identity) return;
      const now = new V1MicroTime();
      const spec: V1LeaseSpec = { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now };
      await this.api.replaceNamespacedLease({ name, namespace, body: { ...lease, spec } });
      log.info({ lease: name, identity }, 'released the lease');
    } catch (error) {
      log.warn({ lease: name, err: error }, 'could not release the lease; the next leader waits for it to expire');
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

class LeaseTaken extends Error {}

function conflictIsLoss(error: unknown): never {
  if (httpStatusOf(error) === 409) throw new LeaseTaken('another replica wrote the lease first');
  throw error;
}
