import { DEFAULT_RETRIES, MAX_RETRY_DELAY_SECONDS, RETRY_JITTER, type RetriesConfig, type RetryPolicy } from '@switchboard/protocol';

/** A webhook's retry settings with every default filled in. */
export interface RetrySchedule {
  readonly policy: RetryPolicy;
  readonly delaySeconds: number;
  /** Total delivery attempts, the first one included. */
  readonly attempts: number;
  /** The longest wait, a receiver's Retry-After included. */
  readonly maxDelaySeconds: number;
  /** Whether waits are moved by up to RETRY_JITTER either way. */
  readonly jitter: boolean;
}

export function resolveRetries(cfg?: RetriesConfig | null): RetrySchedule {
  return {
    policy: cfg?.policy ?? DEFAULT_RETRIES.policy,
    delaySeconds: cfg?.delaySeconds ?? DEFAULT_RETRIES.delaySeconds,
    attempts: cfg?.attempts ?? DEFAULT_RETRIES.attempts,
    maxDelaySeconds: Math.min(cfg?.maxDelaySeconds ?? MAX_RETRY_DELAY_SECONDS, MAX_RETRY_DELAY_SECONDS),
    jitter: cfg?.jitter ?? true,
  };
}

/**
 * The wait in milliseconds after the `failedAttempt`-th failed attempt (1 for the first), spec 6.1:
 * constant 2,2,2,2; linear 2,4,6,8; exponential 2,4,8,16; each moved by up to 20 percent either
 * way (as the peer does) unless `jitter` is false, so receivers that failed together are not
 * retried together; then capped at `maxDelaySeconds`.
 */
export function retryDelayMs(
  retries: Pick<RetrySchedule, 'policy' | 'delaySeconds'> & Partial<Pick<RetrySchedule, 'maxDelaySeconds' | 'jitter'>>,
  failedAttempt: number,
  random: () => number = Math.random,
): number {
  const base = retries.delaySeconds;
  const n = Math.max(1, failedAttempt);
  let seconds: number;
  switch (retries.policy) {
    case 'constant':
      seconds = base;
      break;
    case 'linear':
      seconds = base * n;
      break;
    case 'exponential':
      seconds = base * 2 ** (n - 1);
      break;
  }
  if (retries.jitter !== false) seconds *= 1 + RETRY_JITTER * (2 * random() - 1);
  const cap = Math.min(retries.maxDelaySeconds ?? MAX_RETRY_DELAY_SECONDS, MAX_RETRY_DELAY_SECONDS);
  return Math.round(Math.min(seconds, cap) * 1000);
}

/**
 * The wait before the next attempt when the receiver asked for one (`Retry-After` on a 429 or a
 * 503): what it asked, but never less than the schedule's own wait nor more than the webhook's
 * `maxDelaySeconds`. Such an answer is an attempt like any other failure, so a receiver that keeps
 * asking cannot hold its queue for ever.
 */
export function honourRetryAfter(scheduledMs: number, askedMs: number | undefined, schedule: Pick<RetrySchedule, 'maxDelaySeconds'>): number {
  if (askedMs === undefined) return scheduledMs;
  return Math.max(scheduledMs, Math.min(askedMs, schedule.maxDelaySeconds * 1000));
}

/**
 * A `Retry-After` header as milliseconds from `now`: delay-seconds or an HTTP date (RFC 9110
 * 10.2.3). Anything else, or a date already past, is no request to wait (undefined, or 0).
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Math.min(Number(text), MAX_RETRY_DELAY_SECONDS) * 1000;
  // An HTTP date always names its weekday; Date.parse alone would take "5" or "2020" as dates.
  if (!/^[A-Za-z]{3},? /.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.min(Math.max(0, at - now), MAX_RETRY_DELAY_SECONDS * 1000);
}
