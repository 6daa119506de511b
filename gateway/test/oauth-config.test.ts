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
    });
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
