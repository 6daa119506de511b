import { type MessagingSession, sessionNameOf } from '@switchboard/kube';
import type { SessionCache } from './session-cache.js';

/**
 * Calls `deleted(session, last)` for each session whose MessagingSession leaves the cache
 * (deleted through this replica, another one or kubectl, once its finalizer has let it go), or
 * is replaced by a new resource of the same name between two looks; `last` is the resource as
 * last seen. Call it once the cache is synced; returns the unsubscribe.
 */
export function onDeletedSessions(
  cache: Pick<SessionCache, 'list' | 'subscribe'>,
  deleted: (session: string, last: MessagingSession) => void,
): () => void {
  let known = bySession(cache.list() ?? []);
  return cache.subscribe(() => {
    const resources = cache.list();
    if (!resources) return;
    const now = bySession(resources);
    for (const [session, last] of known) {
      if (now.get(session)?.metadata?.uid !== last.metadata?.uid) deleted(session, last);
    }
    known = now;
  });
}

function bySession(resources: readonly MessagingSession[]): Map<string, MessagingSession> {
  return new Map(resources.map((resource) => [sessionNameOf(resource), resource]));
}
