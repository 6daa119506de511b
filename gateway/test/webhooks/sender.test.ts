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
});
