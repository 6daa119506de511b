import type { WebhookConfig } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.js';
import { maskSessionConfig, maskUrl, restoreSessionConfigSecrets } from '../../src/sessions/config-secrets.js';

const hook = (url: string, extra: Partial<WebhookConfig> = {}): WebhookConfig => ({ url, events: ['message'], ...extra });

describe('maskUrl', () => {
  it('leaves a url without user info or query as it was sent', () => {
    expect(maskUrl('https://Example.com:443/a/b')).toBe('https://Example.com:443/a/b');
  });

  it('masks user, password and each query value, keeping names and shape', () => {
    expect(maskUrl('https://u:p@h.example/x?a=1&b=&tok#frag')).toBe('https://***:***@h.example/x?a=***&b=***&***#frag');
    expect(maskUrl('https://u@h.example/')).toBe('https://***@h.example/');
  });
});

describe('restoreSessionConfigSecrets', () => {
  const stored = {
    webhooks: [
      hook('https://h.example/one?t=first', {
        hmac: { key: 'k1' },
        customHeaders: [
          { name: 'X-A', value: 'a1' },
          { name: 'x-a', value: 'a2' },
        ],
      }),
      hook('https://h.example/one?t=second', { hmac: { key: 'k2' } }),
    ],
  };

  it('gives back what was stored for a config sent back as it was read', () => {
    expect(restoreSessionConfigSecrets(maskSessionConfig(stored), stored)).toEqual(stored);
  });

  it('pairs webhooks by their masked url, the n-th of a url with the n-th, whatever sits beside them', () => {
    const other = { webhooks: [hook('https://h.example/zero?t=z', { hmac: { key: 'k0' } }), ...stored.webhooks] };
    const [, first, second] = maskSessionConfig(other).webhooks!;
    // The first webhook removed: the others keep their own secrets.
    expect(restoreSessionConfigSecrets({ webhooks: [first!, second!] }, other)).toEqual(stored);
    // Webhooks whose urls look the same masked are told apart by their order only.
    const swapped = restoreSessionConfigSecrets({ webhooks: [{ ...second!, customHeaders: first!.customHeaders }] }, stored);
    expect(swapped.webhooks![0]!.url).toBe('https://h.example/one?t=first');
  });

  it('keeps the n-th header of a name for the n-th header of that name, whatever its case', () => {
    const sent = {
      webhooks: [
        {
          ...maskSessionConfig(stored).webhooks![0]!,
          customHeaders: [
            { name: 'x-a', value: '***' },
            { name: 'X-A', value: '***' },
          ],
        },
      ],
    };
    expect(restoreSessionConfigSecrets(sent, stored).webhooks![0]!.customHeaders).toEqual([
      { name: 'x-a', value: 'a1' },
      { name: 'X-A', value: 'a2' },
    ]);
  });

  it('takes new values as sent', () => {
    const sent = { webhooks: [hook('https://h.example/one?t=new', { hmac: { key: 'k3' } })] };
    expect(restoreSessionConfigSecrets(sent, stored)).toEqual(sent);
  });

  it('refuses a placeholder with nothing stored at its place, naming each field', () => {
    const sent = { webhooks: [hook('https://***@h.example/?t=***', { hmac: { key: '***' }, customHeaders: [{ name: 'X-B', value: '***' }] })] };
    let error: unknown;
    try {
      restoreSessionConfigSecrets(sent, stored);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).statusCode).toBe(400);
    expect(((error as ApiError).details as { path: string }[]).map((d) => d.path)).toEqual([
      'body.config.webhooks[0].url',
      'body.config.webhooks[0].hmac.key',
      'body.config.webhooks[0].customHeaders[0].value',
    ]);
  });
});
