import { describe, expect, it } from 'vitest';
import { DEFAULT_SILENCE_TIMEOUT_MS, isSilenceReason, silenceReason, silenceTimeoutFromEnv } from '../src/index.js';

describe('SWITCHBOARD_SILENCE_TIMEOUT_MS: the bound within which a silent connection is reconnected', () => {
  it('is 60 s when unset, else the whole number of milliseconds given, from 1000 to 120000', () => {
    expect(silenceTimeoutFromEnv({})).toBe(DEFAULT_SILENCE_TIMEOUT_MS);
    expect(DEFAULT_SILENCE_TIMEOUT_MS).toBe(60_000);
    expect(silenceTimeoutFromEnv({ SWITCHBOARD_SILENCE_TIMEOUT_MS: '1000' })).toBe(1_000);
    expect(silenceTimeoutFromEnv({ SWITCHBOARD_SILENCE_TIMEOUT_MS: '120000' })).toBe(120_000);
  });

  it('refuses anything else, naming the variable, the range and the value', () => {
    for (const wrong of ['999', '120001', '2.5', '2s', '-5000', ' 5000']) {
      expect(() => silenceTimeoutFromEnv({ SWITCHBOARD_SILENCE_TIMEOUT_MS: wrong }), wrong).toThrow(
        `SWITCHBOARD_SILENCE_TIMEOUT_MS: must be a whole number of milliseconds from 1000 to 120000, got ${JSON.stringify(wrong)}`,
      );
    }
  });
});

describe("a silence's reason", () => {
  it("names the timeout and is told apart from other reasons by its 'silent:' start", () => {
    expect(silenceReason(2_000)).toBe('silent: nothing received from the messaging service for 2000 ms; reconnecting');
    expect(isSilenceReason(silenceReason(2_000))).toBe(true);
    for (const other of [undefined, null, 42, 'could not connect', 'client_outdated: silent: no']) expect(isSilenceReason(other)).toBe(false);
  });
});
