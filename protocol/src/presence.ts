import { z } from 'zod';
import { ChatId } from './ids.js';

/** Spec 2.7. */
export const PresenceStatus = z.enum(['online', 'offline', 'typing', 'recording', 'paused']).meta({ id: 'PresenceStatus' });
export type PresenceStatus = z.infer<typeof PresenceStatus>;

export const PresenceData = z
  .object({
    participant: z.string().meta({ description: 'Contact or group member id', examples: ['11111111111@c.us'] }),
    lastKnownPresence: PresenceStatus,
    lastSeen: z.number().nullable().meta({ description: 'Unix seconds; null when unknown or hidden by the contact' }),
  })
  .meta({ id: 'PresenceData' });
export type PresenceData = z.infer<typeof PresenceData>;

/** Payload of `presence.update`: a direct chat has one entry, a group one per member seen. */
export const ChatPresences = z
  .object({
    id: z.string().meta({ description: 'Chat id, direct or group', examples: ['11111111111@c.us'] }),
    presences: z.array(PresenceData),
  })
  .meta({ id: 'ChatPresences' });
export type ChatPresences = z.infer<typeof ChatPresences>;

/**
 * `presence` of the session info: the peer product's clients require an object there. This build
 * does not track the account's own presence, so it is empty; `presence` would be the one last set.
 */
export const SessionPresence = z
  .object({ presence: PresenceStatus.optional().meta({ description: 'Not tracked by this build: always absent' }) })
  .meta({ id: 'SessionPresence' });
export type SessionPresence = z.infer<typeof SessionPresence>;

/** The presences that are about one chat: they need `chatId`. */
const CHAT_PRESENCES: readonly PresenceStatus[] = ['typing', 'recording', 'paused'];

/** `POST /api/{session}/presence`: the account's own presence, everywhere or in one chat. */
export const SessionPresenceRequest = z
  .object({
    chatId: ChatId.optional().meta({
      description: 'The chat (contact or group): required for typing, recording and paused; leave it out for online and offline',
    }),
    presence: PresenceStatus,
  })
  .refine((request) => request.chatId !== undefined || !CHAT_PRESENCES.includes(request.presence), {
    path: ['chatId'],
    message: `is required for presence ${CHAT_PRESENCES.join(', ')}`,
  })
  .meta({ id: 'SessionPresenceRequest' });
export type SessionPresenceRequest = z.infer<typeof SessionPresenceRequest>;

export const PresenceChatArgs = z.object({ chatId: ChatId });
