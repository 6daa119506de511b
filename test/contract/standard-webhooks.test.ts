import { type ReceivedHook, waitFor, WebhookReceiver } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContractGateway, mode, startGateway, waitForStatus, workingSession } from './harness.js';
import { npmVerdict, pythonVerdicts as verdicts, pythonVerifier } from './standard-webhooks-verifiers.js';

/**
 * Issue 30, part 2: a webhook with `hmac.scheme: "standard-webhooks"` is signed as the Standard
 * Webhooks spec says, and its deliveries are checked with the official libraries, npm and PyPI
 * `standardwebhooks` (the Python one in the venv of scripts/webhook-verifiers.sh), as receivers use them.
 */
/** Events reach the receiver through NATS and a webhook queue in cluster mode: give them time. */
const TIMEOUT_MS = 15_000;
const FROM = '15557654321@c.us';
const OLD = `whsec_${Buffer.alloc(32, 11).toString('base64')}`;
const NEW = `whsec_${Buffer.alloc(48, 12).toString('base64')}`;
const OTHER = `whsec_${Buffer.alloc(32, 13).toString('base64')}`;
const SCHEME = 'standard-webhooks';
const DAY_MS = 24 * 3600 * 1000;

let gw: ContractGateway;
let python: string;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  python = await pythonVerifier();
  gw = await startGateway();
}, 180_000);
afterAll(async () => {
  await gw?.close();
  await Promise.all(receivers.map((r) => r.stop()));
});

const pythonVerdicts = (checks: Parameters<typeof verdicts>[1]) => verdicts(python, checks);

async function receiver(): Promise<WebhookReceiver> {
  const started = await new WebhookReceiver().start();
  receivers.push(started);
  return started;
}

function webhook(rx: WebhookReceiver, hmac: Record<string, unknown>) {
  return { url: rx.url, events: ['message'], hmac: { scheme: SCHEME, ...hmac } };
}

/** One incoming message; resolves to its delivery once the receiver accepted it. */
async function delivered(rx: WebhookReceiver, session: string, body: string): Promise<ReceivedHook> {
  const res = await gw.api('POST', `/api/${session}/sandbox/simulate`, { kind: 'message', from: FROM, body });
  expect(res.status).toBe(201);
  return waitFor(() => rx.received.find((hook) => hook.body.payload?.body === body), `the delivery of '${body}'`, TIMEOUT_MS);
}

