import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundPolicy } from '@switchboard/kube';
import { closedPort, waitFor } from '@switchboard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../src/config.js';
import { startGateway, type TestGateway, workingSession } from './support/gateway.js';
import { startReceiver, type Receiver } from './webhooks/support.js';

/*
 * Issue 12, item 7: requests made on a user's behalf cannot be aimed inside. Tests reach only
 * loopback: loopback is denied by configuration where a test needs a denied address to exist,
 * and 169.254.169.254 is refused by the policy before any connection is tried.
 */

const PEER = '15557654321@c.us';
const BUILT_IN_METADATA =
  '169.254.169.254 is denied by the outbound address policy (rule 169.254.0.0/16, a built-in rule; SWITCHBOARD_OUTBOUND_ALLOW can allow it)';
const DENY_LOOPBACK = '127.0.0.0/8,::1';

let gw: TestGateway | undefined;
const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await gw?.close();
  gw = undefined;
  await Promise.all(closing.splice(0).map((close) => close()));
});

async function receiver(): Promise<Receiver> {
  const rx = await startReceiver();
  closing.push(() => rx.close());
  return rx;
}

async function listen(server: Server, host: string): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  closing.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

describe('webhook urls the policy refuses are a 400 where the address is literal', () => {
  it('refuses them at create, PUT and the deprecated start, naming the webhook and the rule, and changes nothing', async () => {
    gw = await startGateway({ outbound: new OutboundPolicy({ deny: 'hooks.internal' }) });
    const fine = { url: 'http://127.0.0.1:9/hook', events: ['message'] };

    const created = await gw.api('POST', '/api/sessions', {
      name: 'aimed',
      start: false,
      config: { webhooks: [fine, { url: 'http://169.254.169.254/latest/meta-data/', events: ['message'] }] },
    });
    expect(created.status).toBe(400);
    expect(created.body.details).toEqual([{ path: 'body.config.webhooks[1].url', reason: BUILT_IN_METADATA }]);
    expect(created.body.message).toBe(`invalid request: body.config.webhooks[1].url: ${BUILT_IN_METADATA}`);
    expect((await gw.api('GET', '/api/sessions/aimed')).status).toBe(404);

    const byName = await gw.api('POST', '/api/sessions', {
      name: 'aimed',
      start: false,
      config: { webhooks: [{ url: 'https://HOOKS.internal./x', events: ['message'] }] },
    });
    expect(byName.status).toBe(400);
    expect(byName.body.details).toEqual([
      {
        path: 'body.config.webhooks[0].url',
        reason:
          'hooks.internal is denied by the outbound address policy (rule hooks.internal, SWITCHBOARD_OUTBOUND_DENY; SWITCHBOARD_OUTBOUND_ALLOW can allow it)',
      },
    ]);

    expect((await gw.api('POST', '/api/sessions', { name: 'kept', start: false, config: { webhooks: [fine] } })).status).toBe(201);
    const put = await gw.api('PUT', '/api/sessions/kept', {
      config: { webhooks: [{ url: 'http://[::ffff:169.254.169.254]/', events: ['message'] }] },
    });
    expect(put.status).toBe(400);
    expect(put.body.details).toEqual([
      { path: 'body.config.webhooks[0].url', reason: expect.stringContaining('(rule 169.254.0.0/16, a built-in rule;') },
    ]);
    expect((await gw.api('GET', '/api/sessions/kept')).body.config.webhooks).toEqual([fine]);
    // NAT64, 6to4 and IPv4-compatible forms of the metadata address reach it as well.
    for (const host of ['64:ff9b::a9fe:a9fe', '2002:a9fe:a9fe::1', '::169.254.169.254']) {
      const hidden = await gw.api('PUT', '/api/sessions/kept', { config: { webhooks: [{ url: `http://[${host}]/`, events: ['message'] }] } });
      expect(hidden.status, host).toBe(400);
      expect(hidden.body.details, host).toEqual([
        { path: 'body.config.webhooks[0].url', reason: expect.stringContaining('(rule 169.254.0.0/16, a built-in rule;') },
      ]);
    }
    expect((await gw.api('GET', '/api/sessions/kept')).body.config.webhooks).toEqual([fine]);

    const started = await gw.api('POST', '/api/sessions/start', {
      name: 'legacy',
      config: { webhooks: [{ url: 'http://0.0.0.0:3000/', events: ['message'] }] },
    });
    expect(started.status).toBe(400);
    expect(started.body.details[0]).toMatchObject({
      path: 'body.config.webhooks[0].url',
      reason: expect.stringContaining('(rule 0.0.0.0/8, a built-in rule;'),
    });
    expect((await gw.api('GET', '/api/sessions/legacy')).status).toBe(404);
  });

  it('refuses custom headers the gateway sets itself (Host, Content-Length, X-Webhook-*), naming the header', async () => {
    gw = await startGateway();
    for (const name of ['X-Webhook-Hmac', 'x-webhook-anything', 'Host', 'content-LENGTH']) {
      const res = await gw.api('POST', '/api/sessions', {
        name: 'headers',
        start: false,
        config: {
          webhooks: [
            {
              url: 'http://127.0.0.1:9/hook',
              events: ['message'],
              customHeaders: [
                { name: 'X-Fine', value: '1' },
                { name, value: 'x' },
              ],
            },
          ],
        },
      });
      expect(res.status, name).toBe(400);
      expect(res.body.details, name).toEqual([
        {
          path: 'body.config.webhooks[0].customHeaders[1].name',
          reason: `"${name}" is set by the gateway: customHeaders may not set Host, Content-Length, X-Webhook-*, webhook-id, webhook-timestamp or webhook-signature`,
        },
      ]);
    }
    expect((await gw.api('GET', '/api/sessions/headers')).status).toBe(404);
  });
});

