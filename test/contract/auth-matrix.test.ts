import { OAuthIssuer } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, type ContractGateway, startGateway } from './harness.js';

/**
 * Part 5 as a matrix: every /api operation of the live server's OpenAPI document, called with
 * every kind of caller. Each operation documents what a key may do there as `x-access`
 * (gateway/src/auth/access.ts), so a route added later is in the matrix without a change here.
 */

interface Access {
  kind: 'admin' | 'sessions.list' | 'session' | 'self';
  action?: 'read' | 'control' | 'manage' | 'use' | 'media';
  from?: 'params.session' | 'body.session' | 'query.session' | 'body.name';
}

interface Operation {
  method: string;
  path: string;
  access: Access;
  hasBody: boolean;
  security: Record<string, string[]>[] | undefined;
}

type Outcome = 'unauthenticated' | 'forbidden' | 'allowed' | 'refused';

/** The session every scoped key belongs to, and the one a limited general key is limited to instead. */
const SESSION = 'matrix';
const OTHER = 'matrix-other';

let gw: ContractGateway;
let issuer: OAuthIssuer;
let operations: Operation[];
const keys: Record<'general' | 'generalOwn' | 'generalOther' | 'media' | 'control', string> = {} as never;

beforeAll(async () => {
  issuer = await OAuthIssuer.start();
  gw = await startGateway({ oauth: issuer.settings });
  const created = await gw.api('POST', '/api/sessions', { name: SESSION, start: false });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  keys.general = await make('/api/keys', {});
  keys.generalOther = await make('/api/keys', { session: OTHER });
  await keysOfSession();

  const docs = await gw.api('GET', '/docs/openapi.json', undefined, null);
  if (docs.status !== 200) throw new Error(`GET /docs/openapi.json: ${docs.status} ${JSON.stringify(docs.body)}`);
  const doc = docs.body;
  operations = [];
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    if (!path.startsWith('/api')) continue;
    for (const [method, op] of Object.entries<any>(item)) {
      operations.push({ method: method.toUpperCase(), path, access: op['x-access'], hasBody: op.requestBody !== undefined, security: op.security });
    }
  }
});
afterAll(async () => {
  await gw?.close();
  await issuer?.close();
});

async function make(path: string, body: unknown): Promise<string> {
  const res = await gw.api('POST', path, body);
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.key as string;
}

/** The keys limited to `SESSION`, made anew: deleting a session deletes them (docs/api.md). */
async function keysOfSession(): Promise<void> {
  keys.generalOwn = await make('/api/keys', { session: SESSION });
  keys.media = await make('/api/keys/media', { session: SESSION });
  keys.control = await make('/api/keys/control', { session: SESSION });
}

/** The operations that delete the session they name, and with it the keys limited to it. */
const DELETES_SESSION = new Set(['DELETE /api/sessions/{session}', 'POST /api/sessions/logout']);

/** One request to the operation, naming `SESSION` where the route reads its session. */
function request(op: Operation): { url: string; body: unknown } {
  let url = op.path.replace('{session}', SESSION).replace(/\{[^}]+\}/g, 'x');
  let body: Record<string, unknown> | undefined = op.hasBody ? {} : undefined;
  if (op.access.from === 'query.session') url += `?session=${SESSION}`;
  if (op.access.from === 'body.session') body = { session: SESSION };
  // `start: false` keeps a create from starting an engine; bodies without that field drop it.
  if (op.access.from === 'body.name') body = { name: SESSION, start: false };
  // A stop carried out would end the gateway under the matrix: a body it refuses (400) still
  // shows whether the caller got past the key check.
  if (`${op.method} ${op.path}` === 'POST /api/server/stop') body = { force: 'not a boolean' };
  return { url, body };
}

