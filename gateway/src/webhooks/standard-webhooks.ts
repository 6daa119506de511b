import { createHmac, randomBytes } from 'node:crypto';
import type { HmacConfig } from '@switchboard/protocol';

/**
 * The Standard Webhooks signature scheme (standardwebhooks.com, symmetric form): the receiver
 * checks `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed by the bytes of a `whsec_`
 * secret, and refuses a timestamp far from its clock (a replay).
 */

export const STANDARD_WEBHOOKS = 'standard-webhooks';

/** Request headers of the spec, in lower case as every delivery header is sent. */
const HEADER_WEBHOOK_ID = 'webhook-id';
const HEADER_WEBHOOK_TIMESTAMP = 'webhook-timestamp';
const HEADER_WEBHOOK_SIGNATURE = 'webhook-signature';

const SECRET_PREFIX = 'whsec_';
/** The spec's bounds on a symmetric secret. */
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;
/** What the gateway makes: 256 bits, as its API keys have. */
const GENERATED_SECRET_BYTES = 32;

export const SECRET_RULE = `must be "${SECRET_PREFIX}" and the base64 of ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} random bytes`;

/**
 * The key bytes of a `whsec_` secret, or null when `secret` is not one: standard base64 with its
 * padding (what the official libraries decode), 24 to 64 bytes.
 */
export function standardSecretBytes(secret: string): Buffer | null {
  if (!secret.startsWith(SECRET_PREFIX)) return null;
  const encoded = secret.slice(SECRET_PREFIX.length);
  const bytes = Buffer.from(encoded, 'base64');
  // Node's decoder skips what is not base64; encoding back shows whether anything was skipped.
  if (bytes.toString('base64') !== encoded) return null;
  return bytes.length >= MIN_SECRET_BYTES && bytes.length <= MAX_SECRET_BYTES ? bytes : null;
}

/** A new random secret in the `whsec_` form. */
export function generateStandardSecret(): string {
  return SECRET_PREFIX + randomBytes(GENERATED_SECRET_BYTES).toString('base64');
}

/** One `v1,<signature>` entry of the webhook-signature header. */
function signature(secret: string, signed: Buffer): string {
  // The API takes only whsec_ keys; one a resource applied with kubectl holds is read as the
  // official libraries read a secret: the prefix dropped, the rest base64.
  const key = standardSecretBytes(secret) ?? Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
}

/**
 * The three headers of one attempt: `eventId` is the same on every retry of an event (the
 * receiver's dedup key), the timestamp that of this attempt (seconds). While a previous key is
 * within its `until`, its signature follows the current one, space-separated, so a receiver that
 * still holds only the old secret verifies too.
 */
export function standardWebhookHeaders(hmac: HmacConfig, eventId: string, body: Uint8Array, nowMs: number): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1000));
  const signed = Buffer.concat([Buffer.from(`${eventId}.${timestamp}.`, 'utf8'), body]);
  let signatures = signature(hmac.key, signed);
  const previous = hmac.previous;
  if (previous && nowMs < Date.parse(previous.until)) signatures += ` ${signature(previous.key, signed)}`;
  return { [HEADER_WEBHOOK_ID]: eventId, [HEADER_WEBHOOK_TIMESTAMP]: timestamp, [HEADER_WEBHOOK_SIGNATURE]: signatures };
}
