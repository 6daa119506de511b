/** A queue's key: its session, a space, its webhook's target id (`../../webhooks/webhook-targets.ts`). */
export function queueKey(session: string, targetId: string): string {
  return `${session} ${targetId}`;
}

/** Session names hold no space (not a valid name character); target ids hold none either. */
export function splitKey(key: string): [session: string, targetId: string] {
  const space = key.indexOf(' ');
  return [key.slice(0, space), key.slice(space + 1)];
}

/** The target id a queue key names. */
export function queueTargetId(key: string): string {
  return splitKey(key)[1];
}

/** The keys of a session's queues lie in [from, to): each starts with the name and a space. */
export function sessionKeys(session: string): [from: string, to: string] {
  return [`${session} `, `${session}!`];
}
