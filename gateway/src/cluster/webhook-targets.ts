import { createHash } from 'node:crypto';
import type { ResourceWebhookConfig } from '@switchboard/protocol';

/**
 * One webhook of one session as cluster mode queues it. The id names the webhook across config
 * edits: the global webhook is `global`, a session webhook is a hash of its url (with `-2`,
 * `-3` ... for further webhooks of the same url). So a changed key, filter or header applies to
 * the deliveries already queued, and only a new url starts a new queue.
 */
export interface WebhookTarget {
  readonly id: string;
  readonly config: ResourceWebhookConfig;
}

export const GLOBAL_TARGET = 'global';

export function webhookTargets(webhooks: readonly ResourceWebhookConfig[], globalHook: ResourceWebhookConfig | null): WebhookTarget[] {
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
 * The durable consumer of one (session, webhook) queue on the events stream. Session names are
 * valid consumer-name characters (no `.`, `*`, `>` or spaces); the `wh_` prefix marks ours.
 * `incarnation` (the resource's uid) makes it the queue of one session, not of its name: a
 * session made again under the name gets a queue of its own. Queues made before the uid was
 * part of the name have none.
 */
export function queueConsumerName(session: string, targetId: string, incarnation?: string): string {
  return `${QUEUE_CONSUMER_PREFIX}${session}_${targetId}${incarnation === undefined ? '' : `_${incarnation}`}`;
}

export const QUEUE_CONSUMER_PREFIX = 'wh_';

/**
 * Each url's hash, computed once: the queues are checked against every session's webhooks at
 * each change of any session, and with a thousand sessions the sha256 of the same urls was the
 * replica's largest cost (profile of the `scale` bench). Bounded: cleared when it grows large.
 */
const urlHashes = new Map<string, string>();

function urlHash(url: string): string {
  let hash = urlHashes.get(url);
  if (hash === undefined) {
    if (urlHashes.size >= 100_000) urlHashes.clear();
    hash = createHash('sha256').update(url).digest('hex').slice(0, 12);
    urlHashes.set(url, hash);
  }
  return hash;
}
