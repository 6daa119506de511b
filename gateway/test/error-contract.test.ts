import { request } from 'node:http';
import { EVENT_NAMES } from '@switchboard/protocol';
import { waitFor, WsClient } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startGateway, type TestGateway } from './support/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw.close();
});

/** The one error body of docs/api.md, "Errors": these keys and no others. */
function expectErrorBody(body: unknown, status: number, error: string): void {
  expect(body).toMatchObject({ statusCode: status, error, message: expect.any(String) });
  expect(Object.keys(body as object).every((key) => ['statusCode', 'error', 'message', 'details'].includes(key))).toBe(true);
}

/** A raw request (fetch normalizes some of what these tests send), answered status and JSON body. */
function raw(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: unknown }> {
  const url = new URL(gw.url + path);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { 'x-api-key': ADMIN_KEY, ...(body === undefined ? {} : { 'content-length': Buffer.byteLength(body) }), ...headers },
      },
      (res) => {
        let text = '';
        res
          .on('data', (chunk) => (text += chunk))
          .on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('framework errors keep the error contract (issue 12, item 24)', () => {
  it('a path parameter over 100 characters is a 414 in the one error body', async () => {
    const res = await raw('GET', `/api/sessions/${'a'.repeat(101)}`);
    expect(res.status).toBe(414);
    expectErrorBody(res.body, 414, 'URI Too Long');
    expect((res.body as { message: string }).message).toContain('100');
  });

  it('a method the path does not serve is a 405 naming the allowed ones in Allow', async () => {
    const res = await raw('PATCH', '/api/sessions');
    expect(res.status).toBe(405);
    expectErrorBody(res.body, 405, 'Method Not Allowed');
    expect(String(res.headers['allow']).split(', ')).toEqual(expect.arrayContaining(['GET', 'POST']));
    const withBody = await raw('DELETE', '/api/sendText', { 'content-type': 'application/json' }, '{}');
    expect(withBody).toMatchObject({ status: 405, headers: { allow: 'GET, HEAD, POST' } });
    // A path no route has stays a 404.
    expect((await raw('PATCH', '/api/no/such/route/here')).status).toBe(404);
  });

  it('a request line and headers over 16 KiB are a 431 in the one error body, saying the limit', async () => {
    const res = await raw('GET', `/api/sessions?all=${'1'.repeat(20_000)}`);
    expect(res.status).toBe(431);
    expectErrorBody(res.body, 431, 'Request Header Fields Too Large');
    expect((res.body as { message: string }).message).toContain('16384');
  });

  it('the OpenAPI document lists 413, 414, 415 and 431 where they can happen', async () => {
    const doc = (await gw.api('GET', '/docs/openapi.json')).body;
    const statuses = (path: string, method: string) => Object.keys(doc.paths[path][method].responses);
    expect(statuses('/api/sendText', 'post')).toEqual(expect.arrayContaining(['413', '415', '431']));
    expect(statuses('/api/sessions/{session}', 'get')).toEqual(expect.arrayContaining(['414', '431']));
    expect(statuses('/api/sessions', 'get')).not.toContain('413');
  });
});

describe('errors name what is allowed (issue 12, item 18)', () => {
  it('an unknown webhook event name is a 400 listing the valid names', async () => {
    const res = await gw.api('POST', '/api/sessions', {
      name: 'ev',
      start: false,
      config: { webhooks: [{ url: 'http://127.0.0.1:9/', events: ['mesage'] }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('body.config.webhooks[0].events[0]');
    for (const name of ['*', ...EVENT_NAMES]) expect(res.body.details[0].reason).toContain(name);
  });

  it('an unknown /ws event name closes 1008 with a reason that fits 123 bytes and says where the names are', async () => {
    const ws = await WsClient.connect(gw.url, `x-api-key=${ADMIN_KEY}&events=message&events=${encodeURIComponent('mesäge'.repeat(30))}`);
    await waitFor(() => ws.closed, 'close');
    expect(ws.closed?.code).toBe(1008);
    const reason = ws.closed?.reason ?? '';
    expect(Buffer.byteLength(reason)).toBeLessThanOrEqual(123);
    expect(reason).toContain('mesäge');
    expect(reason).toContain('EventName in /docs/openapi.json');
  });

  it('a body over the limit is a 413 that says the limit', async () => {
    const res = await gw.api('POST', '/api/sessions', { name: 'big', config: { metadata: { x: 'y'.repeat(1_100_000) } } });
    expect(res.status).toBe(413);
    expect(res.body.message).toContain('1 MiB');
    expect(res.body.details).toEqual({ limit: 1024 * 1024 });
  });

  it('Content-Type: text/plain is the 415 docs/api.md promises, and creates nothing', async () => {
    const res = await raw('POST', '/api/sessions', { 'content-type': 'text/plain' }, JSON.stringify({ name: 'plain' }));
    expect(res.status).toBe(415);
    expectErrorBody(res.body, 415, 'Unsupported Media Type');
    expect((await gw.api('GET', '/api/sessions/plain')).status).toBe(404);
  });
});
