import type { DeadDelivery, ReplayResult, WebhookConfig } from '@switchboard/protocol';
import { ApiError } from '../http/errors.js';

export interface PlannedReplay {
  readonly dead: DeadDelivery;
  readonly target: WebhookConfig;
}

/**
 * Decides, the same way in both modes, what a replay sends where. A dead delivery goes to the
 * webhook the session has now with the same url (the global webhook when none of the session's
 * has it), so a fixed key or header applies; with no such webhook any more it stays dead.
 * Unknown ids refuse the whole call, before anything changed.
 */
export function planReplay(
  session: string,
  found: readonly DeadDelivery[],
  ids: readonly number[] | undefined,
  webhooks: readonly WebhookConfig[],
  globalHook: WebhookConfig | null,
): { replay: PlannedReplay[]; skipped: ReplayResult['skipped'] } {
  if (ids !== undefined) {
    const known = new Set(found.map((dead) => dead.id));
    const unknown = [...new Set(ids)].filter((id) => !known.has(id));
    if (unknown.length > 0) {
      throw new ApiError(404, `session '${session}' has no dead delivery with id ${unknown.join(', ')}`, { session, ids: unknown });
    }
  }
  const replay: PlannedReplay[] = [];
  const skipped: ReplayResult['skipped'] = [];
  for (const dead of found) {
    const target = webhooks.find((hook) => hook.url === dead.url) ?? (globalHook?.url === dead.url ? globalHook : undefined);
    if (target) replay.push({ dead, target });
    else skipped.push({ id: dead.id, reason: 'the session has no webhook with this url any more' });
  }
  return { replay, skipped };
}
