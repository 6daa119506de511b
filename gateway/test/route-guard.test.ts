import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { SESSIONS_LIST } from '../src/auth/access.js';
import { hashApiKey } from '../src/auth/api-key.js';
import { ApiKeyAuthenticator } from '../src/auth/authenticator.js';
import { KeyRing } from '../src/auth/key-ring.js';
import { installRouteGuard } from '../src/auth/route-guard.js';
import { installErrorHandling } from '../src/http/errors.js';

async function listen(app: ReturnType<typeof guardedApp>) {
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return (method: string, path: string, key?: string) =>
    fetch(url + path, { method, headers: key ? { 'x-api-key': key } : {} }).then((res) => res.status);
}

function guardedApp() {
  const app = Fastify();
  installErrorHandling(app);
  app.decorateRequest('principal', null);
  installRouteGuard(app, new ApiKeyAuthenticator(hashApiKey('admin-key'), new KeyRing()));
  return app;
}

describe('part 5: every /api route declares its access', () => {
  it('registering an /api route without config.access fails at start-up, naming the route', async () => {
    const app = guardedApp();
    app.register(async (scope) => {
      scope.post('/api/forgotten', async () => ({}));
    });
    await expect(app.ready()).rejects.toThrow('POST /api/forgotten declares no access');
  });

  it('routes outside /api need no declaration and get no key check', async () => {
    const app = guardedApp();
    app.get('/health', async () => ({ ok: true }));
    app.get('/api', { config: SESSIONS_LIST }, async () => []);
    const status = await listen(app);
    expect(await status('GET', '/health')).toBe(200);
    expect(await status('GET', '/api')).toBe(401);
    expect(await status('GET', '/api', 'admin-key')).toBe(200);
    await app.close();
  });

  it('the HEAD twin of a GET route is checked too', async () => {
    const app = guardedApp();
    app.get('/api/things', { config: SESSIONS_LIST }, async () => []);
    const status = await listen(app);
    expect(await status('HEAD', '/api/things')).toBe(401);
    expect(await status('HEAD', '/api/things', 'admin-key')).toBe(200);
    await app.close();
  });
});
