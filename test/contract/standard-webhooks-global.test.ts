import { waitFor, WebhookReceiver } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContractGateway, startGateway } from './harness.js';
import { npmVerdict, pythonVerdicts, pythonVerifier } from './standard-webhooks-verifiers.js';

/**
 * The global webhook signed the Standard Webhooks way, during a key rotation (in cluster mode set
 * by the SWITCHBOARD_HOOK_HMAC_* variables of the gateway process).
 */
const OLD = `whsec_${Buffer.alloc(24, 21).toString('base64')}`;
const NEW = `whsec_${Buffer.alloc(64, 22).toString('base64')}`;

let gw: ContractGateway;
let rx: WebhookReceiver;
let python: string;

beforeAll(async () => {
  python = await pythonVerifier();
  rx = await new WebhookReceiver().start();
  const until = new Date(Date.now() + 24 * 3600 * 1000).toISOString();
  gw = await startGateway({
    globalWebhook: { url: rx.url, events: ['session.status'], hmac: { key: NEW, scheme: 'standard-webhooks', previous: { key: OLD, until } } },
  });
}, 180_000);
afterAll(async () => {
  await gw?.close();
  await rx?.stop();
});

describe('the global webhook with the Standard Webhooks scheme', () => {
  it('signs with the new and the previous key, and both official libraries verify either', async () => {
    expect((await gw.api('POST', '/api/sessions', { name: 'stdwh-global' })).status).toBe(201);
    const hook = await waitFor(() => rx.received.find((each) => each.body.session === 'stdwh-global'), 'a session.status delivery', 15_000);
    expect(hook.headers['webhook-id']).toBe(hook.body.id);
    expect(String(hook.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect([npmVerdict(NEW, hook), npmVerdict(OLD, hook)]).toEqual([true, true]);
    expect(
      await pythonVerdicts(python, [
        { secret: NEW, hook },
        { secret: OLD, hook },
      ]),
    ).toEqual([true, true]);
  });
});
