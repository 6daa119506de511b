import { ErrorBody } from '@switchboard/protocol';
import { z } from 'zod';

/** The error answers every authenticated route may give, for the OpenAPI document. */
export const commonErrors = {
  400: ErrorBody.meta({ description: 'Invalid input; `details` lists each field and reason' }),
  401: ErrorBody,
  /** The key may not use this route or this session (gateway/src/auth/access.ts). */
  403: ErrorBody,
  404: ErrorBody,
} as const;

export const sessionErrors = { ...commonErrors, 422: ErrorBody } as const;

export const NoBody = z.undefined();
