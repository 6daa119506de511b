import { describe, expect, it } from 'vitest';
import { globalWebhookFromEnv } from '../../src/webhooks/global-hook.js';

const P = 'SWITCHBOARD_HOOK_';
const env = (vars: Record<string, string>) => Object.fromEntries(Object.entries(vars).map(([k, v]) => [P + k, v]));
const URL = 'https://hooks.example.com/in';

describe('6.1 global webhook from environment variables', () => {
  it('is absent without a URL, whatever else is set', () => {
    expect(globalWebhookFromEnv({})).toBeNull();
    expect(globalWebhookFromEnv(env({ URL: '  ', EVENTS: 'message' }))).toBeNull();
  });

  it('reads every variable', () => {
    const hook = globalWebhookFromEnv(
      env({
        URL,
        EVENTS: 'message, session.status ,message.ack',
        HMAC_KEY: 's3cret',
        RETRIES_POLICY: 'linear',
        RETRIES_DELAY_SECONDS: '0.5',
        RETRIES_ATTEMPTS: '4',
        CUSTOM_HEADERS: 'X-Tenant:acme;Authorization: Bearer a:b:c;',
      }),
    );
    expect(hook).toEqual({
      url: URL,
      events: ['message', 'session.status', 'message.ack'],
      hmac: { key: 's3cret' },
      retries: { policy: 'linear', delaySeconds: 0.5, attempts: 4 },
      customHeaders: [
        { name: 'X-Tenant', value: 'acme' },
        { name: 'Authorization', value: 'Bearer a:b:c' },
      ],
    });
  });

  it('with only a URL, takes every event, no HMAC and the default retries', () => {
    expect(globalWebhookFromEnv(env({ URL }))).toEqual({
      url: URL,
      events: ['*'],
      hmac: null,
      retries: null,
      customHeaders: null,
    });
  });

  it('honours another prefix', () => {
    expect(globalWebhookFromEnv({ SVC_HOOK_URL: URL, SVC_HOOK_EVENTS: '*' }, 'SVC_HOOK_')?.events).toEqual(['*']);
  });

  it('reads the timeout, the longest wait and jitter (docs/events.md, "Receiver signals")', () => {
    const hook = globalWebhookFromEnv(env({ URL, TIMEOUT_SECONDS: '30', RETRIES_MAX_DELAY_SECONDS: '60', RETRIES_JITTER: 'false' }));
    expect(hook).toMatchObject({ timeoutSeconds: 30, retries: { maxDelaySeconds: 60, jitter: false } });
  });

  it('keeps a partial retries config partial, so the rest comes from the defaults', () => {
    expect(globalWebhookFromEnv(env({ URL, RETRIES_ATTEMPTS: '3' }))?.retries).toMatchObject({ attempts: 3 });
  });
});

describe('6.1 global webhook: invalid values name the variable and the reason', () => {
  const rejects = (vars: Record<string, string>, message: RegExp) => expect(() => globalWebhookFromEnv(env({ URL, ...vars }))).toThrow(message);

  it('rejects a URL that is not http or https', () => {
    expect(() => globalWebhookFromEnv(env({ URL: 'ftp://example.com' }))).toThrow(/SWITCHBOARD_HOOK_URL: must be an http/);
  });

  it('rejects an unknown event name, naming it', () => {
    rejects({ EVENTS: 'message,mesage.ack' }, /SWITCHBOARD_HOOK_EVENTS: unknown event name "mesage.ack"/);
  });

  it('rejects an EVENTS list with no names', () => {
    rejects({ EVENTS: ' , ,' }, /SWITCHBOARD_HOOK_EVENTS: must list event names/);
  });

  it('rejects an unknown retry policy', () => {
    rejects({ RETRIES_POLICY: 'fibonacci' }, /SWITCHBOARD_HOOK_RETRIES_POLICY: /);
  });

  it('rejects delays and attempts that are not numbers or out of range', () => {
    rejects({ RETRIES_DELAY_SECONDS: 'soon' }, /SWITCHBOARD_HOOK_RETRIES_DELAY_SECONDS: must be a number/);
    rejects({ RETRIES_DELAY_SECONDS: '-1' }, /SWITCHBOARD_HOOK_RETRIES_DELAY_SECONDS: /);
    rejects({ RETRIES_ATTEMPTS: '2.5' }, /SWITCHBOARD_HOOK_RETRIES_ATTEMPTS: /);
    rejects({ RETRIES_ATTEMPTS: '0' }, /SWITCHBOARD_HOOK_RETRIES_ATTEMPTS: /);
    rejects({ TIMEOUT_SECONDS: '61' }, /SWITCHBOARD_HOOK_TIMEOUT_SECONDS: /);
    rejects({ RETRIES_MAX_DELAY_SECONDS: '0' }, /SWITCHBOARD_HOOK_RETRIES_MAX_DELAY_SECONDS: /);
    rejects({ RETRIES_JITTER: 'maybe' }, /SWITCHBOARD_HOOK_RETRIES_JITTER: must be true or false/);
  });

  it('rejects a custom header entry without a colon, without echoing it', () => {
    expect(() => globalWebhookFromEnv(env({ URL, CUSTOM_HEADERS: 'X-Ok:1;Bearer-topsecret' }))).toThrow(
      /SWITCHBOARD_HOOK_CUSTOM_HEADERS: entry 2 must be "Name:Value"/,
    );
    expect(() => globalWebhookFromEnv(env({ URL, CUSTOM_HEADERS: 'X-Ok:1;Bearer-topsecret' }))).not.toThrow(/topsecret/);
  });

  it('rejects a header name that is not an HTTP token', () => {
    rejects({ CUSTOM_HEADERS: 'X Tenant:acme' }, /SWITCHBOARD_HOOK_CUSTOM_HEADERS \(entry 1 name\): must be a valid HTTP header name/);
  });
});

