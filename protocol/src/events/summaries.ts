import type { EventName } from './names.js';

/** When each event is sent (spec 6.2, "Emitted when"), for the OpenAPI document's `webhooks`. */
export const EVENT_SUMMARIES = {
  'session.status': 'The session status changes.',
  message: 'An incoming message arrives (text, audio, files).',
  'message.any': 'Any message is created, including your own; `source` is `api` when sent through this service.',
  'message.reaction': 'A message is reacted to, by another user or by yourself.',
  'message.ack':
    'The server or recipient receives, reads or plays a message. In the group variant a member acknowledged it: ' +
    '`id` ends with `_<participant>`, `from` is the group id and `participant` is set.',
  'message.ack.group':
    'A member of a group acknowledged a message: the group variant of `message.ack`, under the name the peer product gives it. ' +
    'Sent beside `message.ack`, only to filters that name it (`*` does not include it).',
  'message.waiting': 'The phone shows a waiting-for-message notice.',
  'message.edited': 'A message is edited.',
  'message.revoked': 'Any participant revokes a message.',
  'chat.archive': 'A chat is archived or unarchived.',
  'group.v2.join': 'You join or are added to a group.',
  'group.v2.leave': 'You leave or are removed from a group.',
  'group.v2.participants': 'Someone joins, leaves, is promoted or demoted.',
  'group.v2.update': 'Group information changes.',
  'presence.update': "Presence of a chat's participants changes.",
  'poll.vote': 'A vote arrives on a poll.',
  'poll.vote.failed': 'A vote could not be processed.',
  'event.response': 'A user answers an event message.',
  'event.response.failed': 'The response to an event message could not be decrypted.',
  'label.upsert': 'A label is created or changed.',
  'label.deleted': 'A label is deleted.',
  'label.chat.added': 'A label is put on a chat.',
  'label.chat.deleted': 'A label is removed from a chat.',
  'call.received': 'An incoming one-to-one or group call arrives.',
  'call.accepted': 'An incoming call is accepted on another device.',
  'call.rejected': 'A call is rejected or terminated.',
  'engine.event': 'Low-level engine event, for debugging.',
  'group.join': 'Deprecated: superseded by the `group.v2` events.',
  'group.leave': 'Deprecated: superseded by the `group.v2` events.',
  'state.change': 'Deprecated: internal engine state, not the session status; superseded by `session.status`.',
} as const satisfies Record<EventName, string>;

/** Spec 6.2 "Deprecated events" (and part 9, rule 3). */
export const DEPRECATED_EVENTS: ReadonlySet<EventName> = new Set(['group.join', 'group.leave', 'state.change']);
