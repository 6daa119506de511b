/** Exponential backoff: `baseMs`, doubled on each failure, capped at `maxMs`. */
export interface BackoffOptions {
  readonly baseMs: number;
  readonly maxMs: number;
}

export function backoffDelay(failures: number, { baseMs, maxMs }: BackoffOptions): number {
  // The exponent is capped before it is applied so that a key failing for days cannot overflow.
  return Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(failures - 1, 0), 30));
}
