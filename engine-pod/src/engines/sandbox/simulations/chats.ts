import type { ChatArchivePayload, ChatPresences, SimulateArchive, SimulatePresence } from '@switchboard/protocol';
import type { z } from 'zod';
import type { SandboxSide } from '../sandbox-side.js';
import { isGroupChat } from './addressing.js';
import type { SimulationResult } from './simulation.js';
import { DEFAULT_MEMBER, nowSeconds } from './world-ids.js';

/** A chat is archived or unarchived on the phone: `chat.archive`. */
export async function simulateArchive(side: SandboxSide, request: z.infer<typeof SimulateArchive>): SimulationResult {
  side.requireWorking();
  const payload: ChatArchivePayload = { id: request.chatId, timestamp: nowSeconds(), archived: request.archived };
  side.context.emit('chat.archive', payload);
  return { id: request.chatId, archived: request.archived };
}

/** Someone in a chat comes online, types, records or goes away: `presence.update`. */
export async function simulatePresence(side: SandboxSide, request: z.infer<typeof SimulatePresence>): SimulationResult {
  side.requireWorking();
  // A direct chat has one participant: the other person, whose id is the chat's.
  const participant = isGroupChat(request.chatId) ? (request.participant ?? DEFAULT_MEMBER) : request.chatId;
  const payload: ChatPresences = {
    id: request.chatId,
    presences: [{ participant, lastKnownPresence: request.presence, lastSeen: request.lastSeen }],
  };
  // The account hears it: GET /api/{session}/presence/{chatId} answers the last of each participant.
  const others = side.world.presences.get(request.chatId)?.presences.filter((known) => known.participant !== participant) ?? [];
  side.world.presences.set(request.chatId, { id: request.chatId, presences: [...others, ...payload.presences] });
  side.context.emit('presence.update', payload);
  return { id: request.chatId, participant };
}
