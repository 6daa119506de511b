import { createHmac } from 'node:crypto';

/** Request headers of spec 6.1. */
export const HEADER_REQUEST_ID = 'X-Webhook-Request-Id';
export const HEADER_TIMESTAMP = 'X-Webhook-Timestamp';
export const HEADER_HMAC = 'X-Webhook-Hmac';
export const HEADER_HMAC_ALGORITHM = 'X-Webhook-Hmac-Algorithm';

/** The one algorithm spec part 5 names. */
export const HMAC_ALGORITHM = 'sha512';

/**
 * Hex HMAC over the exact body bytes sent: the receiver recomputes it over the raw body it read,
 * so signing a re-serialized object instead would break its check.
 */
export function signBody(body: Uint8Array, key: string): string {
  return createHmac(HMAC_ALGORITHM, key).update(body).digest('hex');
}
