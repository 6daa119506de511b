import { OAuthIssuer } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContractGateway, startGateway } from './harness.js';

/** Spec part 5: an OAuth 2.0 token with scope `read:items` may list sessions, and do nothing else. */
let gw: ContractGateway;
let issuer: OAuthIssuer;
beforeAll(async () => {
  issuer = await OAuthIssuer.start();
  gw = await startGateway({ oauth: issuer.settings });
  await gw.api('POST', '/api/sessions', { name: 'oauth1', start: false });
});
afterAll(async () => {
  await gw?.close();
  await issuer?.close();
});

async function withBearer(token: string, path = '/api/sessions?all=true', method = 'GET') {
  const res = await fetch(gw.url + path, { method, headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as any };
}

describe('part 5: OAuth 2.0 bearer tokens', () => {
  it('a token with scope read:items lists sessions', async () => {
    const res = await withBearer(await issuer.token({ scope: 'openid read:items' }));
    expect(res.status).toBe(200);
    expect(res.body.map((s: { name: string }) => s.name)).toContain('oauth1');
  });

  it('takes the scopes from an `scp` list as well', async () => {
    const res = await withBearer(await issuer.token({ claims: { scp: ['read:items'] } }));
    expect(res.status).toBe(200);
  });

  it('a token without scope read:items: 403 naming the scope', async () => {
    const res = await withBearer(await issuer.token({ scope: 'write:items' }));
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('read:items');
  });

  it.each([
    ['another audience', { audience: 'someone-else' }, 'aud'],
    ['another issuer', { issuer: 'https://issuer.invalid' }, 'iss'],
    ['an expired token', { expiresIn: -120 }, 'exp'],
    ['a key the issuer does not publish', { foreignKey: true }, 'signature'],
    ['a token without exp', { expiresIn: null }, '"exp" claim'],
    ['a token without iat', { issuedAt: null }, '"iat" claim'],
    ['a token older than the maximum age (a day by default), though its exp is later', { issuedAt: -86_400 - 120, expiresIn: 3600 }, '"iat"'],
    ['a token issued in the future', { issuedAt: 600 }, '"iat"'],
  ])('%s: 401', async (_name, options, reason) => {
    const res = await withBearer(await issuer.token({ scope: 'read:items', ...options }));
    expect(res.status).toBe(401);
    expect(res.body.message).toContain('invalid bearer token');
    expect(res.body.message).toContain(reason);
  });

  it.each([
    ['unsigned (alg none)', 'none'],
    ['HS256 with the published public key as the secret', 'HS256'],
  ] as const)('a token %s: 401', async (_name, forge) => {
    const res = await withBearer(await issuer.token({ scope: 'read:items', forge }));
    expect(res.status).toBe(401);
    expect(res.body.message).toContain('invalid bearer token');
  });

  it('a string that is not a JWT: 401', async () => {
    expect((await withBearer('not.a.jwt')).status).toBe(401);
  });

  it('a good token on any other route: 401, telling to use an API key', async () => {
    const token = await issuer.token({ scope: 'read:items' });
    for (const [method, path] of [
      ['GET', '/api/sessions/oauth1'],
      ['POST', '/api/sessions/oauth1/start'],
      ['GET', '/api/keys'],
    ] as const) {
      const res = await withBearer(token, path, method);
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body.message).toContain('X-Api-Key');
    }
  });

  it('fetched the signing keys once for all the tokens above, and kept them', () => {
    expect(issuer.jwksRequests).toBe(1);
  });

  it('the OpenAPI document declares the oauth2 scheme for GET /api/sessions', async () => {
    const doc = (await gw.api('GET', '/docs/openapi.json', undefined, null)).body;
    expect(doc.components.securitySchemes.oauth2).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(doc.paths['/api/sessions'].get.security).toEqual([{ api_key: [] }, { oauth2: ['read:items'] }]);
  });
});
