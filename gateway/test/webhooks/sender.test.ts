import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WebhookSender } from '../../src/webhooks/http-delivery.js';
import { closedAfterEach, freePort } from './support.js';

const { receiver } = closedAfterEach();

describe('6.1 one attempt over HTTP', () => {
  it('lets a custom header replace a standard one whatever its case, but never the body length', async () => {
    const rx = await receiver();
    const sender = new WebhookSender();
    const body = JSON.stringify({ id: 'evt_x', text: 'ünïcode' });
    const failure = await sender.send(
      {
        url: rx.url,
        events: ['*'],
        customHeaders: [
          { name: 'x-webhook-request-id', value: 'req_mine' },
          { name: 'Content-Length', value: '1' },
        ],
      },
      body,
    );
    sender.close();
    expect(failure).toBeNull();
    const [request] = rx.received;
    expect(request!.headers['x-webhook-request-id']).toBe('req_mine');
    expect(request!.body.toString('utf8')).toBe(body);
    expect(request!.headers['content-length']).toBe(String(Buffer.byteLength(body)));
  });

  it('names why an attempt failed: the status, a refused connection, a redirect', async () => {
    const sender = new WebhookSender();
    const refused = `http://127.0.0.1:${await freePort()}/hook`;
    const moved = await receiver(() => 302);
    const broken = await receiver(() => 503);
    expect(await sender.send({ url: refused, events: ['*'] }, '{}')).toBe('ECONNREFUSED');
    expect(await sender.send({ url: moved.url, events: ['*'] }, '{}')).toBe('HTTP 302');
    expect(await sender.send({ url: broken.url, events: ['*'] }, '{}')).toBe('HTTP 503');
    sender.close();
  });

  it('stops an attempt when its signal aborts', async () => {
    const slow = await receiver(() => new Promise((resolve) => setTimeout(() => resolve(200), 2_000)));
    const sender = new WebhookSender();
    const stopping = new AbortController();
    const attempt = sender.send({ url: slow.url, events: ['*'] }, '{}', stopping.signal);
    setTimeout(() => stopping.abort(), 50);
    const started = Date.now();
    expect(await attempt).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(1_000);
    sender.close();
  });
  it('fails at once with a signal already aborted, and sends nothing', async () => {
    const rx = await receiver();
    const sender = new WebhookSender();
    expect(await sender.send({ url: rx.url, events: ['*'] }, '{}', AbortSignal.abort())).toBe('aborted');
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
      for (let i = 0; i < 5; i++) expect(await sender.send({ url, events: ['*'] }, `{"n":${i}}`)).toBeNull();
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
    expect(await sender.send({ url: slow.url, events: ['*'] }, '{}')).toBe('timeout after 100 ms');
    expect(Date.now() - started).toBeLessThan(1_000);
    sender.close();
  });
});
