import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRIES, MAX_RETRY_DELAY_SECONDS } from '@switchboard/protocol';
import { honourRetryAfter, parseRetryAfter, resolveRetries, retryDelayMs } from '../../src/webhooks/retry-schedule.js';
import { retryAfterFailure } from '../../src/webhooks/http-delivery.js';
import { statusFailure } from '../../src/webhooks/delivery-failure.js';

type Policy = 'constant' | 'linear' | 'exponential';
const waits = (policy: Policy, random: () => number) => [1, 2, 3, 4].map((n) => retryDelayMs({ policy, delaySeconds: 2 }, n, random));
const exact = (policy: Policy) => [1, 2, 3, 4].map((n) => retryDelayMs({ policy, delaySeconds: 2, jitter: false }, n));
/** The middle of the jitter range: no move. */
const middle = () => 0.5;

describe('6.1 retry policies, base delay 2 seconds', () => {
  it('constant waits the same each time: 2, 2, 2, 2', () => {
    expect(exact('constant')).toEqual([2000, 2000, 2000, 2000]);
    expect(waits('constant', middle)).toEqual([2000, 2000, 2000, 2000]);
  });

  it('linear grows by the base each time: 2, 4, 6, 8', () => {
    expect(exact('linear')).toEqual([2000, 4000, 6000, 8000]);
  });

  it('exponential doubles: 2, 4, 8, 16', () => {
    expect(exact('exponential')).toEqual([2000, 4000, 8000, 16000]);
    expect(waits('exponential', middle)).toEqual([2000, 4000, 8000, 16000]);
  });

  it.each<Policy>(['constant', 'linear', 'exponential'])('%s waits move by at most 20 percent either way, both ways over many draws', (policy) => {
    const nominal = exact(policy);
    let shorter = 0;
    let longer = 0;
    for (let i = 0; i < 500; i++) {
      waits(policy, Math.random).forEach((ms, n) => {
        expect(ms).toBeGreaterThanOrEqual(Math.floor(0.8 * nominal[n]!));
        expect(ms).toBeLessThanOrEqual(Math.ceil(1.2 * nominal[n]!));
        if (ms < nominal[n]!) shorter++;
        if (ms > nominal[n]!) longer++;
      });
    }
    // Both directions are drawn: a one-sided jitter would leave one of these at 0.
    expect(shorter).toBeGreaterThan(100);
    expect(longer).toBeGreaterThan(100);
    expect(waits(policy, () => 0)).toEqual(nominal.map((ms) => Math.round(0.8 * ms)));
  });

  it('no wait is longer than MAX_RETRY_DELAY_SECONDS, nor than the webhook’s maxDelaySeconds', () => {
    const cap = MAX_RETRY_DELAY_SECONDS * 1000;
    expect(retryDelayMs({ policy: 'exponential', delaySeconds: 2 }, 40, () => 0.99)).toBe(cap);
    expect(retryDelayMs({ policy: 'linear', delaySeconds: 3600 }, 5)).toBe(cap);
    expect(retryDelayMs({ policy: 'constant', delaySeconds: 3600, jitter: false }, 1)).toBe(cap);
    expect(retryDelayMs({ policy: 'exponential', delaySeconds: 2, maxDelaySeconds: 10 }, 10, () => 0.99)).toBe(10_000);
  });

  it('sub-second bases give millisecond waits', () => {
    expect(retryDelayMs({ policy: 'exponential', delaySeconds: 0.05 }, 3, middle)).toBe(200);
    expect(retryDelayMs({ policy: 'linear', delaySeconds: 0 }, 3)).toBe(0);
  });
});

describe('6.1 retry defaults', () => {
  const defaults = { ...DEFAULT_RETRIES, maxDelaySeconds: MAX_RETRY_DELAY_SECONDS, jitter: true };

  it('fills unset fields from DEFAULT_RETRIES', () => {
    expect(resolveRetries(undefined)).toEqual(defaults);
    expect(resolveRetries(null)).toEqual(defaults);
    expect(resolveRetries({ attempts: 3 })).toEqual({ ...defaults, attempts: 3 });
  });

  it('keeps every field that is set', () => {
    const set = { policy: 'linear', delaySeconds: 0.5, attempts: 1, maxDelaySeconds: 30, jitter: false } as const;
    expect(resolveRetries(set)).toEqual(set);
  });
});

describe('Retry-After (RFC 9110 10.2.3)', () => {
  const now = Date.parse('2026-11-29T12:00:00Z');

  it('reads delay-seconds and HTTP dates, and nothing else', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Sun, 29 Nov 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sun, 29 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(['5', '9'], now)).toBe(5000);
    for (const bad of [undefined, '', '-5', '1.5', 'soon', '2026-11-29', 'Sun, nonsense']) expect(parseRetryAfter(bad, now)).toBeUndefined();
  });

  it('holds what is asked to an hour', () => {
    expect(parseRetryAfter('999999', now)).toBe(MAX_RETRY_DELAY_SECONDS * 1000);
    expect(parseRetryAfter('Mon, 29 Nov 2027 12:00:00 GMT', now)).toBe(MAX_RETRY_DELAY_SECONDS * 1000);
  });

  it('only 429 and 503 carry it; a 410 is gone', () => {
    expect(statusFailure(429, 5000)).toEqual({ reason: 'http_4xx', detail: 'HTTP 429', retryAfterMs: 5000 });
    expect(statusFailure(503, 5000)).toEqual({ reason: 'http_5xx', detail: 'HTTP 503', retryAfterMs: 5000 });
    expect(statusFailure(500, 5000)).toEqual({ reason: 'http_5xx', detail: 'HTTP 500' });
    expect(statusFailure(410)).toEqual({ reason: 'gone', detail: 'HTTP 410', gone: true });
  });

  it('waits what the receiver asks, never less than the schedule, never more than maxDelaySeconds', () => {
    expect(honourRetryAfter(2000, 30_000, { maxDelaySeconds: 3600 })).toBe(30_000);
    expect(honourRetryAfter(2000, 500, { maxDelaySeconds: 3600 })).toBe(2000);
    expect(honourRetryAfter(2000, 3_600_000, { maxDelaySeconds: 60 })).toBe(60_000);
    expect(honourRetryAfter(2000, undefined, { maxDelaySeconds: 60 })).toBe(2000);
  });

  it('a throttled attempt counts as one attempt; a 410 ends the retries at once', () => {
    const retries = { policy: 'constant', delaySeconds: 1, attempts: 3, jitter: false } as const;
    expect(retryAfterFailure(retries, 1, statusFailure(429, 10_000))).toBe(10_000);
    expect(retryAfterFailure(retries, 3, statusFailure(429, 10_000))).toBeNull();
    expect(retryAfterFailure(retries, 1, statusFailure(410))).toBeNull();
  });
});
