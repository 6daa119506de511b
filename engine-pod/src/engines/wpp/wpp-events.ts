import type { EngineContext } from '../../engine.js';
import { jsonSafe } from '../webjs/webjs-connection.js';
import type { WppClientLike } from './wpp-client.js';
import type { WppParticipantsChange } from './wpp-groups.js';

/**
 * WPPConnect's client events the engine listens to, relayed untranslated as `engine.event`
 * (`{event: 'onAck', data: {<argument>: ...}}`), each with the name of its one argument.
 */
const RELAYED = {
  onStateChange: 'state',
  onAnyMessage: 'message',
  onAck: 'message',
  onReactionMessage: 'reaction',
  onMessageEdit: 'edit',
  onRevokedMessage: 'revoke',
  onPollResponse: 'vote',
  onParticipantsChanged: 'change',
  onNotificationMessage: 'message',
  onIncomingCall: 'call',
} as const satisfies Partial<Record<keyof WppClientLike, string>>;

/** A member change's actions that are WEBJS's `group_join` and `group_leave` (v1 group events). */
const JOINED: ReadonlySet<WppParticipantsChange['action']> = new Set(['add', 'join']);
const LEFT: ReadonlySet<WppParticipantsChange['action']> = new Set(['remove', 'leave']);

/**
 * WPP's events that translate nothing: `state.change` (WPPConnect's `onStateChange`, WhatsApp
 * Web's socket state: CONNECTED, OPENING, PAIRING, UNPAIRED, CONFLICT ...), the spec's v1
 * `group.join` and `group.leave` for any member added or joining, removed or leaving (the
 * `group.v2.*` events are wpp-groups.ts's), with WPPConnect's change as the payload, and
 * `engine.event` for each client event the engine listens to. Listeners are put on each new
 * client (`WppConnection.attach`) before it signs in.
 */
export function listenForEngineEvents(context: EngineContext, client: WppClientLike): void {
  for (const [event, argument] of Object.entries(RELAYED) as [keyof typeof RELAYED, string][]) {
    client[event]((data: unknown) => context.emit('engine.event', { event, data: { [argument]: jsonSafe(data) } }));
  }
  client.onStateChange((state) => context.emit('state.change', { state }));
  client.onParticipantsChanged((change) => {
    const name = JOINED.has(change.action) ? 'group.join' : LEFT.has(change.action) ? 'group.leave' : null;
    if (name) context.emit(name, { ...(jsonSafe(change) as Record<string, unknown>), timestamp: Math.floor(Date.now() / 1000) });
  });
}
