import { z } from 'zod';
import { sendFields } from './chatting.js';

/** Unix seconds, whole: an event's start and end as WhatsApp keeps them. */
const unixSeconds = z.number().int().min(0).max(253_402_300_799);

export const EventMessage = z
  .object({
    name: z
      .string()
      .min(1)
      .max(256)
      .meta({ description: 'Name of the event', examples: ['Nail appointment'] }),
    description: z.string().max(2048).optional().meta({ description: 'Description of the event' }),
    startTime: unixSeconds.meta({ description: 'Start (Unix seconds)', examples: [2063137000] }),
    endTime: unixSeconds.nullish().meta({ description: 'End (Unix seconds); none for an open end' }),
    location: z
      .object({ name: z.string().min(1).max(256).meta({ description: 'Name of the place' }) })
      .optional()
      .meta({ description: 'Where' }),
    extraGuestsAllowed: z.boolean().default(false).meta({ description: 'Whether a guest may bring one more person' }),
  })
  .refine((event) => event.endTime == null || event.endTime >= event.startTime, { path: ['endTime'], message: 'must not be before startTime' })
  .meta({ id: 'EventMessage' });
export type EventMessage = z.infer<typeof EventMessage>;

/** `POST /api/{session}/events`: an event message (an invitation its members answer going, not going or maybe). */
export const EventMessageRequest = z
  .object({ chatId: sendFields.chatId, reply_to: sendFields.reply_to, event: EventMessage })
  .meta({ id: 'EventMessageRequest' });
export type EventMessageRequest = z.infer<typeof EventMessageRequest>;
