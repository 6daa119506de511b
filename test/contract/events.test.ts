import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { parseEnvelope } from '@switchboard/protocol';
import { waitFor, WebhookReceiver, WsClient } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mode, startGateway, type ContractGateway } from './harness.js';

/** Every package carries the product version; the envelope must say it. */
const VERSION = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version as string;

const SECRET = 'receiver-shared-secret';
let gw: ContractGateway;
let receiver: WebhookReceiver;
let globalReceiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await new WebhookReceiver(SECRET).start();
  globalReceiver = await new WebhookReceiver().start();
  gw = await startGateway({
    globalWebhook: { url: globalReceiver.url, events: ['session.status'] },
  });
});
afterAll(async () => {
  await gw.close();
  await receiver.stop();
  await globalReceiver.stop();
});

/** A session whose webhook posts to our receiver, paired, with one text sent and one received. */
async function story(name: string, webhook: Record<string, unknown>) {
  await gw.api('POST', '/api/sessions', {
    name,
    config: { metadata: { 'user.id': '42', tenant: 'acme' }, webhooks: [{ url: receiver.url, ...webhook }] },
  });
  await waitFor(async () => (await gw.api('GET', `/api/sessions/${name}`)).body.status === 'SCAN_QR_CODE', 'QR');
  await gw.api('POST', `/api/${name}/sandbox/simulate`, { kind: 'scan' });
  const sent = (await gw.api('POST', '/api/sendText', { session: name, chatId: '15551234567@c.us', text: 'out' })).body;
  await gw.api('POST', `/api/${name}/sandbox/simulate`, { kind: 'message', from: '15557654321@c.us', body: 'in' });
  return sent;
}

const of = (name: string) => receiver.received.filter((h) => h.body.session === name);

