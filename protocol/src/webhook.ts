import { z } from 'zod';
import { EVENT_NAMES, EventName } from './events/names.js';

export const RetryPolicy = z.enum(['constant', 'linear', 'exponential']).meta({ id: 'RetryPolicy' });
export type RetryPolicy = z.infer<typeof RetryPolicy>;

/** Spec 6.1 leaves the defaults open; these are ours (docs/events.md). */
export const DEFAULT_RETRIES = { policy: 'exponential', delaySeconds: 2, attempts: 15 } as const;

/** No single wait between attempts is longer than this, whatever the policy computes or a receiver asks. */
export const MAX_RETRY_DELAY_SECONDS = 3600;

/** Each wait of the schedule is moved by up to this fraction either way, unless `jitter` is false. */
export const RETRY_JITTER = 0.2;

/** Per-attempt timeouts a webhook may set (`timeoutSeconds`), and the one it gets without. */
export const WEBHOOK_TIMEOUT_SECONDS = { min: 1, max: 60, default: 10 } as const;

export const RetriesConfig = z
  .object({
    policy: RetryPolicy.optional(),
    delaySeconds: z.number().min(0).max(3600).optional().meta({ description: 'Base delay in seconds' }),
    attempts: z.number().int().min(1).max(100).optional().meta({ description: 'Total delivery attempts, the first one included' }),
    maxDelaySeconds: z
      .number()
      .min(1)
      .max(MAX_RETRY_DELAY_SECONDS)
      .optional()
      .meta({ description: `Longest wait between two attempts, a receiver's Retry-After included (default and most ${MAX_RETRY_DELAY_SECONDS})` }),
    jitter: z
      .boolean()
      .optional()
      .meta({ description: `Whether each wait is moved by up to ${RETRY_JITTER * 100} % either way (default true)` }),
  })
  .meta({ id: 'RetriesConfiguration' });
export type RetriesConfig = z.infer<typeof RetriesConfig>;

/**
 * How deliveries are signed: `x-webhook-hmac` (the default, as the peer: X-Webhook-Hmac, hex
 * HMAC-SHA512 of the body) or `standard-webhooks` (webhook-id, webhook-timestamp and
 * webhook-signature, as the Standard Webhooks spec says; docs/events.md).
 */
export const HmacScheme = z.enum(['x-webhook-hmac', 'standard-webhooks']).meta({ id: 'HmacScheme' });
export type HmacScheme = z.infer<typeof HmacScheme>;

/** The key a create or PUT sends for the gateway to make a Standard Webhooks secret, shown once in its answer. */
export const GENERATE_HMAC_KEY = 'generate';

/** The longest rotation window: a previous key stays valid at most this long after it is set. */
export const MAX_PREVIOUS_KEY_DAYS = 30;

export const PreviousHmacKey = z
  .object({
    key: z
      .string()
      .min(1)
      .max(1024)
      .meta({ description: 'The secret being replaced (whsec_ form); deliveries carry its signature too until `until`' }),
    until: z.iso.datetime({ offset: true, message: 'must be an RFC 3339 date-time, e.g. 2026-12-01T00:00:00Z' }).meta({
      description: `When the previous key stops being used: in the future, at most ${MAX_PREVIOUS_KEY_DAYS} days ahead`,
    }),
  })
  .meta({ id: 'PreviousHmacKey' });
export type PreviousHmacKey = z.infer<typeof PreviousHmacKey>;

export const HmacConfig = z
  .object({
    key: z.string().min(1).max(1024).meta({
      description:
        'The shared secret. x-webhook-hmac: any string. standard-webhooks: whsec_ and the base64 of 24 to 64 random bytes, or "generate" (create or PUT) for the gateway to make one, shown once in that answer',
    }),
    scheme: HmacScheme.optional().meta({ description: 'How deliveries are signed; absent means x-webhook-hmac' }),
    previous: PreviousHmacKey.nullish().meta({ description: 'standard-webhooks only: the key being rotated out, signed with too until its date' }),
  })
  .meta({ id: 'HmacConfiguration' });
