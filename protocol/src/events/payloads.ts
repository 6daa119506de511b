import { z } from 'zod';
import { EngineLibraryVersions } from '../engine-versions.js';
import { ChatPresences } from '../presence.js';
import { Label } from '../label.js';
import { Ack, AckName, MessageRecord } from '../message.js';
import { SessionStatus, SessionStatusPoint } from '../status.js';
import type { EventName } from './names.js';
import { CallPayload } from './payloads/calls.js';
import { ChatArchivePayload, LabelChatPayload, LabelDeletedPayload } from './payloads/chats.js';
import { EngineEventPayload, StateChangePayload } from './payloads/engine.js';
import {
  GroupJoinPayload,
  GroupLeavePayload,
  GroupV2JoinPayload,
  GroupV2LeavePayload,
  GroupV2ParticipantsPayload,
  GroupV2UpdatePayload,
} from './payloads/groups.js';
import { EventResponseFailedPayload, EventResponsePayload, PollVoteFailedPayload, PollVotePayload } from './payloads/interactions.js';
import { MessageEditedPayload, MessageReactionPayload, MessageRevokedPayload } from './payloads/messages.js';

// The package index re-exports only this file, so the per-group payload modules go out through it.
export * from './payloads/calls.js';
export * from './payloads/chats.js';
export * from './payloads/engine.js';
export * from './payloads/groups.js';
export * from './payloads/interactions.js';
export * from './payloads/messages.js';

export const SessionStatusPayload = z
  .object({
    name: z.string().meta({ description: 'Session name' }),
    status: SessionStatus,
    statuses: z.array(SessionStatusPoint).max(3).meta({ description: 'The recent 3 statuses, oldest first' }),
    reason: z.string().optional().meta({
      description:
        'With FAILED: why the session cannot work (e.g. the server refused every connection attempt). With STARTING: why a WORKING session reconnects, when the engine knows ("silent: ...": the service stopped answering on an open connection)',
    }),
    versions: EngineLibraryVersions.optional().meta({
      description:
        'What the engine runs (its library and version, the client version it presents), once it has said so in this start: NOWEB and GOWS. Not in the peer API.',
    }),
  })
  .meta({ id: 'SessionStatusPayload' });
export type SessionStatusPayload = z.infer<typeof SessionStatusPayload>;

/** Also the group variant: there `id` ends with `_<participant>`, `from` is the group id. */
export const MessageAckPayload = z
  .object({
    id: z.string(),
    from: z.string().meta({ description: 'Chat id (the group id for the group variant)' }),
    to: z.string().optional(),
    participant: z.string().nullable().meta({ description: 'null for direct chats' }),
    fromMe: z.boolean(),
    ack: Ack,
    ackName: AckName,
    _data: z.record(z.string(), z.unknown()).optional(),
  })
  // Spec 6.2: `participant` is null for direct chats; only the group variant names one.
  .refine((ack) => ack.participant === null || ack.from.endsWith('@g.us'), {
    path: ['participant'],
    message: 'must be null outside group chats',
  })
  .meta({ id: 'MessageAckPayload' });
export type MessageAckPayload = z.infer<typeof MessageAckPayload>;

/** Payload schema of every event name (spec 6.2); a missing name fails to compile. */
export const EVENT_PAYLOADS = {
  'session.status': SessionStatusPayload,
  message: MessageRecord,
  'message.any': MessageRecord,
  'message.reaction': MessageReactionPayload,
  'message.ack': MessageAckPayload,
  'message.ack.group': MessageAckPayload,
  'message.waiting': MessageRecord,
  'message.edited': MessageEditedPayload,
  'message.revoked': MessageRevokedPayload,
  'chat.archive': ChatArchivePayload,
  'group.v2.join': GroupV2JoinPayload,
  'group.v2.leave': GroupV2LeavePayload,
  'group.v2.participants': GroupV2ParticipantsPayload,
  'group.v2.update': GroupV2UpdatePayload,
  'presence.update': ChatPresences,
  'poll.vote': PollVotePayload,
  'poll.vote.failed': PollVoteFailedPayload,
  'event.response': EventResponsePayload,
  'event.response.failed': EventResponseFailedPayload,
  'label.upsert': Label,
  'label.deleted': LabelDeletedPayload,
  'label.chat.added': LabelChatPayload,
  'label.chat.deleted': LabelChatPayload,
  'call.received': CallPayload,
  'call.accepted': CallPayload,
  'call.rejected': CallPayload,
  'engine.event': EngineEventPayload,
  'group.join': GroupJoinPayload,
  'group.leave': GroupLeavePayload,
  'state.change': StateChangePayload,
} satisfies Record<EventName, z.ZodType>;

/** The payload type of one event. */
export type EventPayload<E extends EventName> = z.infer<(typeof EVENT_PAYLOADS)[E]>;
