import { describe, expect, it } from 'vitest';
import { DEFAULT_GOWS_BIN, gowsOptionsFromEnv } from '../../src/engines/gows/options.js';

describe('GOWS options from the environment: each wrong value named before anything starts', () => {
  it('runs engines/gows/bin/switchboard-gows stdio by default, SWITCHBOARD_GOWS_BIN when set, and passes nothing else unless given', () => {
    expect(DEFAULT_GOWS_BIN).toMatch(/\/engines\/gows\/bin\/switchboard-gows$/);
    expect(gowsOptionsFromEnv({})).toEqual({ command: [DEFAULT_GOWS_BIN, 'stdio'], exitTimeoutMs: 10_000 });
    const key = 'ab'.repeat(32);
    expect(
      gowsOptionsFromEnv({
        SWITCHBOARD_GOWS_BIN: '/opt/gows',
        SWITCHBOARD_GOWS_WS_URL: 'ws://127.0.0.1:1/ws/chat',
        SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY: key,
        SWITCHBOARD_GOWS_MEDIA_HOST: '127.0.0.1:2',
        SWITCHBOARD_GOWS_MEDIA_CA: '/tmp/media-ca.pem',
        SWITCHBOARD_GOWS_CLIENT_VERSION: '2.3000.1023456789',
        SWITCHBOARD_SILENCE_TIMEOUT_MS: '5000',
      }),
    ).toEqual({
      command: ['/opt/gows', 'stdio'],
      exitTimeoutMs: 10_000,
      wsUrl: 'ws://127.0.0.1:1/ws/chat',
      certRootPubkey: key,
      mediaHost: '127.0.0.1:2',
      mediaCa: '/tmp/media-ca.pem',
      clientVersion: '2.3000.1023456789',
      silenceTimeoutMs: 5_000,
    });
  });

  it('refuses a silence timeout outside 1000 to 120000 ms, naming the variable', () => {
    expect(() => gowsOptionsFromEnv({ SWITCHBOARD_SILENCE_TIMEOUT_MS: '500' })).toThrow(
      'SWITCHBOARD_SILENCE_TIMEOUT_MS: must be a whole number of milliseconds from 1000 to 120000, got "500"',
    );
  });

  it('refuses a client version with a number above 4294967295, naming the variable', () => {
    expect(() => gowsOptionsFromEnv({ SWITCHBOARD_GOWS_CLIENT_VERSION: '2.4294967296.1' })).toThrow(
      'SWITCHBOARD_GOWS_CLIENT_VERSION: each of its three numbers must be at most 4294967295, got "2.4294967296.1"',
    );
  });

  it('refuses a server address that is not a ws: or wss: URL, and a root key that is not 32 bytes of hex', () => {
    expect(() => gowsOptionsFromEnv({ SWITCHBOARD_GOWS_WS_URL: 'not a url' })).toThrow('SWITCHBOARD_GOWS_WS_URL: not a URL: not a url');
    expect(() => gowsOptionsFromEnv({ SWITCHBOARD_GOWS_WS_URL: 'http://127.0.0.1/ws' })).toThrow(
      'SWITCHBOARD_GOWS_WS_URL: must be a ws: or wss: URL, got http:',
    );
    expect(() => gowsOptionsFromEnv({ SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY: 'abcd' })).toThrow(
      'SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY: must be 64 hex digits (a 32-byte key), got 4 characters',
    );
  });
});