async function call(op: Operation, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const { url, body } = request(op);
  const res = await fetch(gw.url + url, {
    method: op.method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
}

function outcomeOf(status: number): Outcome {
  if (status === 401) return 'unauthenticated';
  if (status === 403) return 'forbidden';
  return 'allowed';
}

/**
 * Runs every operation for one caller; answers the mismatches, so a failure lists them all.
 * `headers` is read for each operation: once an operation has deleted the session, the session
 * and its keys are made again, and a caller with such a key goes on with the new one.
 */
async function mismatches(headers: () => Record<string, string>, expected: (access: Access) => Outcome): Promise<string[]> {
  const wrong: string[] = [];
  for (const op of operations) {
    const want = expected(op.access);
    const res = await call(op, headers());
    const got = outcomeOf(res.status);
    const ok = want === 'refused' ? got !== 'allowed' : got === want;
    if (!ok)
      wrong.push(`${op.method} ${op.path} (${JSON.stringify(op.access)}): want ${want}, got ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`);
    if (got === 'allowed' && DELETES_SESSION.has(`${op.method} ${op.path}`)) {
      expect((await gw.api('POST', '/api/sessions', { name: SESSION, start: false })).status).toBe(201);
      await keysOfSession();
    }
  }
  return wrong;
}

const key = (name: keyof typeof keys) => () => ({ 'x-api-key': keys[name] });
const isSessionAction = (access: Access, ...actions: string[]) => access.kind === 'session' && actions.includes(access.action!);

describe('part 5: every /api operation documents its access', () => {
  it('the document lists the operations, each with x-access and the api_key security requirement', () => {
    expect(operations.length).toBeGreaterThan(20);
    for (const path of ['/api/keys', '/api/sessions', '/api/sendText']) expect(operations.some((op) => op.path === path)).toBe(true);
    const undocumented = operations.filter((op) => !op.access || !op.security?.some((requirement) => 'api_key' in requirement));
    expect(undocumented.map((op) => `${op.method} ${op.path}`)).toEqual([]);
  });

  it('only GET /api/sessions also accepts an OAuth 2.0 token with scope read:items', () => {
    const oauth = operations.filter((op) => op.security?.some((requirement) => 'oauth2' in requirement));
    expect(oauth.map((op) => `${op.method} ${op.path}`)).toEqual(['GET /api/sessions']);
    expect(oauth[0]!.security).toContainEqual({ oauth2: ['read:items'] });
  });
});

describe('part 5: the auth matrix over every /api operation', () => {
  it('no key: 401 everywhere', async () => {
    expect(
      await mismatches(
        () => ({}),
        () => 'unauthenticated',
      ),
    ).toEqual([]);
  });

  it('a wrong key: 401 everywhere', async () => {
    expect(
      await mismatches(
        () => ({ 'x-api-key': 'sb_not-a-key-of-this-server' }),
        () => 'unauthenticated',
      ),
    ).toEqual([]);
  });

  it('the admin key: never 401 or 403', async () => {
    expect(
      await mismatches(
        () => ({ 'x-api-key': ADMIN_KEY }),
        () => 'allowed',
      ),
    ).toEqual([]);
  });

  it('a general key for all sessions: everything but key management', async () => {
    expect(await mismatches(key('general'), (a) => (a.kind === 'admin' ? 'forbidden' : 'allowed'))).toEqual([]);
  });

  it('a general key limited to its session: that session and the session list', async () => {
    expect(await mismatches(key('generalOwn'), (a) => (a.kind === 'admin' ? 'forbidden' : 'allowed'))).toEqual([]);
  });

  it('a general key limited to another session: 403 for every session route and key management', async () => {
    expect(await mismatches(key('generalOther'), (a) => (a.kind === 'sessions.list' || a.kind === 'self' ? 'allowed' : 'forbidden'))).toEqual([]);
  });

  it('a control key: read and control routes of its session and the session list, 403 elsewhere', async () => {
    const expected = (a: Access): Outcome =>
      a.kind === 'sessions.list' || a.kind === 'self' || isSessionAction(a, 'read', 'control') ? 'allowed' : 'forbidden';
    expect(await mismatches(key('control'), expected)).toEqual([]);
  });

  it('a media key: media routes of its session only, 403 elsewhere', async () => {
    expect(await mismatches(key('media'), (a) => (a.kind === 'self' || isSessionAction(a, 'media') ? 'allowed' : 'forbidden'))).toEqual([]);
  });

  it('an OAuth 2.0 token with scope read:items: the session list only', async () => {
    const token = await issuer.token({ scope: 'read:items' });
    const expected = (a: Access): Outcome => (a.kind === 'sessions.list' ? 'allowed' : 'refused');
    expect(await mismatches(() => ({ authorization: `Bearer ${token}` }), expected)).toEqual([]);
  });
});

describe('part 5: a key limited to a session sees only that session in the list', () => {
  it.each([
    ['general key limited to the session', () => keys.generalOwn, [SESSION]],
    ['control key of the session', () => keys.control, [SESSION]],
    ['general key limited to another session', () => keys.generalOther, []],
  ])('%s', async (_name, keyOf, names) => {
    // The matrix may have deleted the session: whatever it left, both exist now (422 if they did).
    for (const name of [SESSION, 'matrix-visible']) await gw.api('POST', '/api/sessions', { name, start: false });
    const all = await gw.api('GET', '/api/sessions?all=true');
    expect(all.body.map((s: { name: string }) => s.name)).toEqual(expect.arrayContaining([SESSION, 'matrix-visible']));
    const limited = await gw.api('GET', '/api/sessions?all=true', undefined, keyOf());
    expect(limited.status).toBe(200);
    expect(limited.body.map((s: { name: string }) => s.name)).toEqual(names);
  });

  it('a media key may not list sessions (403 naming its session)', async () => {
    const res = await gw.api('GET', '/api/sessions', undefined, keys.media);
    expect(res.status).toBe(403);
    expect(res.body.message).toContain(`'${SESSION}'`);
  });

  it('the 403 of a limited key names the session it is limited to', async () => {
    const res = await gw.api('GET', `/api/sessions/${SESSION}`, undefined, keys.generalOther);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(`this key is limited to session '${OTHER}'`);
  });
});