describe("a NOWEB session's proxy is held to the policy", () => {
  it('a denied literal address is a 400 naming body.config.proxy.server at create and PUT, and changes nothing', async () => {
    gw = await startGateway({ outbound: new OutboundPolicy({ deny: DENY_LOOPBACK }) });
    const created = await gw.api('POST', '/api/sessions', {
      name: 'proxied',
      engine: 'NOWEB',
      start: false,
      config: { proxy: { server: 'http://127.0.0.1:3128' } },
    });
    expect(created.status).toBe(400);
    expect(created.body.details).toEqual([
      {
        path: 'body.config.proxy.server',
        reason:
          '127.0.0.1 is denied by the outbound address policy (rule 127.0.0.0/8, SWITCHBOARD_OUTBOUND_DENY; SWITCHBOARD_OUTBOUND_ALLOW can allow it)',
      },
    ]);
    expect((await gw.api('GET', '/api/sessions/proxied')).status).toBe(404);

    expect((await gw.api('POST', '/api/sessions', { name: 'proxied', engine: 'NOWEB', start: false })).status).toBe(201);
    const put = await gw.api('PUT', '/api/sessions/proxied', { config: { proxy: { server: '169.254.169.254:80' } } });
    expect(put.status).toBe(400);
    expect(put.body.details).toEqual([{ path: 'body.config.proxy.server', reason: BUILT_IN_METADATA }]);
    expect((await gw.api('GET', '/api/sessions/proxied')).body.config).not.toHaveProperty('proxy');
  });

  it('a host name that resolves to a denied address is never dialed: the session is FAILED with blocked_address', async () => {
    let dialed = 0;
    const proxy = createServer();
    proxy.on('connection', () => (dialed += 1));
    const port = new URL(await listen(proxy, '127.0.0.1')).port;
    // Should the proxy be gone around, the engine would meet a closed loopback port, not WhatsApp.
    process.env.SWITCHBOARD_NOWEB_WS_URL = `ws://127.0.0.1:${String((await closedPort()).port)}/ws/chat`;
    closing.push(async () => delete process.env.SWITCHBOARD_NOWEB_WS_URL);
    gw = await startGateway({ outbound: new OutboundPolicy({ deny: DENY_LOOPBACK }) });
    const created = await gw.api('POST', '/api/sessions', { name: 'proxied', engine: 'NOWEB', config: { proxy: { server: `localhost:${port}` } } });
    expect(created.status).toBe(201);
    await waitFor(async () => (await gw!.api('GET', '/api/sessions/proxied')).body.status === 'FAILED', 'FAILED', 10_000);
    const info = await gw.api('GET', '/api/sessions/proxied');
    expect(info.body.reason).toMatch(/^blocked_address: the proxy (127\.0\.0\.1|::1) is denied by the outbound address policy/);
    expect(dialed).toBe(0);
  });
});

describe('webhook deliveries are held to the policy on the address they connect to', () => {
  it('refuses a host name that resolves to a denied address: dead as blocked_address, no connection made', async () => {
    let connections = 0;
    const rx = await receiver();
    const counting = createServer((req, res) => void req.resume().on('end', () => res.end()));
    counting.on('connection', () => connections++);
    const countingUrl = await listen(counting, '127.0.0.1');
    gw = await startGateway({ outbound: new OutboundPolicy({ deny: DENY_LOOPBACK }) });
    const retries = { policy: 'constant', delaySeconds: 0.02, attempts: 2 };
    // Host names are accepted at create: what they resolve to is checked on each connection.
    await workingSession(gw, 'inside', {
      config: {
        webhooks: [
          { url: `http://localhost:${new URL(countingUrl).port}/hook`, events: ['message'], retries },
          { url: `http://localhost:${rx.port}/other`, events: ['message'], retries },
        ],
      },
    });
    const sent = await gw.api('POST', '/api/inside/sandbox/simulate', { kind: 'message', from: PEER, body: 'hi' });
    expect(sent.status).toBe(201);

    const dead = await waitFor(async () => {
      const list = (await gw!.api('GET', '/api/inside/webhooks/dead')).body as { lastError: string }[];
      return list.length === 2 && list;
    }, 'both deliveries to die');
    expect(dead.map((d) => d.lastError)).toEqual(['blocked_address', 'blocked_address']);
    // Neither the address nor the rule: those are for the logs.
    expect(JSON.stringify(dead)).not.toContain('127.0.0.1');
    expect(connections).toBe(0);
    expect(rx.received).toHaveLength(0);
  });
});

