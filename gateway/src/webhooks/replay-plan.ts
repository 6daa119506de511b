import type { DeadDelivery, ReplayResult, WebhookConfig } from '@switchboard/protocol';
import { ApiError } from '../http/errors.js';

/** `W`: a webhook as the mode keeps it (cluster mode's may name its secrets' Secrets). */
export interface PlannedReplay<W extends { url: string } = WebhookConfig> {
  readonly dead: DeadDelivery;
  readonly target: W;
}

/**
 * Decides, the same way in both modes, what a replay sends where. A dead delivery goes to the
 * webhook the session has now with the same url (the global webhook when none of the session's
 * has it), so a fixed key or header applies; with no such webhook any more it stays dead.
 * Unknown ids refuse the whole call, before anything changed.
 */
export function planReplay<W extends { url: string }>(
  session: string,
  found: readonly DeadDelivery[],
  ids: readonly number[] | undefined,
  webhooks: readonly W[],
  globalHook: W | null,
): { replay: PlannedReplay<W>[]; skipped: ReplayResult['skipped'] } {
  if (ids !== undefined) {
    const known = new Set(found.map((dead) => dead.id));
    const unknown = [...new Set(ids)].filter((id) => !known.has(id));
    if (unknown.length > 0) {
      throw new ApiError(404, `session '${session}' has no dead delivery with id ${unknown.join(', ')}`, { session, ids: unknown });
    }
  }
  const replay: PlannedReplay<W>[] = [];
  const skipped: ReplayResult['skipped'] = [];
  for (const dead of found) {
    const target = webhooks.find((hook) => hook.url === dead.url) ?? (globalHook?.url === dead.url ? globalHook : undefined);
    if (target) replay.push({ dead, target });
    else skipped.push({ id: dead.id, reason: 'the session has no webhook with this url any more' });
  }
  return { replay, skipped };
}
