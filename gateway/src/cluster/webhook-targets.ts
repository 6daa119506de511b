// A webhook's target id is the same in both modes (`../webhooks/webhook-targets.ts`).
export { webhookTargets } from '../webhooks/webhook-targets.js';

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
