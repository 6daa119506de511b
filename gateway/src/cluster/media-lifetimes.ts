import { type MessagingSession, sessionNameOf } from '@switchboard/kube';
import type { SessionCache } from './session-cache.js';

interface Logger {
  warn(obj: object, msg: string): void;
}

/**
 * Each session has a media bucket of its own (a NATS permission can name a bucket, not an
 * object), and the gateway owns the media lifetime: every session it sees gets its bucket with
 * the gateway's TTL (`NatsMediaStore.keepLifetime`), once per resource (its uid), before its pod
 * is likely to have stored a file. A failure is tried again at the next change the cache sees.
 * Call it once the cache is synced; returns the unsubscribe.
 */
export function keepMediaLifetimes(
  cache: Pick<SessionCache, 'list' | 'subscribe'>,
  keepLifetime: (session: string) => Promise<void>,
  log: Logger,
): () => void {
  const kept = new Map<string, string | undefined>();
  const look = (resources: readonly MessagingSession[] | undefined) => {
    for (const resource of resources ?? []) {
      // A session being deleted is losing its buckets: making them again would leave them behind.
      if (resource.metadata?.deletionTimestamp) continue;
      const session = sessionNameOf(resource);
      const uid = resource.metadata?.uid;
      if (kept.has(session) && kept.get(session) === uid) continue;
      kept.set(session, uid);
      keepLifetime(session).catch((error: unknown) => {
        kept.delete(session);
        log.warn({ err: error, session }, 'media bucket not brought to the media lifetime; tried again at the next change');
      });
    }
  };
  look(cache.list());
  return cache.subscribe(() => look(cache.list()));
}
