import { type Condition, CONDITION_MESSAGE_MAX } from '@switchboard/protocol';

/** A condition as a reconcile decides it; the time and generation are filled in by `setCondition`. */
export interface ConditionUpdate {
  readonly type: string;
  readonly status: Condition['status'];
  readonly reason: string;
  readonly message: string;
}

/**
 * Sets one condition, the way apimachinery's `meta.SetStatusCondition` does: the transition
 * time moves only when the status flips, every other field follows the update, and the
 * generation it was computed from is stamped on it. Returns a new list; order is kept. A message
 * longer than the CRD allows is cut, so that no engine's words can make the status unwritable.
 */
export function setCondition(conditions: readonly Condition[], update: ConditionUpdate, generation: number, now: Date): Condition[] {
  const existing = conditions.find((c) => c.type === update.type);
  const next: Condition = {
    type: update.type,
    status: update.status,
    reason: update.reason,
    message: clip(update.message),
    lastTransitionTime: existing && existing.status === update.status ? existing.lastTransitionTime : rfc3339(now),
    observedGeneration: generation,
  };
  return existing ? conditions.map((c) => (c === existing ? next : c)) : [...conditions, next];
}

export function setConditions(conditions: readonly Condition[], updates: readonly ConditionUpdate[], generation: number, now: Date): Condition[] {
  return updates.reduce<Condition[]>((list, update) => setCondition(list, update, generation, now), [...conditions]);
}

export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Kubernetes `metav1.Time`: RFC 3339 with whole seconds. */
function rfc3339(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/**
 * Text cut to what the CRD takes for a message (counted in UTF-16 units, which are never fewer
 * than the code points the API server counts), marked with "…" where it was cut.
 */
export function clip(text: string, max = CONDITION_MESSAGE_MAX): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max - 1).replace(/[\uD800-\uDBFF]$/, '')}…`;
}
