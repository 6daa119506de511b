import type { ResourceWebhookConfig } from '@switchboard/protocol';
import { type WebhookTarget as SharedTarget } from '../webhooks/webhook-targets.js';

export { GLOBAL_TARGET, webhookTargets } from '../webhooks/webhook-targets.js';

/** One webhook of one session as cluster mode queues it (`../webhooks/webhook-targets.ts`). */
export type WebhookTarget = SharedTarget<ResourceWebhookConfig>;

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