describe('files sent by URL are held to the policy, redirects included', () => {
  it('answers 400 naming body.file.url when an allowed server redirects to a denied address, which is never reached', async () => {
    let insideConnections = 0;
    const inside = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF secret'));
    inside.on('connection', () => insideConnections++);
    const insideUrl = await listen(inside, '127.0.0.1');
    // 127.0.0.2 plays the allowed file server; 127.0.0.1 the inside it points to.
    const files = createServer((req, res) => {
      const to = req.url === '/by-name' ? `http://localhost:${new URL(insideUrl).port}/x.pdf` : `${insideUrl}/x.pdf`;
      if (req.url === '/report.pdf') res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF fine');
      else res.writeHead(302, { location: to }).end();
    });
    const filesUrl = await listen(files, '127.0.0.2');
    gw = await startGateway({ outbound: new OutboundPolicy({ deny: DENY_LOOPBACK, allow: '127.0.0.2' }) });
    await workingSession(gw, 'media');
    const send = (url: string) => gw!.api('POST', '/api/sendFile', { session: 'media', chatId: PEER, file: { mimetype: 'application/pdf', url } });

    expect((await send(`${filesUrl}/report.pdf`)).status).toBe(201);
    const denied =
      'could not be downloaded: 127.0.0.1 is denied by the outbound address policy (rule 127.0.0.0/8, SWITCHBOARD_OUTBOUND_DENY; SWITCHBOARD_OUTBOUND_ALLOW can allow it)';
    for (const path of ['/by-address', '/by-name']) {
      const res = await send(`${filesUrl}${path}`);
      expect(res.status, path).toBe(400);
      expect(res.body.details, path).toEqual([{ path: 'body.file.url', reason: denied }]);
    }
    const literal = await send('http://169.254.169.254/latest/meta-data/x.pdf');
    expect(literal.status).toBe(400);
    expect(literal.body.details).toEqual([{ path: 'body.file.url', reason: `could not be downloaded: ${BUILT_IN_METADATA}` }]);
    expect(insideConnections).toBe(0);
  });
});

describe('SWITCHBOARD_OUTBOUND_DENY, _ALLOW and the global webhook at start-up', () => {
  it('stops start-up when the global webhook url is denied, naming the variable and the rule', () => {
    expect(() => readConfig({ SWITCHBOARD_HOOK_URL: 'http://169.254.169.254/hook' })).toThrow(ConfigError);
    expect(() => readConfig({ SWITCHBOARD_HOOK_URL: 'http://169.254.169.254/hook' })).toThrow(
      `invalid configuration: invalid global webhook: SWITCHBOARD_HOOK_URL: ${BUILT_IN_METADATA}`,
    );
    expect(() => readConfig({ SWITCHBOARD_HOOK_URL: 'http://127.0.0.1:8080/hook', SWITCHBOARD_OUTBOUND_DENY: DENY_LOOPBACK })).toThrow(
      'SWITCHBOARD_HOOK_URL: 127.0.0.1 is denied by the outbound address policy (rule 127.0.0.0/8, SWITCHBOARD_OUTBOUND_DENY;',
    );
    const allowed = readConfig({
      SWITCHBOARD_HOOK_URL: 'http://127.0.0.1:8080/hook',
      SWITCHBOARD_OUTBOUND_DENY: DENY_LOOPBACK,
      SWITCHBOARD_OUTBOUND_ALLOW: '127.0.0.1',
    });
    expect(allowed.globalWebhook?.url).toBe('http://127.0.0.1:8080/hook');
  });

  it('refuses a bad entry, naming the variable and the entry', () => {
    expect(() => readConfig({ SWITCHBOARD_OUTBOUND_DENY: '10.0.0.0/8,10.0.0.0/40' })).toThrow(
      'invalid configuration: SWITCHBOARD_OUTBOUND_DENY: "10.0.0.0/40" must have a prefix length from 0 to 32',
    );
  });
});
