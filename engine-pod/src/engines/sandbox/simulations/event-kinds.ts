import type { eventSimulations } from '@switchboard/protocol';
import type { z } from 'zod';
import { simulateCall } from './calls.js';
import { simulateArchive, simulatePresence } from './chats.js';
import { simulateEngineEvent, simulateEngineState } from './engine-events.js';
import { simulateGroupJoin, simulateGroupLeave, simulateGroupParticipants, simulateGroupUpdate } from './groups.js';
import { simulateEventResponse, simulatePollVote } from './interactions.js';
import { simulateLabel, simulateLabelChat } from './labels.js';
import { simulateAck, simulateEdit, simulateReaction, simulateRevoke, simulateWaiting } from './message-actions.js';
import type { Simulation } from './simulation.js';

type EventKind = z.infer<(typeof eventSimulations)[number]>['kind'];

/** The kinds that make the events of spec 6.2 happen (protocol/src/sandbox-events.ts, docs/sandbox.md). */
export const EVENT_SIMULATIONS: { readonly [K in EventKind]: Simulation<K> } = {
  reaction: simulateReaction,
  ack: simulateAck,
  waiting: simulateWaiting,
  edit: simulateEdit,
  revoke: simulateRevoke,
  archive: simulateArchive,
  'group-join': simulateGroupJoin,
  'group-leave': simulateGroupLeave,
  'group-participants': simulateGroupParticipants,
  'group-update': simulateGroupUpdate,
  presence: simulatePresence,
  'poll-vote': simulatePollVote,
  'event-response': simulateEventResponse,
  label: simulateLabel,
  'label-chat': simulateLabelChat,
  call: simulateCall,
  'engine-event': simulateEngineEvent,
  'engine-state': simulateEngineState,
};
