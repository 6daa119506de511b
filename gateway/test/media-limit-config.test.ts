import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../src/config.js';

describe('SWITCHBOARD_MEDIA_MAX_BYTES: the largest received file kept', () => {
  it('is 100 MiB unless set', () => {
    expect(readConfig({}).mediaMaxBytes).toBe(100 * 1024 * 1024);
    expect(readConfig({ SWITCHBOARD_MEDIA_MAX_BYTES: '262144' }).mediaMaxBytes).toBe(262_144);
  });

  it('refuses what is not a positive whole number, naming the variable', () => {
    for (const wrong of ['0', '-1', '1.5', 'lots']) {
      expect(() => readConfig({ SWITCHBOARD_MEDIA_MAX_BYTES: wrong }), wrong).toThrow(ConfigError);
      expect(() => readConfig({ SWITCHBOARD_MEDIA_MAX_BYTES: wrong }), wrong).toThrow(/SWITCHBOARD_MEDIA_MAX_BYTES/);
    }
  });
});
