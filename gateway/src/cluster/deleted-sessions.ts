import { sessionNameOf } from './messaging-session.js';
import type { SessionCache } from './session-cache.js';

/**
 * Calls `deleted(session)` for each session whose MessagingSession leaves the cache: deleted
 * through this replica, another one or kubectl, once its finalizer has let it go. Call it once
 * the cache is synced; returns the unsubscribe.
 */
export function onDeletedSessions(cache: SessionCache, deleted: (session: string) => void): () => void {
  let known = new Set(cache.list()?.map(sessionNameOf));
  return cache.subscribe(() => {
    const resources = cache.list();
    if (!resources) return;
    const now = new Set(resources.map(sessionNameOf));
    for (const session of known) if (!now.has(session)) deleted(session);
    known = now;
  });
}
