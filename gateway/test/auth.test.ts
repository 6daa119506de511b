import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { waitFor, WsClient } from '@switchboard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from './support/gateway.js';

let gw: TestGateway | null = null;
afterEach(async () => {
  await gw?.close();
  gw = null;
});

describe('part 5: API keys on /api', () => {
  it('answers 401 without a key and with a wrong key, 200 with the admin key', async () => {
    gw = await startGateway();
    const none = await gw.api('GET', '/api/sessions', undefined, null);
    expect(none.status).toBe(401);
    expect(none.body.message).toContain('X-Api-Key');
    expect((await gw.api('GET', '/api/sessions', undefined, 'wrong')).status).toBe(401);
    expect((await gw.api('GET', '/api/sessions')).status).toBe(200);
  });

  it('checks the key before validating input, so a stranger learns nothing', async () => {
    gw = await startGateway();
    const res = await gw.api('POST', '/api/sessions', { name: '!!' }, 'wrong');
    expect(res.status).toBe(401);
  });

  it('accepts SWITCHBOARD_API_KEY given as sha512:<hex> of the key', async () => {
    const key = 'my-own-key';
    gw = await startGateway({ apiKey: `sha512:${createHash('sha512').update(key).digest('hex')}` });
    expect((await gw.api('GET', '/api/sessions', undefined, key)).status).toBe(200);
    expect((await gw.api('GET', '/api/sessions', undefined, 'sha512:whatever')).status).toBe(401);
  });

  it('without SWITCHBOARD_API_KEY generates a key once, stores only its hash, and keeps it across restarts', async () => {
    gw = await startGateway({ apiKey: undefined });
    const generated = gw.gateway.adminKey.generated;
    expect(generated).toMatch(/^sb_[A-Za-z0-9_-]{43}$/);
    expect((await gw.api('GET', '/api/sessions', undefined, generated)).status).toBe(200);
    const dataDir = gw.dataDir;
    await gw.close();

    const db = new DatabaseSync(join(dataDir, 'switchboard.db'));
    const rows = db.prepare('SELECT hash FROM api_keys').all() as { hash: string }[];
    db.close();
    expect(rows).toEqual([{ hash: `sha512:${createHash('sha512').update(generated!).digest('hex')}` }]);
    for (const file of readdirSync(dataDir).filter((f) => f.startsWith('switchboard.db'))) {
      expect(readFileSync(join(dataDir, file)).includes(generated!)).toBe(false);
    }

    gw = await startGateway({ apiKey: undefined, dataDir });
    expect(gw.gateway.adminKey.generated).toBeUndefined();
    expect((await gw.api('GET', '/api/sessions', undefined, generated)).status).toBe(200);
  });
});

describe('part 5: API key on /ws', () => {
  it('closes with 1008 for a missing or wrong x-api-key', async () => {
    gw = await startGateway();
    for (const query of ['session=*', 'x-api-key=wrong']) {
      const ws = await WsClient.connect(gw.url, query);
      await waitFor(() => ws.closed, 'close');
      expect(ws.closed?.code).toBe(1008);
    }
  });

  it('closes with 1008 naming the bad query parameter', async () => {
    gw = await startGateway();
    const ws = await WsClient.connect(gw.url, 'x-api-key=test-admin-key-0123456789&events=bogus');
    await waitFor(() => ws.closed, 'close');
    expect(ws.closed).toMatchObject({ code: 1008 });
    expect(ws.closed?.reason).toContain('events');
  });
});

describe('part 5: which keys may open /ws', () => {
  const connect = async (key: string, query: string) => WsClient.connect(gw!.url, `x-api-key=${encodeURIComponent(key)}&${query}`);
  const closedWith = async (ws: WsClient) => {
    await waitFor(() => ws.closed, 'close');
    return ws.closed!;
  };

  it('a general key limited to a session may watch that session only (1008 for * or another)', async () => {
    gw = await startGateway();
    await gw.api('POST', '/api/sessions', { name: 'w1', start: false });
    const { body: key } = await gw.api('POST', '/api/keys', { session: 'w1' });

    for (const query of ['session=*', 'session=w2', 'events=*']) {
      const closed = await closedWith(await connect(key.key, query));
      expect(closed.code, query).toBe(1008);
      expect(closed.reason).toContain("limited to session 'w1'");
    }
    const own = await connect(key.key, 'session=w1&events=session.status');
    await gw.api('POST', '/api/sessions/w1/start');
    await waitFor(() => own.events('session.status').length > 0, 'a session.status event of w1');
    expect(own.closed).toBeNull();
    own.close();
  });

  it('media and control keys may not open /ws (1008)', async () => {
    gw = await startGateway();
    await gw.api('POST', '/api/sessions', { name: 'w1', start: false });
    for (const kind of ['media', 'control']) {
      const { body: key } = await gw.api('POST', `/api/keys/${kind}`, { session: 'w1' });
      const closed = await closedWith(await connect(key.key, 'session=w1'));
      expect(closed.code).toBe(1008);
      expect(closed.reason).toContain(`${kind} key`);
    }
  });

  it('a general key for all sessions may watch all of them', async () => {
    gw = await startGateway();
    const { body: key } = await gw.api('POST', '/api/keys', {});
    const ws = await connect(key.key, 'session=*&events=session.status');
    await gw.api('POST', '/api/sessions', { name: 'w3' });
    await waitFor(() => ws.events('session.status').length > 0, 'a session.status event');
    expect(ws.closed).toBeNull();
    ws.close();
  });
});

describe('docs', () => {
  it('serves the OpenAPI document generated from the schemas, and Swagger UI', async () => {
    gw = await startGateway();
    const doc = (await gw.api('GET', '/docs/openapi.json', undefined, null)).body;
    expect(doc.openapi).toBe('3.1.0');
    for (const path of [
      '/api/sessions',
      '/api/sessions/{session}',
      '/api/sessions/{session}/me',
      '/api/sessions/{session}/logout',
      '/api/sessions/start',
      '/api/{session}/auth/qr',
      '/api/{session}/auth/request-code',
      '/api/sendText',
      '/api/{session}/sandbox/simulate',
    ]) {
      expect(doc.paths).toHaveProperty([path]);
    }
    expect(doc.components.securitySchemes.api_key).toEqual({ type: 'apiKey', in: 'header', name: 'X-Api-Key' });
    const create = doc.paths['/api/sessions'].post;
    expect(JSON.stringify(create.requestBody)).toContain('SessionCreateRequest');
    expect(doc.components.schemas.WebhookConfig.properties).toHaveProperty('hmac');
    const ui = await fetch(`${gw.url}/docs`, { redirect: 'follow' });
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('swagger');
  });
});
