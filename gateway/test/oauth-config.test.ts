import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../src/config.js';

const OAUTH = {
  SWITCHBOARD_OAUTH_ISSUER: 'https://issuer.example',
  SWITCHBOARD_OAUTH_AUDIENCE: 'switchboard',
  SWITCHBOARD_OAUTH_JWKS_URL: 'https://issuer.example/.well-known/jwks.json',
};

describe('part 5: OAuth 2.0 settings', () => {
  it('are off when none is set', () => {
    expect(readConfig({}).oauth).toBeNull();
  });

  it('are on with all three', () => {
    expect(readConfig(OAUTH).oauth).toEqual({
      issuer: 'https://issuer.example',
      audience: 'switchboard',
      jwksUrl: 'https://issuer.example/.well-known/jwks.json',
      maxTokenAgeSeconds: 86_400,
    });
  });

  it('take the oldest token age accepted, a day by default, and refuse a value out of bounds', () => {
    expect(readConfig({ ...OAUTH, SWITCHBOARD_OAUTH_MAX_TOKEN_AGE_SECONDS: '3600' }).oauth?.maxTokenAgeSeconds).toBe(3600);
    expect(() => readConfig({ ...OAUTH, SWITCHBOARD_OAUTH_MAX_TOKEN_AGE_SECONDS: '5' })).toThrow(/SWITCHBOARD_OAUTH_MAX_TOKEN_AGE_SECONDS/);
  });

  it('refuse some without the others, naming what is missing', () => {
    const read = () => readConfig({ SWITCHBOARD_OAUTH_ISSUER: OAUTH.SWITCHBOARD_OAUTH_ISSUER });
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(/SWITCHBOARD_OAUTH_AUDIENCE[\s\S]*SWITCHBOARD_OAUTH_JWKS_URL/);
  });

  it('refuse a JWKS address that is not http or https', () => {
    expect(() => readConfig({ ...OAUTH, SWITCHBOARD_OAUTH_JWKS_URL: 'file:///etc/jwks.json' })).toThrow(/SWITCHBOARD_OAUTH_JWKS_URL/);
  });
});
