import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../../src/config.js';

describe('metrics and /ws settings from the environment', () => {
  it('defaults to a keyed /metrics, a 30 s ping and an 8 MiB cap per client', () => {
    expect(readConfig({})).toMatchObject({ metricsPublic: false, wsPingMs: 30_000, wsMaxBufferedBytes: 8 * 1024 * 1024 });
  });

  it('reads SWITCHBOARD_METRICS_PUBLIC, SWITCHBOARD_WS_PING_SECONDS and SWITCHBOARD_WS_MAX_BUFFERED_BYTES', () => {
    const config = readConfig({
      SWITCHBOARD_METRICS_PUBLIC: 'true',
      SWITCHBOARD_WS_PING_SECONDS: '5',
      SWITCHBOARD_WS_MAX_BUFFERED_BYTES: '1048576',
    });
    expect(config).toMatchObject({ metricsPublic: true, wsPingMs: 5_000, wsMaxBufferedBytes: 1_048_576 });
  });

  it('refuses a bad value, naming the variable', () => {
    expect(() => readConfig({ SWITCHBOARD_WS_PING_SECONDS: '0' })).toThrow(ConfigError);
    expect(() => readConfig({ SWITCHBOARD_WS_PING_SECONDS: 'often' })).toThrow(/SWITCHBOARD_WS_PING_SECONDS/);
    expect(() => readConfig({ SWITCHBOARD_METRICS_PUBLIC: 'yes' })).toThrow(/SWITCHBOARD_METRICS_PUBLIC/);
  });
});