export type HmacConfig = z.infer<typeof HmacConfig>;

/** RFC 7230 token characters: what an HTTP header name may contain. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Headers the gateway sets itself on every delivery: the receiver's host, the body's length,
 * the X-Webhook-* headers a receiver checks (request id, timestamp, signature) and the Standard
 * Webhooks ones (webhook-id, webhook-timestamp, webhook-signature). A config
 * setting one could forge or break what the receiver relies on.
 */
export function isReservedHeaderName(name: string): boolean {
  const lower = name.toLowerCase();
  return lower === 'host' || lower === 'content-length' || lower.startsWith('x-webhook-') || STANDARD_WEBHOOKS_HEADERS.has(lower);
}

/** The Standard Webhooks headers: reserved whatever the scheme, so switching to it never meets a custom one. */
const STANDARD_WEBHOOKS_HEADERS = new Set(['webhook-id', 'webhook-timestamp', 'webhook-signature']);

export const CustomHeader = z
  .object({
    name: z
      .string()
      .max(256, { abort: true })
      .regex(HEADER_NAME, { message: 'must be a valid HTTP header name' })
      .refine((name) => !isReservedHeaderName(name), {
        error: (issue) =>
          `"${String(issue.input)}" is set by the gateway: customHeaders may not set Host, Content-Length, X-Webhook-*, webhook-id, webhook-timestamp or webhook-signature`,
      })
      .meta({
        description:
          'Any header but Host, Content-Length, X-Webhook-*, webhook-id, webhook-timestamp and webhook-signature (any case), which the gateway sets itself',
      }),
    value: z
      .string()
      .max(8192)
      .refine((v) => !/[\r\n\0]/.test(v), { message: 'must not contain CR, LF or NUL' }),
  })
  .meta({ id: 'CustomHeader' });
export type CustomHeader = z.infer<typeof CustomHeader>;

/** What a bad event name is told: every name it could have been. */
export const EVENT_FILTER_RULE = `must be "*" or an event name: ${EVENT_NAMES.join(', ')}`;

/** An event name, or `*` for all of them (webhook `events`, the /ws `events` query). */
export const WebhookEventFilter = z.union([EventName, z.literal('*')], { error: EVENT_FILTER_RULE });

/** Far above any receiver's url, yet a bound: a url is kept in the resource and in Secrets. */
export const WEBHOOK_URL_MAX = 8192;

export const WebhookUrl = z
  .url({ protocol: /^https?$/, message: 'must be an http or https URL' })
  .max(WEBHOOK_URL_MAX, { message: `must be at most ${WEBHOOK_URL_MAX} characters` })
  .meta({ examples: ['https://example.com/hooks/switchboard'] });

export const WebhookTimeoutSeconds = z
  .number()
  .int()
  .min(WEBHOOK_TIMEOUT_SECONDS.min)
  .max(WEBHOOK_TIMEOUT_SECONDS.max)
  .meta({
    description: `Seconds an attempt may take until the answer's status, connecting included (${WEBHOOK_TIMEOUT_SECONDS.min}-${WEBHOOK_TIMEOUT_SECONDS.max}, default ${WEBHOOK_TIMEOUT_SECONDS.default})`,
  });

export const WebhookConfig = z
  .object({
    url: WebhookUrl,
    events: z.array(WebhookEventFilter).min(1).meta({ description: 'Event names to deliver; "*" means all' }),
    hmac: HmacConfig.nullish(),
    retries: RetriesConfig.nullish(),
    customHeaders: z.array(CustomHeader).max(50).nullish(),
    timeoutSeconds: WebhookTimeoutSeconds.nullish(),
  })
  .meta({ id: 'WebhookConfig' });
export type WebhookConfig = z.infer<typeof WebhookConfig>;
