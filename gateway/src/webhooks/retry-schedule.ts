import { DEFAULT_RETRIES, MAX_RETRY_DELAY_SECONDS, type RetriesConfig, type RetryPolicy } from '@switchboard/protocol';

/** A webhook's retry settings with every default filled in. */
export interface RetrySchedule {
  readonly policy: RetryPolicy;
  readonly delaySeconds: number;
  /** Total delivery attempts, the first one included. */
  readonly attempts: number;
}

/** Exponential waits grow by up to this fraction, so receivers that failed together do not retry together. */
const EXPONENTIAL_JITTER = 0.2;

export function resolveRetries(cfg?: RetriesConfig | null): RetrySchedule {
  return {
    policy: cfg?.policy ?? DEFAULT_RETRIES.policy,
    delaySeconds: cfg?.delaySeconds ?? DEFAULT_RETRIES.delaySeconds,
    attempts: cfg?.attempts ?? DEFAULT_RETRIES.attempts,
  };
}

/**
 * The wait in milliseconds after the `failedAttempt`-th failed attempt (1 for the first), spec 6.1:
 * constant 2,2,2,2; linear 2,4,6,8; exponential 2,4,8,16 stretched by 0-20 percent jitter. The
 * jitter only lengthens a wait, so a receiver never sees a retry earlier than the nominal one.
 */
export function retryDelayMs(
  retries: Pick<RetrySchedule, 'policy' | 'delaySeconds'>,
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
      seconds = base * 2 ** (n - 1) * (1 + EXPONENTIAL_JITTER * random());
      break;
  }
  return Math.round(Math.min(seconds, MAX_RETRY_DELAY_SECONDS) * 1000);
}