describe('2.4 envelope and 6.2 payloads of the first events', () => {
  let sent: { id: string };
  beforeAll(async () => {
    sent = await story('env', { events: ['*'], hmac: { key: SECRET } });
    await waitFor(() => of('env').filter((h) => h.body.event === 'message.ack').length === 2, 'both acks', 3_000);
    await waitFor(() => of('env').some((h) => h.body.event === 'message'), 'the incoming message', 3_000);
  });

  it('every delivered envelope parses against its event schema', () => {
    const names = new Set<string>();
    for (const hook of of('env')) {
      expect(() => parseEnvelope(hook.body)).not.toThrow();
      names.add(hook.body.event);
    }
    expect([...names].sort()).toEqual(['message', 'message.ack', 'message.any', 'session.status']);
  });

  it('carries id evt_<lower-case ulid>, ms timestamp, session, metadata, environment (as the peer shapes it) and engine', () => {
    const [first] = of('env');
    expect(first!.body.id).toMatch(/^evt_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(Math.abs(first!.body.timestamp - Date.now())).toBeLessThan(60_000);
    expect(first!.body).toMatchObject({
      session: 'env',
      metadata: { 'user.id': '42', tenant: 'acme' },
      environment: {
        tier: 'CORE',
        version: VERSION,
        engine: 'SANDBOX',
        platform: `${process.platform}/${process.arch}`,
        // The engine pod that runs the session in cluster mode; the gateway's host in local mode.
        worker: { id: mode === 'cluster' ? expect.any(String) : hostname() },
      },
      engine: 'SANDBOX',
    });
    // A socket engine drives no browser.
    expect(first!.body.environment).not.toHaveProperty('browser');
    const ids = of('env').map((h) => h.body.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('has me only while WORKING', () => {
    for (const hook of of('env')) {
      const working = hook.body.event !== 'session.status' || hook.body.payload.status === 'WORKING';
      if (working) expect(hook.body.me).toEqual({ id: '15550000000@c.us', pushName: 'Sandbox' });
      else expect(hook.body).not.toHaveProperty('me');
    }
  });

  it('session.status carries the recent 3 statuses, oldest first', () => {
    const statuses = of('env')
      .filter((h) => h.body.event === 'session.status')
      .map((h) => h.body.payload);
    expect(statuses.map((p) => p.status)).toEqual(['STARTING', 'SCAN_QR_CODE', 'WORKING']);
    const working = statuses[2];
    expect(working.name).toBe('env');
    expect(working.statuses.map((s: { status: string }) => s.status)).toEqual(['STARTING', 'SCAN_QR_CODE', 'WORKING']);
    expect(statuses[0].statuses).toHaveLength(1);
  });

  it('message.any has source api for the send and app for the incoming message', () => {
    const anys = of('env')
      .filter((h) => h.body.event === 'message.any')
      .map((h) => h.body.payload);
    expect(anys.find((p) => p.id === sent.id)?.source).toBe('api');
    expect(anys.find((p) => !p.fromMe)?.source).toBe('app');
  });
});

describe('6.1 webhook delivery', () => {
  it('signs the raw body with HMAC sha512 and sends the request headers of 6.1', async () => {
    await story('sig', { events: ['message'], hmac: { key: SECRET }, customHeaders: [{ name: 'X-Tenant', value: 'acme:eu' }] });
    const [hook] = await waitFor(() => of('sig').length > 0 && of('sig'), 'delivery');
    expect(hook!.hmacValid).toBe(true);
    expect(hook!.headers['x-webhook-hmac-algorithm']).toBe('sha512');
    expect(hook!.headers['x-webhook-request-id']).toMatch(/\S+/);
    expect(Number(hook!.headers['x-webhook-timestamp'])).toBeGreaterThan(Date.now() - 60_000);
    expect(hook!.headers['x-tenant']).toBe('acme:eu');
    expect(hook!.headers['content-type']).toContain('application/json');
  });

  it('delivers only the events the webhook lists', async () => {
    await story('filter', { events: ['message'] });
    await waitFor(() => of('filter').length > 0, 'delivery');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(of('filter').map((h) => h.body.event)).toEqual(['message']);
  });

  it('sends no HMAC headers when no key is configured', async () => {
    await story('nosig', { events: ['message'] });
    const [hook] = await waitFor(() => of('nosig').length > 0 && of('nosig'), 'delivery');
    expect(hook!.headers).not.toHaveProperty('x-webhook-hmac');
    expect(hook!.headers).not.toHaveProperty('x-webhook-hmac-algorithm');
  });

  it('retries a failed delivery per the policy until the receiver answers 2xx', async () => {
    let failures = 0;
    receiver.respond = (hook) => (hook.body.session === 'retry' && failures++ < 2 ? 500 : 200);
    try {
      await story('retry', { events: ['message'], retries: { policy: 'constant', delaySeconds: 0.05, attempts: 5 } });
      await waitFor(() => of('retry').length === 1, 'delivery after two 500s');
      expect(failures).toBe(3);
    } finally {
      receiver.respond = () => 200;
    }
  });

  it('the global webhook gets its events of every session', async () => {
    await waitFor(() => ['env', 'sig', 'filter'].every((s) => globalReceiver.received.some((h) => h.body.session === s)), 'global deliveries');
    expect(new Set(globalReceiver.received.map((h) => h.body.event))).toEqual(new Set(['session.status']));
  });
});

describe('6.1 websocket', () => {
  it('filters by session and by repeated events', async () => {
    const onlyA = await WsClient.connect(gw.url, 'x-api-key=test-admin-key-0123456789&session=ws-a&events=message&events=message.any');
    const all = await WsClient.connect(gw.url, 'x-api-key=test-admin-key-0123456789&session=*&events=*');
    await story('ws-a', { events: ['message'] });
    await story('ws-b', { events: ['message'] });
    await waitFor(() => onlyA.events('message.any').length >= 2, 'ws-a messages');
    await waitFor(() => all.frames.filter((f) => f.session === 'ws-b' && f.event === 'message').length === 1, 'ws-b on *');
    await waitFor(() => all.frames.filter((f) => f.session === 'ws-b' && f.event === 'message.ack').length === 2, 'acks on *');
    expect(new Set(onlyA.frames.map((f) => f.session))).toEqual(new Set(['ws-a']));
    expect(new Set(onlyA.frames.map((f) => f.event))).toEqual(new Set(['message', 'message.any']));
    expect(new Set(all.frames.map((f) => f.event))).toEqual(new Set(['session.status', 'message', 'message.any', 'message.ack']));
    for (const frame of all.frames) expect(() => parseEnvelope(frame)).not.toThrow();
    onlyA.close();
    all.close();
  });
});
