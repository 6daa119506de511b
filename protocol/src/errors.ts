import { z } from 'zod';

/**
 * Our error contract (the spec leaves errors open): one body shape for every 4xx and 5xx.
 * 400 invalid input, 401 missing or wrong key, 403 key not allowed here, 404 unknown session,
 * 409 session already exists, 413 body too large, 422 session not in a needed status or an
 * operation the engine does not support.
 */
export const ErrorBody = z
  .object({
    statusCode: z.number().int(),
    error: z.string(),
    message: z.string(),
    details: z.unknown().optional(),
  })
  .meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof ErrorBody>;

/** `details` of a 400: one entry per invalid field. */
export const FieldIssue = z.object({ path: z.string(), reason: z.string() });
export type FieldIssue = z.infer<typeof FieldIssue>;
