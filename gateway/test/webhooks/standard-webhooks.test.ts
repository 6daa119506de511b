import type { IncomingHttpHeaders } from 'node:http';
import type { WebhookConfig } from '@switchboard/protocol';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { WebhookSender } from '../../src/webhooks/http-delivery.js';
import { generateStandardSecret, standardSecretBytes } from '../../src/webhooks/standard-webhooks.js';
import { closedAfterEach } from './support.js';

const { receiver } = closedAfterEach();

const OLD = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const NEW = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
const BODY = JSON.stringify({ id: 'evt_01jstandard', event: 'message', payload: { body: 'ünïcode' } });

/** The three headers as the official library reads them. */
function signed(headers: IncomingHttpHeaders): { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string } {
  return {
    'webhook-id': String(headers['webhook-id']),
    'webhook-timestamp': String(headers['webhook-timestamp']),
    'webhook-signature': String(headers['webhook-signature']),
  };
}

/** Whether the official npm library accepts the delivery with `secret`. */
function verifies(secret: string, body: Buffer, headers: IncomingHttpHeaders): boolean {
  try {
    new Webhook(secret).verify(body.toString('utf8'), signed(headers));
    return true;
  } catch {
    return false;
  }
}

async function deliver(hmac: WebhookConfig['hmac'], now?: () => number) {
  const rx = await receiver();
  const sender = new WebhookSender(now ? { now } : {});
  expect(await sender.send({ url: rx.url, events: ['*'], hmac }, BODY, 'evt_01jstandard')).toBeNull();
  sender.close();
  return rx.received[0]!;
}

describe('Standard Webhooks signatures (opt-in per webhook)', () => {
  it('signs id.timestamp.body with HMAC-SHA256 of the whsec_ key, as the official library verifies, and sends no X-Webhook-Hmac', async () => {
    const request = await deliver({ key: NEW, scheme: 'standard-webhooks' });
    expect(request.headers['webhook-id']).toBe('evt_01jstandard');
    expect(Number(request.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
    expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);
    expect(verifies(NEW, request.body, request.headers)).toBe(true);
    expect(verifies(OLD, request.body, request.headers)).toBe(false);
    expect(request.headers['x-webhook-hmac']).toBeUndefined();
    expect(request.headers['x-webhook-request-id']).toMatch(/^req_/);
  });

  it('without a scheme signs as before: X-Webhook-Hmac, no webhook-* headers', async () => {
    const request = await deliver({ key: NEW });
    expect(request.headers['x-webhook-hmac']).toMatch(/^[0-9a-f]{128}$/);
    expect(request.headers['webhook-signature']).toBeUndefined();
    expect(request.headers['webhook-id']).toBeUndefined();
  });

  it('sends both signatures, space-separated, until the previous key ends, then the new one only', async () => {
    const until = '2030-01-01T00:00:00Z';
    const hmac = { key: NEW, scheme: 'standard-webhooks' as const, previous: { key: OLD, until } };
    const during = await deliver(hmac);
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifies(NEW, during.body, during.headers)).toBe(true);
    expect(verifies(OLD, during.body, during.headers)).toBe(true);

    // The sender's clock just past `until`; the library's timestamp check needs its own clock moved too.
    const after = await deliver(hmac, () => Date.parse(until) + 1);
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    const library = signed(after.headers);
    const newKey = new Webhook(NEW);
    const oldKey = new Webhook(OLD);
    const at = new Date(Date.parse(until) + 1);
    expect(newKey.sign(library['webhook-id'], at, after.body.toString('utf8'))).toBe(library['webhook-signature']);
    expect(oldKey.sign(library['webhook-id'], at, after.body.toString('utf8'))).not.toBe(library['webhook-signature']);
  });

  it('a timestamp older than the tolerance (a replay) is refused by the library', async () => {
    const request = await deliver({ key: NEW, scheme: 'standard-webhooks' }, () => Date.now() - 10 * 60_000);
    expect(() => new Webhook(NEW).verify(request.body.toString('utf8'), signed(request.headers))).toThrow(/too old/);
  });
});

describe('whsec_ secrets', () => {
  it('takes whsec_ and padded base64 of 24 to 64 bytes; nothing else', () => {
    expect(standardSecretBytes(`whsec_${Buffer.alloc(24).toString('base64')}`)).toHaveLength(24);
    expect(standardSecretBytes(`whsec_${Buffer.alloc(64).toString('base64')}`)).toHaveLength(64);
    expect(standardSecretBytes(`whsec_${Buffer.alloc(23).toString('base64')}`)).toBeNull();
    expect(standardSecretBytes(`whsec_${Buffer.alloc(65).toString('base64')}`)).toBeNull();
    expect(standardSecretBytes(Buffer.alloc(32).toString('base64'))).toBeNull();
    expect(standardSecretBytes('whsec_not*base64*at*all*but*long*enough*to*count')).toBeNull();
    expect(standardSecretBytes(`whsec_${Buffer.alloc(32).toString('base64').replace(/=+$/, '')}`)).toBeNull();
  });

  it('makes 32 random bytes in that form, new each time', () => {
    const [a, b] = [generateStandardSecret(), generateStandardSecret()];
    expect(standardSecretBytes(a)).toHaveLength(32);
    expect(a).not.toBe(b);
  });
});