describe('Standard Webhooks deliveries verify with the official libraries (npm and PyPI)', () => {
  it('carry webhook-id (the event id, the same on a retry), webhook-timestamp (seconds) and a v1 signature; no X-Webhook-Hmac', async () => {
    const rx = await receiver();
    const attempts: ReceivedHook[] = [];
    // The first attempt of each event fails: its retry must carry the same id.
    rx.respond = (hook) => {
      attempts.push(hook);
      return attempts.filter((a) => a.body.id === hook.body.id).length === 1 ? 500 : 200;
    };
    const retries = { policy: 'constant', delaySeconds: 0, attempts: 3 };
    await workingSession(gw, 'stdwh-basic', { config: { webhooks: [{ ...webhook(rx, { key: NEW }), retries }] } });

    const hook = await delivered(rx, 'stdwh-basic', 'hello');
    const tries = attempts.filter((a) => a.body.id === hook.body.id);
    expect(tries).toHaveLength(2);
    for (const attempt of tries) {
      expect(attempt.headers['webhook-id']).toBe(hook.body.id);
      expect(Math.abs(Number(attempt.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(120);
      expect(attempt.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);
      expect(attempt.headers['x-webhook-hmac']).toBeUndefined();
      expect(npmVerdict(NEW, attempt)).toBe(true);
      expect(npmVerdict(OTHER, attempt)).toMatch(/No matching signature/);
    }
    expect(await pythonVerdicts([...tries.map((attempt) => ({ secret: NEW, hook: attempt })), { secret: OTHER, hook }])).toEqual([
      true,
      true,
      expect.stringMatching(/No matching signature/),
    ]);
  });

  it('a replayed delivery, its timestamp ten minutes old, is refused by both libraries', async () => {
    const rx = await receiver();
    await workingSession(gw, 'stdwh-replay', { config: { webhooks: [webhook(rx, { key: NEW })] } });
    const hook = await delivered(rx, 'stdwh-replay', 'once');
    expect(npmVerdict(NEW, hook)).toBe(true);
    expect(npmVerdict(NEW, hook, 10 * 60_000)).toMatch(/too old/);
    expect(await pythonVerdicts([{ secret: NEW, hook, laterSeconds: 600 }])).toEqual([expect.stringMatching(/too old/)]);
  });

  it('during a rotation both the new and the previous key verify; once its date has passed, only the new one', async () => {
    const rx = await receiver();
    const until = new Date(Date.now() + DAY_MS).toISOString();
    await workingSession(gw, 'stdwh-rotate', { config: { webhooks: [webhook(rx, { key: NEW, previous: { key: OLD, until } })] } });

    const read = await gw.api('GET', '/api/sessions/stdwh-rotate');
    expect(read.body.config.webhooks[0].hmac).toEqual({ key: '***', scheme: SCHEME, previous: { key: '***', until } });

    const during = await delivered(rx, 'stdwh-rotate', 'during');
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect([npmVerdict(NEW, during), npmVerdict(OLD, during)]).toEqual([true, true]);
    expect(
      await pythonVerdicts([
        { secret: NEW, hook: during },
        { secret: OLD, hook: during },
      ]),
    ).toEqual([true, true]);

    // The config sent back as read, the kept previous key given a date already past: its window ends now.
    const ended = {
      ...read.body.config.webhooks[0],
      hmac: { key: '***', scheme: SCHEME, previous: { key: '***', until: new Date(Date.now() - 1000).toISOString() } },
    };
    expect((await gw.api('PUT', '/api/sessions/stdwh-rotate', { config: { webhooks: [ended] } })).status).toBe(200);

    const after = await delivered(rx, 'stdwh-rotate', 'after');
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(npmVerdict(NEW, after)).toBe(true);
    expect(npmVerdict(OLD, after)).toMatch(/No matching signature/);
    expect(
      await pythonVerdicts([
        { secret: NEW, hook: after },
        { secret: OLD, hook: after },
      ]),
    ).toEqual([true, expect.stringMatching(/No matching signature/)]);
  });

  it('"generate" makes a whsec_ key, shown in that answer only; deliveries verify with it', async () => {
    const rx = await receiver();
    const created = await gw.api('POST', '/api/sessions', { name: 'stdwh-generate', config: { webhooks: [webhook(rx, { key: 'generate' })] } });
    expect(created.status).toBe(201);
    const key = created.body.config.webhooks[0].hmac.key as string;
    expect(key).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect((await gw.api('GET', '/api/sessions/stdwh-generate')).body.config.webhooks[0].hmac.key).toBe('***');

    await waitForStatus(gw, 'stdwh-generate', 'SCAN_QR_CODE');
    expect((await gw.api('POST', '/api/stdwh-generate/sandbox/simulate', { kind: 'scan' })).status).toBe(201);
    await waitForStatus(gw, 'stdwh-generate', 'WORKING');
    // Sent back as read, the placeholder keeps the generated key.
    const put = await gw.api('PUT', '/api/sessions/stdwh-generate', { config: { webhooks: [webhook(rx, { key: '***' })] } });
    expect(put.status).toBe(200);
    expect(put.body.config.webhooks[0].hmac.key).toBe('***');

    const hook = await delivered(rx, 'stdwh-generate', 'with a generated key');
    expect(npmVerdict(key, hook)).toBe(true);
    expect(await pythonVerdicts([{ secret: key, hook }])).toEqual([true]);

    // A second "generate" replaces it, shown once again.
    const again = await gw.api('PUT', '/api/sessions/stdwh-generate', { config: { webhooks: [webhook(rx, { key: 'generate' })] } });
    expect(again.status).toBe(200);
    expect(again.body.config.webhooks[0].hmac.key).toMatch(/^whsec_/);
    expect(again.body.config.webhooks[0].hmac.key).not.toBe(key);
  });

  it.runIf(mode === 'cluster')('cluster mode: the MessagingSession names the keys in a Secret and holds neither', async () => {
    const { readFromCluster } = await import('./cluster-harness.js');
    const rx = await receiver();
    const until = new Date(Date.now() + DAY_MS).toISOString();
    const config = { webhooks: [webhook(rx, { key: NEW, previous: { key: OLD, until } })] };
    expect((await gw.api('POST', '/api/sessions', { name: 'stdwh-resource', start: false, config })).status).toBe(201);
    const resource = await readFromCluster('resource', 'stdwh-resource');
    expect(JSON.stringify(resource)).not.toContain(NEW.slice(6, 30));
    expect(JSON.stringify(resource)).not.toContain(OLD.slice(6, 30));
    const { hmac } = resource.spec.config.webhooks[0];
    expect(hmac).toMatchObject({ scheme: SCHEME, previous: { until } });
    const secret = await readFromCluster('secret', hmac.keyFrom.secretKeyRef.name);
    expect(secret.data[hmac.keyFrom.secretKeyRef.key]).toBe(NEW);
    expect(secret.data[hmac.previous.keyFrom.secretKeyRef.key]).toBe(OLD);
  });
});

describe('Standard Webhooks config: bad input is refused, naming the field, and changes nothing', () => {
  const at = 'body.config.webhooks[0]';
  const refused = async (name: string, hmac: Record<string, unknown>, status: number, paths: string[], extra: Record<string, unknown> = {}) => {
    const rx = await receiver();
    const res = await gw.api('POST', '/api/sessions', { name, start: false, config: { webhooks: [{ ...webhook(rx, hmac), ...extra }] } });
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.details.map((d: { path: string }) => d.path)).toEqual(paths);
    expect(JSON.stringify(res.body)).not.toContain(NEW.slice(6, 30));
    expect((await gw.api('GET', `/api/sessions/${name}`)).status).toBe(404);
    return res.body;
  };

  it('a key that is no whsec_ secret of 24 to 64 bytes (422)', async () => {
    const body = await refused('stdwh-bad-1', { key: 'plain-secret' }, 422, [`${at}.hmac.key`]);
    expect(body.message).toContain('must be "whsec_" and the base64 of 24 to 64 random bytes');
    await refused('stdwh-bad-2', { key: `whsec_${Buffer.alloc(16).toString('base64')}` }, 422, [`${at}.hmac.key`]);
    await refused('stdwh-bad-3', { key: 'generate', scheme: 'x-webhook-hmac' }, 422, [`${at}.hmac.key`]);
  });

  it('a previous key without the scheme, not whsec_, dated in the past or more than 30 days ahead (422)', async () => {
    const soon = new Date(Date.now() + DAY_MS).toISOString();
    await refused('stdwh-bad-4', { key: NEW, scheme: 'x-webhook-hmac', previous: { key: OLD, until: soon } }, 422, [`${at}.hmac.previous`]);
    await refused('stdwh-bad-5', { key: NEW, previous: { key: 'old-plain', until: soon } }, 422, [`${at}.hmac.previous.key`]);
    const past = new Date(Date.now() - DAY_MS).toISOString();
    await refused('stdwh-bad-6', { key: NEW, previous: { key: OLD, until: past } }, 422, [`${at}.hmac.previous.until`]);
    const far = new Date(Date.now() + 31 * DAY_MS).toISOString();
    await refused('stdwh-bad-7', { key: NEW, previous: { key: OLD, until: far } }, 422, [`${at}.hmac.previous.until`]);
    await refused('stdwh-bad-8', { key: NEW, previous: { key: OLD, until: 'next week' } }, 400, [`${at}.hmac.previous.until`]);
  });

  it('a custom header named webhook-id, webhook-timestamp or webhook-signature (400)', async () => {
    for (const [n, name] of ['webhook-id', 'Webhook-Timestamp', 'WEBHOOK-SIGNATURE'].entries()) {
      await refused(`stdwh-header-${n}`, { key: NEW }, 400, [`${at}.customHeaders[0].name`], { customHeaders: [{ name, value: 'forged' }] });
    }
  });

  it('a kept ("***") key moved from X-Webhook-Hmac to standard-webhooks: it is no whsec_ secret (400)', async () => {
    const rx = await receiver();
    const hook = { url: rx.url, events: ['message'], hmac: { key: 'plain-secret' } };
    expect((await gw.api('POST', '/api/sessions', { name: 'stdwh-switch', start: false, config: { webhooks: [hook] } })).status).toBe(201);
    const res = await gw.api('PUT', '/api/sessions/stdwh-switch', { config: { webhooks: [{ ...hook, hmac: { key: '***', scheme: SCHEME } }] } });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toEqual([`${at}.hmac.key`]);
    expect((await gw.api('GET', '/api/sessions/stdwh-switch')).body.config.webhooks[0].hmac).toEqual({ key: '***' });
  });
});
