import { z } from 'zod';

/** Session statuses of spec part 3. */
export const SessionStatus = z
  .enum(['STOPPED', 'STARTING', 'SCAN_QR_CODE', 'PASSKEY_REQUIRED', 'PASSKEY_CONFIRMATION_REQUIRED', 'WORKING', 'FAILED'])
  .meta({ id: 'SessionStatus' });
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
