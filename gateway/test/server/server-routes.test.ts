import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { afterEach, describe, expect, it } from 'vitest';
import { healthRoutes } from '../../src/routes/health.js';
import { serverEnvironment } from '../../src/routes/server.js';
import { startGateway, type TestGateway } from '../support/gateway.js';

// The peer product's Server routes (issue 16): /ping and /health for probes, version, status,
// environment and stop for the admin.

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

describe('GET /ping and GET /health', () => {
  it('answer without a key, as load balancers and Kubernetes probes call them; /health lists each check up', async () => {
    gw = await startGateway();
    expect(await gw.api('GET', '/ping', undefined, null)).toMatchObject({ status: 200, body: { message: 'pong' } });
    const health = await gw.api('GET', '/health', undefined, null);
    expect(health.status).toBe(200);
    expect(health.body).toEqual({
      status: 'ok',
      info: { database: { status: 'up' }, history: { status: 'up' } },
      error: {},
      details: { database: { status: 'up' }, history: { status: 'up' } },
    });
  });

  it('/health is 503 naming each check that is down and why', async () => {
    const app = Fastify();
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    await app.register(healthRoutes, {
      checks: {
        database: () => undefined,
        nats: () => {
          throw new Error('the NATS connection is closed');
        },
      },
    });
    const res = await app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({
      status: 'error',
      info: { database: { status: 'up' } },
      error: { nats: { status: 'down', message: 'the NATS connection is closed' } },
      details: { database: { status: 'up' }, nats: { status: 'down', message: 'the NATS connection is closed' } },
    });
    await app.close();
  });
});

describe('GET /api/server/version, /api/version, /api/server/status', () => {
  it('say the version, default engine, tier, browser, platform and the answering host, to the admin only', async () => {
    gw = await startGateway();
    const version = await gw.api('GET', '/api/server/version');
    expect(version.status).toBe(200);
    expect(version.body).toEqual({
      version: expect.stringMatching(/^\d{4}\.\d+\.\d+$/),
      engine: 'SANDBOX',
      tier: 'CORE',
      browser: expect.any(String),
      platform: `${process.platform}/${process.arch}`,
      worker: { id: expect.any(String) },
    });
    expect((await gw.api('GET', '/api/version')).body).toEqual(version.body);
    const status = await gw.api('GET', '/api/server/status');
    expect(status.body).toEqual({ startTimestamp: expect.any(Number), uptime: expect.any(Number), worker: version.body.worker });
    expect(status.body.startTimestamp + status.body.uptime).toBeLessThanOrEqual(Date.now());
    const { body: key } = await gw.api('POST', '/api/keys', {});
    for (const path of ['/api/server/version', '/api/version', '/api/server/status', '/api/server/environment']) {
      expect((await gw.api('GET', path, undefined, key.key)).status, path).toBe(403);
      expect((await gw.api('GET', path, undefined, null)).status, path).toBe(401);
    }
  });
});

describe('GET /api/server/environment', () => {
  it('lists its own settings with secrets masked; with all, the other variables by name only', () => {
    const env = {
      SWITCHBOARD_DEFAULT_ENGINE: 'NOWEB',
      SWITCHBOARD_API_KEY: 'sb_secret',
      SWITCHBOARD_HOOK_HMAC_KEY: 'hmac',
      SWITCHBOARD_HOOK_CUSTOM_HEADERS: 'Authorization:Bearer x',
      SWITCHBOARD_NATS_CREDS: 'creds',
      SWITCHBOARD_HOOK_URL: 'https://user:pass@example.test/',
      HOME: '/root',
    };
    expect(serverEnvironment(env, false)).toEqual({
      SWITCHBOARD_API_KEY: '***',
      SWITCHBOARD_DEFAULT_ENGINE: 'NOWEB',
      SWITCHBOARD_HOOK_CUSTOM_HEADERS: '***',
      SWITCHBOARD_HOOK_HMAC_KEY: '***',
      SWITCHBOARD_HOOK_URL: '***',
      SWITCHBOARD_NATS_CREDS: '***',
    });
    expect(serverEnvironment(env, true)).toMatchObject({ HOME: '***', SWITCHBOARD_DEFAULT_ENGINE: 'NOWEB' });
  });

  it('answers the admin with the process environment; all must be a boolean', async () => {
    gw = await startGateway();
    const res = await gw.api('GET', '/api/server/environment?all=true');
    expect(res.status).toBe(200);
    expect(Object.values(res.body).every((value) => typeof value === 'string')).toBe(true);
    const bad = await gw.api('GET', '/api/server/environment?all=maybe');
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].path).toBe('querystring.all');
  });
});

