import type { V1Pod } from '@kubernetes/client-node';
import { isTerminating } from './pod-state.js';

type Expectation = { readonly kind: 'create' } | { readonly kind: 'delete'; readonly uid: string };

/** After this long an expectation is dropped: the resync reconciles from whatever is there. */
const EXPECTATION_TTL_MS = 30_000;

/**
 * What the operator just did to a session's pod that the pod cache may not show yet (the
 * ReplicaSet controller's "expectations"). A reconcile that runs before the cache catches up
 * waits instead of acting twice on a stale view: creating a pod again, or deleting it again.
 */
export class PodExpectations {
  private readonly pending = new Map<string, { expectation: Expectation; until: number }>();

  expectCreate(key: string): void {
    this.pending.set(key, { expectation: { kind: 'create' }, until: Date.now() + EXPECTATION_TTL_MS });
  }

  expectDelete(key: string, uid: string): void {
    this.pending.set(key, { expectation: { kind: 'delete', uid }, until: Date.now() + EXPECTATION_TTL_MS });
  }

  /** True while the cached pod does not show our last write yet; clears itself once it does. */
  awaiting(key: string, cached: V1Pod | null): boolean {
    const entry = this.pending.get(key);
    if (!entry) return false;
    if (Date.now() > entry.until || satisfied(entry.expectation, cached)) {
      this.pending.delete(key);
      return false;
    }
    return true;
  }

  forget(key: string): void {
    this.pending.delete(key);
  }
}

function satisfied(expectation: Expectation, pod: V1Pod | null): boolean {
  if (expectation.kind === 'create') return pod !== null;
  return pod === null || pod.metadata?.uid !== expectation.uid || isTerminating(pod);
}
