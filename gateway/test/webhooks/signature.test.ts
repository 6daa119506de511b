import { describe, expect, it } from 'vitest';
import { HMAC_ALGORITHM, signBody } from '../../src/webhooks/signature.js';

describe('5 HMAC of webhook deliveries', () => {
  it('is HMAC-SHA512 in hex (RFC 4231 test case 2)', () => {
    const body = Buffer.from('what do ya want for nothing?', 'utf8');
    expect(HMAC_ALGORITHM).toBe('sha512');
    expect(signBody(body, 'Jefe')).toBe(
      '164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554' + '9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737',
    );
  });

  it('covers the exact bytes: the same JSON with other spacing signs differently', () => {
    const compact = Buffer.from('{"a":1}', 'utf8');
    const spaced = Buffer.from('{ "a": 1 }', 'utf8');
    expect(signBody(compact, 'k')).not.toBe(signBody(spaced, 'k'));
  });
});
