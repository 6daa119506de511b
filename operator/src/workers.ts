import { ConflictError } from '@switchboard/kube';
import type { Logger } from 'pino';
import type { ReconcileOutcome } from './operator-metrics.js';
import type { ReconcileResult } from './reconcile/context.js';
import type { WorkQueue } from './work-queue.js';

/** Conflicts in a row after which the cause is not a lagging cache any more. */
const PERSISTENT_CONFLICT = 5;

/**
 * Runs `count` workers over the queue until it shuts down. Each key goes to one worker at a
 * time; a failure requeues it with its backoff, a success forgets the backoff and honours a
 * requested requeue.
 */
export async function runWorkers(
  queue: WorkQueue,
  reconcile: (key: string) => Promise<ReconcileResult>,
  count: number,
  log: Logger,
  /** Told how each reconcile ended and how long it took (the metrics). */
  observe: (outcome: ReconcileOutcome, seconds: number) => void = () => {},
): Promise<void> {
  const worker = async () => {
    for (let key = await queue.get(); key !== undefined; key = await queue.get()) {
      const started = performance.now();
      const took = () => (performance.now() - started) / 1000;
      try {
        const result = await reconcile(key);
        observe('success', took());
        queue.forget(key);
        if (result.requeueAfterMs !== undefined) queue.addAfter(key, result.requeueAfterMs);
      } catch (error) {
        // A conflict usually means a cache was behind a write; one that persists is worth a warning.
        const retries = queue.numRequeues(key);
        observe(error instanceof ConflictError ? 'conflict' : 'error', took());
        if (error instanceof ConflictError && retries < PERSISTENT_CONFLICT) log.debug({ resource: key, err: error }, 'reconcile conflict; retrying');
        else log.warn({ resource: key, err: error, retries }, 'reconcile failed; retrying with backoff');
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  };
  await Promise.all(Array.from({ length: count }, worker));
}
