import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { readConfig } from '../src/config.js';
import { ADMIN_KEY, startGateway, type TestGateway } from './support/gateway.js';

let gw: TestGateway | null = null;
afterEach(async () => {
  await gw?.close();
  gw = null;
});

const BUILT = existsSync(fileURLToPath(new URL('../../dashboard/dist/index.html', import.meta.url)));

describe('GET /api/keys/me: the calling key and what it may do', () => {
  it('answers each kind of key with the permissions the access rules give it', async () => {
    gw = await startGateway();
    expect((await gw.api('POST', '/api/sessions', { name: 'mine', start: false })).status).toBe(201);
    const make = async (body: Record<string, unknown>, path = '/api/keys') => {
      const res = await gw!.api('POST', path, body);
      expect(res.status).toBe(201);
      return res.body.key as string;
    };
    const readOnly = await make({ actions: { read: true } });
    const own = await make({ session: 'mine' });
    const control = await make({ session: 'mine' }, '/api/keys/control');
    const media = await make({ session: 'mine' }, '/api/keys/media');

    const me = async (key: string) => {
      const res = await gw!.api('GET', '/api/keys/me', undefined, key);
      expect(res.status).toBe(200);
      expect(res.body.key).toBeUndefined();
      return res.body;
    };
    const all = { sessions: true, read: true, send: true, control: true, setting: true, delete: true, events: true };
    expect(await me(ADMIN_KEY)).toEqual({
      id: 'admin',
      kind: 'admin',
      isAdmin: true,
      isActive: true,
      session: null,
      actions: null,
      permissions: { ...all, keys: true },
    });
    expect(await me(readOnly)).toMatchObject({
      kind: 'general',
      session: null,
      actions: { read: true },
      permissions: { sessions: true, read: true, send: false, control: false, setting: false, delete: false, events: true, keys: false },
    });
    expect(await me(own)).toMatchObject({ kind: 'general', session: 'mine', permissions: { ...all, keys: false } });
    expect(await me(control)).toMatchObject({
      kind: 'control',
      session: 'mine',
      permissions: { sessions: true, read: false, send: false, control: true, setting: false, delete: false, events: false, keys: false },
    });
    expect((await me(media)).permissions).toEqual({
      sessions: false,
      read: false,
      send: false,
      control: false,
      setting: false,
      delete: false,
      events: false,
      keys: false,
    });
    expect((await gw.api('GET', '/api/keys/me', undefined, null)).status).toBe(401);
    expect((await gw.api('GET', '/api/keys/me', undefined, 'wrong')).status).toBe(401);
  });
});

describe('/ws takes the key as a subprotocol, so a browser need not put it in a URL', () => {
  /** Opens /ws offering `protocols`; closes it itself once open unless the server did first. */
  const open = (url: string, protocols: string[], closeWhenOpen: boolean) =>
    new Promise<{ protocol: string; closed: number; reason: string }>((resolve) => {
      const socket = new WebSocket(`${url.replace('http', 'ws')}/ws?session=*`, protocols);
      socket.once('open', () => closeWhenOpen && socket.close(4000, 'done'));
      socket.once('close', (code, reason) => resolve({ protocol: socket.protocol, closed: code, reason: reason.toString() }));
      socket.once('error', () => {});
    });
  const offer = (key: string) => ['switchboard', `x-api-key.b64.${Buffer.from(key).toString('base64url')}`];

  it('opens with the right key, answering `switchboard` and never the key; closes 1008 with a wrong one', async () => {
    gw = await startGateway();
    expect(await open(gw.url, offer(ADMIN_KEY), true)).toEqual({ protocol: 'switchboard', closed: 4000, reason: 'done' });
    expect(await open(gw.url, offer('wrong'), false)).toMatchObject({ closed: 1008, reason: 'invalid API key' });
    // A client's own subprotocol is still answered as before (the first offered), the key never.
    expect(await open(gw.url, ['chat.v1'], true)).toMatchObject({ protocol: 'chat.v1' });
    const keyOnly = `x-api-key.b64.${Buffer.from(ADMIN_KEY).toString('base64url')}`;
    expect(await open(gw.url, [keyOnly, 'chat.v1'], true)).toEqual({ protocol: 'chat.v1', closed: 4000, reason: 'done' });
  });
});

describe('/dashboard', () => {
  it.runIf(BUILT)('serves the built page with a CSP that allows only this origin', async () => {
    gw = await startGateway();
    for (const path of ['/dashboard', '/dashboard/']) {
      const res = await fetch(`${gw.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'; script-src 'self'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const html = await res.text();
      const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(script).toBeDefined();
      const js = await fetch(`${gw.url}${script}`);
      expect(js.status).toBe(200);
      expect(js.headers.get('cache-control')).toContain('immutable');
    }
    // The API keeps its own headers: the CSP is the page's.
    expect((await fetch(`${gw.url}/health`)).headers.get('content-security-policy')).toBeNull();
  });

  it('is off with SWITCHBOARD_DASHBOARD=false', async () => {
    gw = await startGateway({ dashboard: false });
    expect((await fetch(`${gw.url}/dashboard`)).status).toBe(404);
    expect(readConfig({ SWITCHBOARD_DASHBOARD: 'false' }).dashboard).toBe(false);
    expect(readConfig({}).dashboard).toBe(true);
    expect(() => readConfig({ SWITCHBOARD_DASHBOARD: 'no' })).toThrow(/SWITCHBOARD_DASHBOARD/);
  });
});
