import { z } from 'zod';

/** Every event name of spec part 6.2, the deprecated ones last. */
export const EVENT_NAMES = [
  'session.status',
  'message',
  'message.any',
  'message.reaction',
  'message.ack',
  'message.ack.group',
  'message.waiting',
  'message.edited',
  'message.revoked',
  'chat.archive',
  'group.v2.join',
  'group.v2.leave',
  'group.v2.participants',
  'group.v2.update',
  'presence.update',
  'poll.vote',
  'poll.vote.failed',
  'event.response',
  'event.response.failed',
  'label.upsert',
  'label.deleted',
  'label.chat.added',
  'label.chat.deleted',
  'call.received',
  'call.accepted',
  'call.rejected',
  'engine.event',
  'group.join',
  'group.leave',
  'state.change',
] as const;

export const EventName = z.enum(EVENT_NAMES).meta({ id: 'EventName' });
export type EventName = z.infer<typeof EventName>;

/**
 * `message.ack.group`: the peer product's name for the group variant of `message.ack` (spec 6.2),
 * which is still sent as `message.ack` too. A filter gets it by naming it, never through `*`, so
 * a `*` subscriber does not get each group acknowledgement twice.
 */
const BY_NAME_ONLY: readonly EventName[] = ['message.ack.group'];

/** Webhook filters (spec 2.2): `*` means every event but those asked for by name only. */
export function webhookWants(filter: readonly string[], event: EventName): boolean {
  if (filter.includes(event)) return true;
  return !BY_NAME_ONLY.includes(event) && filter.includes('*');
}

/**
 * Websocket filters (spec 6.1): `*` means every event but `engine.event`, which is asked for by
 * name (`events=*&events=engine.event` gives everything), and those asked for by name only.
 */
export function websocketWants(filter: readonly string[], event: EventName): boolean {
  if (filter.includes(event)) return true;
  return event !== 'engine.event' && !BY_NAME_ONLY.includes(event) && filter.includes('*');
}
