import type {
  EventResponseFailedPayload,
  EventResponsePayload,
  MeInfo,
  MessageDestination,
  MessageKey,
  PollVotePayload,
  SimulateEventResponse,
  SimulatePollVote,
} from '@switchboard/protocol';
import type { z } from 'zod';
import { messageRecord } from '../message-record.js';
import type { SandboxSide } from '../sandbox-side.js';
import { messageKey, newMessageEnds } from './addressing.js';
import type { SimulationResult } from './simulation.js';
import { nowSeconds } from './world-ids.js';

/**
 * A vote on a poll: `poll.vote`, or `poll.vote.failed` (no options) when it cannot be decrypted.
 * The poll need not be known: it may have been made on the phone.
 */
export async function simulatePollVote(side: SandboxSide, request: z.infer<typeof SimulatePollVote>): SimulationResult {
  const me = side.requireWorking();
  const poll = messageKey(request.pollId, 'pollId');
  const ends = newMessageEnds(me, poll.chatId, false, request.participant);
  const payload: PollVotePayload = {
    vote: {
      id: ends.id,
      to: ends.to,
      from: ends.from,
      fromMe: false,
      selectedOptions: request.failed ? [] : request.selectedOptions,
      timestamp: nowSeconds(),
    },
    poll: destination(me, request.pollId, poll),
  };
  side.context.emit(request.failed ? 'poll.vote.failed' : 'poll.vote', payload);
  return { id: ends.id };
}

/**
 * An answer to an event message: `event.response`, or `event.response.failed` (no answer) when it
 * cannot be decrypted. The event message need not be known: it may have been made on the phone.
 */
export async function simulateEventResponse(side: SandboxSide, request: z.infer<typeof SimulateEventResponse>): SimulationResult {
  const me = side.requireWorking();
  const event = messageKey(request.eventId, 'eventId');
  const ends = newMessageEnds(me, event.chatId, false, request.participant);
  const message = { ...messageRecord(ends), replyTo: null, eventCreationKey: destination(me, request.eventId, event) };
  const payload: EventResponsePayload | EventResponseFailedPayload = request.failed
    ? { ...message, eventResponse: null }
    : { ...message, eventResponse: { response: request.response, timestampMs: Date.now(), extraGuestCount: request.extraGuestCount } };
  side.context.emit(request.failed ? 'event.response.failed' : 'event.response', payload);
  return { id: ends.id };
}

/** The key of the poll or event message, with its ends as the message record has them. */
function destination(me: MeInfo, id: string, key: MessageKey): MessageDestination {
  return {
    id,
    to: key.fromMe ? key.chatId : me.id,
    from: key.fromMe ? me.id : key.chatId,
    fromMe: key.fromMe,
  };
}
