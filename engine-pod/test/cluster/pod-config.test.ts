import { describe, expect, it } from 'vitest';
import { ConfigError, readPodConfig } from '../../src/pod/config.js';

const base = { SWITCHBOARD_SESSION: 'default', SWITCHBOARD_NATS_URL: 'nats://nats:4222' };

describe('engine pod configuration', () => {
  it('needs only the session and NATS; everything else has a default', () => {
    const config = readPodConfig(base);
    expect(config).toMatchObject({
      session: 'default',
      engine: 'SANDBOX',
      natsServers: ['nats://nats:4222'],
      metadata: {},
      healthPort: 8080,
      logLevel: 'info',
      sandboxQrRenewMs: undefined,
    });
    expect(config.podName.length).toBeGreaterThan(0);
  });

  it('reads every variable', () => {
    const config = readPodConfig({
      ...base,
      SWITCHBOARD_NATS_URL: 'nats://a:4222, nats://b:4222',
      SWITCHBOARD_POD_NAME: 'engine-default',
      SWITCHBOARD_POD_UID: '6f1c2a9e-0d4b-4c5e-9a7f-2b8d3e1f0a11',
      SWITCHBOARD_METADATA: '{"team":"sales"}',
      SWITCHBOARD_HEALTH_PORT: '9000',
      SWITCHBOARD_LOG_LEVEL: 'debug',
      SWITCHBOARD_SANDBOX_QR_RENEW_MS: '50',
    });
    expect(config).toMatchObject({
      natsServers: ['nats://a:4222', 'nats://b:4222'],
      podName: 'engine-default',
      podUid: '6f1c2a9e-0d4b-4c5e-9a7f-2b8d3e1f0a11',
      metadata: { team: 'sales' },
      healthPort: 9000,
      logLevel: 'debug',
      sandboxQrRenewMs: 50,
    });
  });

  it('reads the apps (spec 2.3) with their defaults; none by default', () => {
    expect(readPodConfig(base).apps).toEqual([]);
    const config = readPodConfig({ ...base, SWITCHBOARD_APPS: '[{"app":"calls","config":{"dm":{"reject":true,"message":"busy"}}}]' });
    expect(config.apps).toEqual([{ app: 'calls', enabled: true, config: { dm: { reject: true, message: 'busy' }, group: { reject: true } } }]);
    expect(() => readPodConfig({ ...base, SWITCHBOARD_APPS: '[{"app":"nope"}]' })).toThrow(/SWITCHBOARD_APPS: 0\.app/);
    expect(() => readPodConfig({ ...base, SWITCHBOARD_APPS: 'calls' })).toThrow(/SWITCHBOARD_APPS: must be a JSON array of apps/);
  });

  it('reads the engine settings of the session config (proxy, ignore...), none by default, refusing what the protocol refuses', () => {
    expect(readPodConfig(base).settings).toEqual({});
    const settings = { proxy: { server: 'proxy:3128' }, ignore: { groups: true } };
    expect(readPodConfig({ ...base, SWITCHBOARD_ENGINE_SETTINGS: JSON.stringify(settings) }).settings).toEqual(settings);
    expect(() => readPodConfig({ ...base, SWITCHBOARD_ENGINE_SETTINGS: '{"proxy":{"server":"no port"}}' })).toThrow(/SWITCHBOARD_ENGINE_SETTINGS/);
  });

  it("reads the proxy's password from its own variable (the operator fills it from a Secret) into the proxy settings", () => {
    const settings = JSON.stringify({ proxy: { server: 'proxy:3128', username: 'u' } });
    const config = readPodConfig({ ...base, SWITCHBOARD_ENGINE_SETTINGS: settings, SWITCHBOARD_PROXY_PASSWORD: 's3cret' });
    expect(config.settings).toEqual({ proxy: { server: 'proxy:3128', username: 'u', password: 's3cret' } });
    const tooLong = 'x'.repeat(257);
    const read = () => readPodConfig({ ...base, SWITCHBOARD_ENGINE_SETTINGS: settings, SWITCHBOARD_PROXY_PASSWORD: tooLong });
    expect(read).toThrow(/SWITCHBOARD_PROXY_PASSWORD/);
    expect(read).not.toThrow(tooLong);
  });

  it('names every wrong variable at once', () => {
    const read = () =>
      readPodConfig({
        SWITCHBOARD_SESSION: 'bad name',
        SWITCHBOARD_ENGINE: 'NOPE',
        SWITCHBOARD_METADATA: '{"n":1}',
        SWITCHBOARD_HEALTH_PORT: '70000',
        SWITCHBOARD_LOG_LEVEL: 'loud',
      });
    expect(read).toThrow(ConfigError);
    const named = ['SWITCHBOARD_SESSION', 'SWITCHBOARD_ENGINE', 'SWITCHBOARD_NATS_URL: required', 'SWITCHBOARD_METADATA: n:'];
    for (const name of [...named, 'SWITCHBOARD_HEALTH_PORT', 'SWITCHBOARD_LOG_LEVEL']) {
      expect(read).toThrow(name);
    }
  });

  it('starts media.url with SWITCHBOARD_BASE_URL (default http://localhost:3000), refusing what is not an http(s) URL', () => {
    expect(readPodConfig(base).baseUrl).toBe('http://localhost:3000');
    expect(readPodConfig({ ...base, SWITCHBOARD_BASE_URL: 'https://api.example.com/wa/' }).baseUrl).toBe('https://api.example.com/wa');
    expect(() => readPodConfig({ ...base, SWITCHBOARD_BASE_URL: 'api.example.com' })).toThrow(/SWITCHBOARD_BASE_URL: must be/);
  });

  it('holds downloads to SWITCHBOARD_OUTBOUND_DENY and _ALLOW over the built-in rules, refusing a bad entry by name', () => {
    expect(readPodConfig(base).outbound.refusalOf('127.0.0.1')).toBeNull();
    expect(readPodConfig(base).outbound.refusalOf('169.254.169.254')).toMatchObject({ source: 'built-in' });
    const outbound = readPodConfig({ ...base, SWITCHBOARD_OUTBOUND_DENY: '127.0.0.0/8,::1', SWITCHBOARD_OUTBOUND_ALLOW: '127.0.0.2' }).outbound;
    expect(outbound.refusalOf('127.0.0.1')).toMatchObject({ source: 'SWITCHBOARD_OUTBOUND_DENY' });
    expect(outbound.refusalOf('127.0.0.2')).toBeNull();
    expect(() => readPodConfig({ ...base, SWITCHBOARD_OUTBOUND_ALLOW: '10.0.0.0/99' })).toThrow(/SWITCHBOARD_OUTBOUND_ALLOW: "10.0.0.0\/99"/);
  });

  it('keeps received files up to SWITCHBOARD_MEDIA_MAX_BYTES (default 100 MiB), refusing what is not a positive whole number', () => {
    expect(readPodConfig(base).mediaMaxBytes).toBe(100 * 1024 * 1024);
    expect(readPodConfig({ ...base, SWITCHBOARD_MEDIA_MAX_BYTES: '1048576' }).mediaMaxBytes).toBe(1_048_576);
    for (const wrong of ['0', '-1', '1.5', '1e3x', 'lots']) {
      expect(() => readPodConfig({ ...base, SWITCHBOARD_MEDIA_MAX_BYTES: wrong }), wrong).toThrow(
        /SWITCHBOARD_MEDIA_MAX_BYTES: must be a whole number/,
      );
    }
  });

  it('takes every engine of the interface (WPP the last built), and refuses a name outside it, naming the variable', () => {
    expect(readPodConfig({ ...base, SWITCHBOARD_ENGINE: 'WPP' }).engine).toBe('WPP');
    expect(() => readPodConfig({ ...base, SWITCHBOARD_ENGINE: 'TELEGRAM' })).toThrow(/SWITCHBOARD_ENGINE/);
  });

  it('takes NATS credentials as the text of a credentials file, and names the variable, never the value, when it is not one', () => {
    const creds =
      '-----BEGIN NATS USER JWT-----\nx\n------END NATS USER JWT------\n-----BEGIN USER NKEY SEED-----\ny\n------END USER NKEY SEED------\n';
    expect(readPodConfig({ ...base, SWITCHBOARD_NATS_CREDS: creds }).natsCredentials).toBe(creds);
    expect(readPodConfig(base).natsCredentials).toBeUndefined();
    const wrong = () => readPodConfig({ ...base, SWITCHBOARD_NATS_CREDS: 'SUAM-not-a-creds-file' });
    expect(wrong).toThrow(/SWITCHBOARD_NATS_CREDS: must be the text of a NATS credentials file/);
    expect(wrong).not.toThrow(/SUAM-not-a-creds-file/);
  });
});
