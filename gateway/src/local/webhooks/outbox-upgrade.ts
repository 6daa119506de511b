import type { DatabaseSync } from 'node:sqlite';
import type { WebhookConfig } from '@switchboard/protocol';
import { GLOBAL_TARGET, urlHash } from '../../webhooks/webhook-targets.js';
import type { TargetOf } from './outbox.js';
import { queueKey } from './queue-keys.js';

/**
 * Rows written before queues were keyed by target id had keys `session confighash url`: they
 * become the queue of the session's first webhook of that url, else of the global hook when it
 * has that url, so an upgrade loses no delivery. (With neither, the webhook is gone, and so is
 * the queue when it is next read, as for any removed webhook.) Runs at start; new keys have one space.
 */
export function adoptOlderRows(db: DatabaseSync, targetOf: TargetOf): void {
  const old = db.prepare("SELECT DISTINCT target_key, session, target FROM webhook_deliveries WHERE target_key LIKE '% % %'").all() as {
    target_key: string;
    session: string;
    target: string;
  }[];
  const update = db.prepare('UPDATE webhook_deliveries SET target_key = ? WHERE target_key = ?');
  for (const { target_key: key, session, target } of old) {
    const { url } = JSON.parse(target) as WebhookConfig;
    const global = targetOf(session, urlHash(url)) === null && targetOf(session, GLOBAL_TARGET)?.url === url;
    update.run(queueKey(session, global ? GLOBAL_TARGET : urlHash(url)), key);
  }
}
