import { describe, expect, it } from 'vitest';
import { DEFAULT_WEBJS_OPTIONS, webjsOptionsFromEnv } from '../../src/index.js';

describe('WEBJS options from the environment', () => {
  it('a pinned web version is its version and the URL of its page, both or neither', () => {
    const env = { SWITCHBOARD_WEBJS_WEB_VERSION: '2.3000.1', SWITCHBOARD_WEBJS_WEB_VERSION_URL: 'http://mirror.example/{version}.html' };
    expect(webjsOptionsFromEnv(env).webVersion).toEqual({ version: '2.3000.1', url: 'http://mirror.example/{version}.html' });
    expect(webjsOptionsFromEnv({}).webVersion).toBeUndefined();
    expect(() => webjsOptionsFromEnv({ SWITCHBOARD_WEBJS_WEB_VERSION: '2.3000.1' })).toThrow(/go together/);
    expect(() => webjsOptionsFromEnv({ SWITCHBOARD_WEBJS_WEB_VERSION_URL: 'http://x/{version}' })).toThrow(/go together/);
    expect(() => webjsOptionsFromEnv({ ...env, SWITCHBOARD_WEBJS_WEB_VERSION_URL: 'file:///etc/passwd' })).toThrow(/http\(s\) URL/);
  });

  it('extra Chromium flags are appended to ours, and only flags are taken', () => {
    const options = webjsOptionsFromEnv({ SWITCHBOARD_CHROMIUM_EXTRA_FLAGS: ' --proxy-server=http://proxy:3128  --lang=en ' });
    expect(options.browserFlags).toEqual([...DEFAULT_WEBJS_OPTIONS.browserFlags, '--proxy-server=http://proxy:3128', '--lang=en']);
    expect(() => webjsOptionsFromEnv({ SWITCHBOARD_CHROMIUM_EXTRA_FLAGS: '--lang=en rm' })).toThrow(/not rm/);
  });
});