describe('global webhook: Standard Webhooks signatures', () => {
  const KEY = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const OLD = `whsec_${Buffer.alloc(32, 8).toString('base64')}`;
  const inDays = (days: number) => new Date(Date.now() + days * 24 * 3600 * 1000).toISOString();
  const rejects = (vars: Record<string, string>, message: RegExp) => {
    expect(() => globalWebhookFromEnv(env({ URL, ...vars }))).toThrow(message);
    expect(() => globalWebhookFromEnv(env({ URL, ...vars }))).not.toThrow(/whsec_AQ|whsec_Bw|whsec_CA|s3cret/);
  };

  it('reads the scheme and a previous key with its date', () => {
    const until = inDays(3);
    const hook = globalWebhookFromEnv(
      env({ URL, HMAC_KEY: KEY, HMAC_SCHEME: 'standard-webhooks', HMAC_PREVIOUS_KEY: OLD, HMAC_PREVIOUS_UNTIL: until }),
    );
    expect(hook?.hmac).toEqual({ key: KEY, scheme: 'standard-webhooks', previous: { key: OLD, until } });
  });

  it('takes a previous key whose date has passed (a restart after the rotation), which then signs nothing', () => {
    const hook = globalWebhookFromEnv(
      env({ URL, HMAC_KEY: KEY, HMAC_SCHEME: 'standard-webhooks', HMAC_PREVIOUS_KEY: OLD, HMAC_PREVIOUS_UNTIL: inDays(-1) }),
    );
    expect(hook?.hmac?.previous?.key).toBe(OLD);
  });

  it('rejects a key that is no whsec_ secret, an unknown scheme, and a previous key without the scheme, its date or its form', () => {
    rejects({ HMAC_KEY: 's3cret', HMAC_SCHEME: 'standard-webhooks' }, /SWITCHBOARD_HOOK_HMAC_KEY: must be "whsec_"/);
    rejects({ HMAC_KEY: 'generate', HMAC_SCHEME: 'standard-webhooks' }, /SWITCHBOARD_HOOK_HMAC_KEY: must be "whsec_"/);
    rejects({ HMAC_KEY: KEY, HMAC_SCHEME: 'svix' }, /SWITCHBOARD_HOOK_HMAC_SCHEME: /);
    rejects({ HMAC_SCHEME: 'standard-webhooks' }, /SWITCHBOARD_HOOK_HMAC_KEY: must be set/);
    rejects({ HMAC_KEY: KEY, HMAC_PREVIOUS_KEY: OLD, HMAC_PREVIOUS_UNTIL: inDays(1) }, /SWITCHBOARD_HOOK_HMAC_PREVIOUS_KEY: is for key rotation/);
    rejects({ HMAC_KEY: KEY, HMAC_SCHEME: 'standard-webhooks', HMAC_PREVIOUS_KEY: OLD }, /SWITCHBOARD_HOOK_HMAC_PREVIOUS_UNTIL: /);
    rejects(
      { HMAC_KEY: KEY, HMAC_SCHEME: 'standard-webhooks', HMAC_PREVIOUS_KEY: 's3cret', HMAC_PREVIOUS_UNTIL: inDays(1) },
      /SWITCHBOARD_HOOK_HMAC_PREVIOUS_KEY: must be "whsec_"/,
    );
    rejects(
      { HMAC_KEY: KEY, HMAC_SCHEME: 'standard-webhooks', HMAC_PREVIOUS_KEY: OLD, HMAC_PREVIOUS_UNTIL: 'tomorrow' },
      /SWITCHBOARD_HOOK_HMAC_PREVIOUS_UNTIL: must be an RFC 3339 date-time/,
    );
    rejects(
      { HMAC_KEY: KEY, HMAC_SCHEME: 'standard-webhooks', HMAC_PREVIOUS_KEY: OLD, HMAC_PREVIOUS_UNTIL: inDays(31) },
      /SWITCHBOARD_HOOK_HMAC_PREVIOUS_UNTIL: must be at most 30 days ahead/,
    );
  });
});
