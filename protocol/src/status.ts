import { z } from 'zod';
import { SESSION_STATUSES } from './names.js';

/** Session statuses of spec part 3. */
export const SessionStatus = z.enum(SESSION_STATUSES).meta({ id: 'SessionStatus' });
export type SessionStatus = z.infer<typeof SessionStatus>;

export const SessionStatusPoint = z
  .object({
    status: SessionStatus,
    timestamp: z.number().int().meta({ description: 'Milliseconds since the Unix epoch' }),
  })
  .meta({ id: 'SessionStatusPoint' });
export type SessionStatusPoint = z.infer<typeof SessionStatusPoint>;

/** `session.status` carries the recent 3 statuses (spec part 3, rule 6). */
export const RECENT_STATUSES = 3;