describe('POST /api/server/stop', () => {
  it('answers 201 {stopping: true} to the admin, then asks what runs the gateway to stop it (force as given)', async () => {
    const asked: boolean[] = [];
    gw = await startGateway({ onStopRequested: (force) => asked.push(force) });
    const { body: key } = await gw.api('POST', '/api/keys', {});
    expect((await gw.api('POST', '/api/server/stop', {}, key.key)).status).toBe(403);
    expect(asked).toEqual([]);
    expect(await gw.api('POST', '/api/server/stop', {})).toMatchObject({ status: 201, body: { stopping: true } });
    expect(await gw.api('POST', '/api/server/stop', { force: true })).toMatchObject({ status: 201, body: { stopping: true } });
    expect(asked).toEqual([false, true]);
    expect((await gw.api('POST', '/api/server/stop', { force: 'yes' })).status).toBe(400);
  });

  it('with nothing else to ask, the gateway closes itself: it answers, then serves no more', async () => {
    gw = await startGateway();
    expect((await gw.api('POST', '/api/server/stop', {})).status).toBe(201);
    const refused = async () =>
      gw!.api('GET', '/ping').then(
        () => false,
        () => true,
      );
    await expect.poll(refused, { timeout: 5_000 }).toBe(true);
  });
});

describe('GET /api/server/debug/cpu and /heapsnapshot', () => {
  it('are not served unless SWITCHBOARD_DEBUG_ROUTES is true', async () => {
    gw = await startGateway();
    for (const path of ['/api/server/debug/cpu?seconds=1', '/api/server/debug/heapsnapshot']) {
      expect((await gw.api('GET', path)).status, path).toBe(404);
    }
  });

  it('when enabled, answer the admin a CPU profile and a heap snapshot of the process; other keys 403', async () => {
    gw = await startGateway({ debugRoutes: true });
    const { body: key } = await gw.api('POST', '/api/keys', {});
    expect((await gw.api('GET', '/api/server/debug/heapsnapshot', undefined, key.key)).status).toBe(403);
    expect((await gw.api('GET', '/api/server/debug/cpu?seconds=1', undefined, key.key)).status).toBe(403);
    const cpu = await gw.api('GET', '/api/server/debug/cpu?seconds=1');
    expect(cpu.status).toBe(200);
    expect(cpu.headers.get('content-disposition')).toMatch(/\.cpuprofile"$/);
    expect(cpu.body).toMatchObject({ nodes: expect.any(Array), startTime: expect.any(Number), endTime: expect.any(Number) });
    const bad = await gw.api('GET', '/api/server/debug/cpu?seconds=0');
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].path).toBe('querystring.seconds');
    const heap = await fetch(`${gw.url}/api/server/debug/heapsnapshot`, { headers: { 'x-api-key': 'test-admin-key-0123456789' } });
    expect(heap.status).toBe(200);
    expect(heap.headers.get('content-disposition')).toMatch(/\.heapsnapshot"$/);
    const snapshot = JSON.parse(await heap.text()) as { snapshot: { meta: unknown } };
    expect(snapshot.snapshot.meta).toBeDefined();
    // A snapshot of a test worker is large: on a loaded 2-core machine it takes most of 20 s.
  }, 120_000);
});
