import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRIES, MAX_RETRY_DELAY_SECONDS } from '@switchboard/protocol';
import { resolveRetries, retryDelayMs } from '../../src/webhooks/retry-schedule.js';

const waits = (policy: 'constant' | 'linear' | 'exponential', random: () => number) =>
  [1, 2, 3, 4].map((n) => retryDelayMs({ policy, delaySeconds: 2 }, n, random));

describe('6.1 retry policies, base delay 2 seconds', () => {
  it('constant waits the same each time: 2, 2, 2, 2', () => {
    expect(waits('constant', Math.random)).toEqual([2000, 2000, 2000, 2000]);
  });

  it('linear grows by the base each time: 2, 4, 6, 8', () => {
    expect(waits('linear', Math.random)).toEqual([2000, 4000, 6000, 8000]);
  });

  it('exponential doubles: 2, 4, 8, 16 without jitter', () => {
    expect(waits('exponential', () => 0)).toEqual([2000, 4000, 8000, 16000]);
  });

  it('exponential jitter only lengthens a wait, by at most 20 percent', () => {
    const nominal = [2000, 4000, 8000, 16000];
    for (let i = 0; i < 200; i++) {
      waits('exponential', Math.random).forEach((ms, n) => {
        expect(ms).toBeGreaterThanOrEqual(nominal[n]!);
        expect(ms).toBeLessThanOrEqual(1.2 * nominal[n]!);
      });
    }
    expect(waits('exponential', () => 0.5)).toEqual([2200, 4400, 8800, 17600]);
  });

  it('no wait is longer than MAX_RETRY_DELAY_SECONDS', () => {
    const cap = MAX_RETRY_DELAY_SECONDS * 1000;
    expect(retryDelayMs({ policy: 'exponential', delaySeconds: 2 }, 40, () => 0.99)).toBe(cap);
    expect(retryDelayMs({ policy: 'linear', delaySeconds: 3600 }, 5)).toBe(cap);
    expect(retryDelayMs({ policy: 'constant', delaySeconds: 3600 }, 1)).toBe(cap);
  });

  it('sub-second bases give millisecond waits', () => {
    expect(retryDelayMs({ policy: 'exponential', delaySeconds: 0.05 }, 3, () => 0)).toBe(200);
    expect(retryDelayMs({ policy: 'linear', delaySeconds: 0 }, 3)).toBe(0);
  });
});

describe('6.1 retry defaults', () => {
  it('fills unset fields from DEFAULT_RETRIES', () => {
    expect(resolveRetries(undefined)).toEqual(DEFAULT_RETRIES);
    expect(resolveRetries(null)).toEqual(DEFAULT_RETRIES);
    expect(resolveRetries({ attempts: 3 })).toEqual({ ...DEFAULT_RETRIES, attempts: 3 });
  });

  it('keeps every field that is set', () => {
    const set = { policy: 'linear', delaySeconds: 0.5, attempts: 1 } as const;
    expect(resolveRetries(set)).toEqual(set);
  });
});
