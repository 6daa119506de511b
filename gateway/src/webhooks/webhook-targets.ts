import { createHash } from 'node:crypto';

/**
 * One webhook of one session as a queue of its events, the same in both modes. The id names the
 * webhook across config edits: the global webhook is `global`, a session webhook is a hash of its
 * url (with `-2`, `-3` ... for further webhooks of the same url). So a changed key, filter or
 * header applies to the deliveries already queued, and only a new url starts a new queue.
 * `W`: the webhook as the mode keeps it (cluster mode's may name its secrets' Secrets).
 */
export interface WebhookTarget<W extends { url: string }> {
  readonly id: string;
  readonly config: W;
}

export const GLOBAL_TARGET = 'global';

export function webhookTargets<W extends { url: string }>(webhooks: readonly W[], globalHook: W | null): WebhookTarget<W>[] {
  const seen = new Map<string, number>();
  const targets = webhooks.map((config) => {
    const n = (seen.get(config.url) ?? 0) + 1;
    seen.set(config.url, n);
    return { id: `${urlHash(config.url)}${n > 1 ? `-${n}` : ''}`, config };
  });
  if (globalHook) targets.push({ id: GLOBAL_TARGET, config: globalHook });
  return targets;
}

/**
 * Each url's hash, computed once: the queues are checked against every session's webhooks at
 * each change of any session, and with a thousand sessions the sha256 of the same urls was the
 * replica's largest cost (profile of the `scale` bench). Bounded: cleared when it grows large.
 */
const urlHashes = new Map<string, string>();

export function urlHash(url: string): string {
  let hash = urlHashes.get(url);
  if (hash === undefined) {
    if (urlHashes.size >= 100_000) urlHashes.clear();
    hash = createHash('sha256').update(url).digest('hex').slice(0, 12);
    urlHashes.set(url, hash);
  }
  return hash;
}
