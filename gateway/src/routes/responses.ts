import { ErrorBody } from '@switchboard/protocol';
import type { FastifySchema } from 'fastify';
import { z } from 'zod';
import { MAX_PARAM_LENGTH } from '../http/errors.js';

/** The error answers every authenticated route may give, for the OpenAPI document. */
export const commonErrors = {
  400: ErrorBody.meta({ description: 'Invalid input; `details` lists each field and reason' }),
  401: ErrorBody,
  /** The key may not use this route or this session (gateway/src/auth/access.ts). */
  403: ErrorBody,
  404: ErrorBody,
} as const;

export const sessionErrors = { ...commonErrors, 422: ErrorBody } as const;

/** A media conversion refused while the gateway's conversion queue, or the key's share of it, is full (conversions/conversion-queue.ts). */
export const conversionRefused = ErrorBody.meta({
  description:
    'Too many media conversions at once, in this gateway or for this key; `Retry-After` says when to try again, `details.limit` which bound it was',
});

export const NoBody = z.undefined();

/**
 * The errors fastify and Node answer before a route runs (http/errors.ts), added to every
 * operation of the OpenAPI document where they can happen.
 */
export function withFrameworkErrors(url: string, schema: FastifySchema & { hide?: boolean }): FastifySchema {
  if (schema.hide || !schema.response) return schema;
  return {
    ...schema,
    response: {
      ...(url.includes(':') ? { 414: ErrorBody.meta({ description: `A path parameter is longer than ${MAX_PARAM_LENGTH} characters` }) } : {}),
      ...(schema.body
        ? {
            413: ErrorBody.meta({ description: 'The body is larger than the route accepts; `details.limit` is the limit in bytes' }),
            415: ErrorBody.meta({ description: 'The body is not application/json' }),
          }
        : {}),
      431: ErrorBody.meta({ description: 'The request line (URL and query) and headers are larger than 16 KiB together' }),
      ...schema.response,
    },
  };
}
