import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundPolicy } from '@switchboard/kube';
import { describe, expect, it } from 'vitest';
import { WebhookSender } from '../../src/webhooks/http-delivery.js';
import { closedPort } from '@switchboard/testkit';
import { closedAfterEach } from './support.js';

const { receiver } = closedAfterEach();

describe('6.1 one attempt over HTTP', () => {
  it('lets a custom header replace a standard one whatever its case, but never Host, the body length or an X-Webhook-* header', async () => {
    const rx = await receiver();
    const sender = new WebhookSender();
    const body = JSON.stringify({ id: 'evt_x', text: 'ünïcode' });
    // A config stored before such names were refused (or applied with kubectl) may still hold them.
    const failure = await sender.send(
      {
        url: rx.url,
        events: ['*'],
        customHeaders: [
          { name: 'content-TYPE', value: 'application/vnd.mine+json' },
          { name: 'x-webhook-request-id', value: 'req_mine' },
          { name: 'X-Webhook-Hmac', value: 'forged' },
          { name: 'Content-Length', value: '1' },
          { name: 'Host', value: 'elsewhere.example' },
        ],
      },
      body,
      'evt_x',
    );
    sender.close();
    expect(failure).toBeNull();
    const [request] = rx.received;
    expect(request!.headers['content-type']).toBe('application/vnd.mine+json');
    expect(request!.headers['x-webhook-request-id']).toMatch(/^req_/);
    expect(request!.headers['x-webhook-request-id']).not.toBe('req_mine');
    expect(request!.headers['x-webhook-hmac']).toBeUndefined();
    expect(request!.headers.host).toBe(new URL(rx.url).host);
    expect(request!.body.toString('utf8')).toBe(body);
    expect(request!.headers['content-length']).toBe(String(Buffer.byteLength(body)));
  });

  it('says why an attempt failed in a coarse reason, the details going to the logs only', async () => {
    const sender = new WebhookSender();
    const refused = `http://127.0.0.1:${(await closedPort()).port}/hook`;
    const moved = await receiver(() => 302);
    const missing = await receiver(() => 404);
    const broken = await receiver(() => 503);
    expect(await sender.send({ url: refused, events: ['*'] }, '{}', 'evt_x')).toEqual({ reason: 'refused', detail: 'ECONNREFUSED' });
    expect(await sender.send({ url: moved.url, events: ['*'] }, '{}', 'evt_x')).toEqual({ reason: 'refused', detail: 'HTTP 302' });
    expect(await sender.send({ url: missing.url, events: ['*'] }, '{}', 'evt_x')).toEqual({ reason: 'http_4xx', detail: 'HTTP 404' });
    expect(await sender.send({ url: broken.url, events: ['*'] }, '{}', 'evt_x')).toEqual({ reason: 'http_5xx', detail: 'HTTP 503' });
    sender.close();
  });

  it('refuses, as blocked_address and without connecting, an address the outbound policy denies: a literal one or one a host name resolves to', async () => {
    let connections = 0;
    const rx = await receiver();
    const counting = createServer((req, res) => void req.resume().on('end', () => res.end()));
    counting.on('connection', () => connections++);
    await new Promise<void>((resolve) => counting.listen(0, '127.0.0.1', resolve));
    const port = (counting.address() as AddressInfo).port;
    const sender = new WebhookSender({ policy: new OutboundPolicy({ deny: '127.0.0.0/8,::1' }) });
    const denied = (target: string) =>
      `${target} is denied by the outbound address policy (rule 127.0.0.0/8, SWITCHBOARD_OUTBOUND_DENY; SWITCHBOARD_OUTBOUND_ALLOW can allow it)`;
    try {
      // localhost is not denied by name: what it resolves to is, when the connection is made.
      expect(await sender.send({ url: `http://localhost:${port}/hook`, events: ['*'] }, '{}', 'evt_x')).toEqual({
        reason: 'blocked_address',
        detail: denied('127.0.0.1'),
      });
      expect(await sender.send({ url: `http://127.0.0.1:${port}/hook`, events: ['*'] }, '{}', 'evt_x')).toEqual({
        reason: 'blocked_address',
        detail: denied('127.0.0.1'),
      });
      // The built-in rules hold whatever is configured; nothing is dialled to find out.
      expect(await sender.send({ url: 'http://169.254.169.254/latest/meta-data/', events: ['*'] }, '{}', 'evt_x')).toMatchObject({
        reason: 'blocked_address',
        detail: expect.stringContaining('(rule 169.254.0.0/16, a built-in rule;'),
      });
      expect(await sender.send({ url: rx.url, events: ['*'] }, '{}', 'evt_x')).toMatchObject({ reason: 'blocked_address' });
      expect(connections).toBe(0);
      expect(rx.received).toHaveLength(0);
    } finally {
      sender.close();
      counting.closeAllConnections();
      await new Promise((resolve) => counting.close(resolve));
    }
  });

  it('stops an attempt when its signal aborts', async () => {
    const slow = await receiver(() => new Promise((resolve) => setTimeout(() => resolve(200), 2_000)));
    const sender = new WebhookSender();
    const stopping = new AbortController();
    const attempt = sender.send({ url: slow.url, events: ['*'] }, '{}', 'evt_x', stopping.signal);
    setTimeout(() => stopping.abort(), 50);
    const started = Date.now();
    expect(await attempt).toMatchObject({ detail: 'aborted' });
    expect(Date.now() - started).toBeLessThan(1_000);
    sender.close();
  });
  it('fails at once with a signal already aborted, and sends nothing', async () => {
    const rx = await receiver();
    const sender = new WebhookSender();
    expect(await sender.send({ url: rx.url, events: ['*'] }, '{}', 'evt_x', AbortSignal.abort())).toMatchObject({ detail: 'aborted' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(rx.received).toHaveLength(0);
    sender.close();
  });

  it('reads and drops an answer body that ends late, and reuses the connection for the next request', async () => {
    let connections = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/plain' }).write('thanks, ');
        setTimeout(() => res.end('and goodbye'), 20);
      });
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook?x=1`;
    const sender = new WebhookSender();
    try {
      for (let i = 0; i < 5; i++) expect(await sender.send({ url, events: ['*'] }, `{"n":${i}}`, 'evt_x')).toBeNull();
      // undici opens a second connection early on; settling before the body's end would need one per request.
      expect(connections).toBeLessThanOrEqual(2);
    } finally {
      sender.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('fails an attempt whose answer does not come within the timeout, naming it', async () => {
    const slow = await receiver(() => new Promise((resolve) => setTimeout(() => resolve(200), 2_000)));
    const sender = new WebhookSender({ timeoutMs: 100 });
    const started = Date.now();
    expect(await sender.send({ url: slow.url, events: ['*'] }, '{}', 'evt_x')).toEqual({ reason: 'timeout', detail: 'timeout after 100 ms' });
    expect(Date.now() - started).toBeLessThan(1_000);
    sender.close();
  });
});
