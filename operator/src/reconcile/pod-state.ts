import type { V1Pod } from '@kubernetes/client-node';

/**
 * What the operator reads from an engine pod. The informer cache holds pods as plain JSON, so
 * timestamps are only ever tested for presence here.
 */
export function isTerminating(pod: V1Pod): boolean {
  return Boolean(pod.metadata?.deletionTimestamp);
}

/** Succeeded or Failed: with restartPolicy Always that means the node gave up on it. */
export function isFinished(pod: V1Pod): boolean {
  return pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded';
}

export function isReady(pod: V1Pod): boolean {
  return pod.status?.phase === 'Running' && pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

/** The kubelet is backing off restarts of a container that keeps exiting. */
export function isCrashLooping(pod: V1Pod): boolean {
  return pod.status?.containerStatuses?.some((c) => c.state?.waiting?.reason === 'CrashLoopBackOff') === true;
}

export function isControlledBy(pod: V1Pod, uid: string): boolean {
  return pod.metadata?.ownerReferences?.some((ref) => ref.controller === true && ref.uid === uid) === true;
}

/** Why the pod is not ready, in a few words (for conditions and events). */
export function podSummary(pod: V1Pod): string {
  const waiting = pod.status?.containerStatuses?.find((c) => c.state?.waiting?.reason)?.state?.waiting;
  if (waiting) return `${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`;
  const terminated = pod.status?.containerStatuses?.find((c) => c.state?.terminated)?.state?.terminated;
  if (terminated) return `container exited with code ${terminated.exitCode}${terminated.reason ? ` (${terminated.reason})` : ''}`;
  return `phase ${pod.status?.phase ?? 'Pending'}`;
}
