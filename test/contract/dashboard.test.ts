import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, type ContractGateway, startGateway } from './harness.js';

/**
 * What the dashboard stands on, in both modes (issue 18): every gateway serves the page, tells a
 * key what it may do, and lets a browser open /ws with the key out of the URL.
 */
let gw: ContractGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
});

describe('the dashboard and what it stands on', () => {
  it('GET /dashboard: the page, with a CSP that allows only this origin', async () => {
    const res = await fetch(`${gw.url}/dashboard`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await res.text()).toMatch(/<script type="module" crossorigin src="\/dashboard\/assets\/[^"]+\.js"><\/script>/);
  });

  it('GET /api/keys/me answers each key with its permissions', async () => {
    const admin = await gw.api('GET', '/api/keys/me');
    expect(admin.status).toBe(200);
    expect(admin.body).toMatchObject({ id: 'admin', kind: 'admin', permissions: { keys: true, delete: true, events: true } });
    const made = await gw.api('POST', '/api/keys', { actions: { read: true } });
    expect(made.status).toBe(201);
    const readOnly = await gw.api('GET', '/api/keys/me', undefined, made.body.key);
    expect(readOnly.body).toEqual({
      id: made.body.id,
      kind: 'general',
      isAdmin: false,
      isActive: true,
      session: null,
      actions: { read: true },
      permissions: { sessions: true, read: true, send: false, control: false, setting: false, delete: false, events: true, keys: false },
    });
  });

  it('/ws opens with the key as the x-api-key.b64 subprotocol, answering `switchboard`', async () => {
    // Node's own WebSocket, the browser's API: protocols are all a browser can send.
    const protocol = await new Promise<string>((resolve, reject) => {
      const socket = new WebSocket(`${gw.url.replace('http', 'ws')}/ws?session=*`, [
        'switchboard',
        `x-api-key.b64.${Buffer.from(ADMIN_KEY).toString('base64url')}`,
      ]);
      socket.onopen = () => {
        resolve(socket.protocol);
        socket.close();
      };
      socket.onclose = (close) => reject(new Error(`closed ${close.code} ${close.reason}`));
    });
    expect(protocol).toBe('switchboard');
  });
});
