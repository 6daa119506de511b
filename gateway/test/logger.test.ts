import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';

describe('log lines never show a secret', () => {
  it('censors the secrets of a session config or a resource spec logged whole', () => {
    const lines: string[] = [];
    const log = createLogger('info', { write: (line: string) => lines.push(line) });
    const webhooks = [
      {
        url: 'https://user:url-passw0rd@hooks.example/in?token=url-t0ken',
        events: ['message'],
        hmac: { key: 'hmac-s3cret' },
        customHeaders: [{ name: 'Authorization', value: 'Bearer header-s3cret' }],
      },
    ];
    log.info({ config: { webhooks } }, 'session config');
    log.info({ spec: { config: { webhooks } } }, 'resource');
    log.info({ target: webhooks[0] }, 'webhook');
    expect(lines).toHaveLength(3);
    for (const secret of ['url-passw0rd', 'url-t0ken', 'hmac-s3cret', 'header-s3cret']) {
      expect(lines.join('\n')).not.toContain(secret);
    }
  });
});
