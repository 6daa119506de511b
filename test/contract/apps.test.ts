import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContractGateway, startGateway } from './harness.js';

// /api/apps (issue 16): the peer product's CRUD over the apps of sessions (spec 2.3), each change
// a session update, in both modes.

let gw: ContractGateway;
const S = 'apps-a';
const OTHER = 'apps-b';
const calls = (extra: Record<string, unknown> = {}) => ({
  session: S,
  app: 'calls',
  config: { dm: { reject: true, message: 'no calls' } },
  ...extra,
});

beforeAll(async () => {
  gw = await startGateway();
  for (const name of [S, OTHER]) expect((await gw.api('POST', '/api/sessions', { name, engine: 'SANDBOX', start: false })).status).toBe(201);
});
afterAll(async () => {
  await gw.close();
});

describe('/api/apps', () => {
  it('creates a calls app with a made-up id, lists it, gets it by id, and the session has it', async () => {
    const made = await gw.api('POST', '/api/apps', calls());
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      id: expect.stringMatching(/^app_[0-9a-z]{26}$/),
      session: S,
      app: 'calls',
      enabled: true,
      config: { dm: { reject: true, message: 'no calls' }, group: { reject: true } },
    });
    expect((await gw.api('GET', `/api/apps?session=${S}`)).body).toEqual([made.body]);
    expect((await gw.api('GET', `/api/apps/${made.body.id}`)).body).toEqual(made.body);
    const session = await gw.api('GET', `/api/sessions/${S}?expand=apps`);
    expect(session.body.apps).toEqual([expect.objectContaining({ id: made.body.id, app: 'calls' })]);
    expect((await gw.api('GET', `/api/apps?session=${OTHER}`)).body).toEqual([]);
  });

  it('takes the id given; a taken id is a 422 that says only that it is taken, not by which session (issue 26)', async () => {
    expect((await gw.api('POST', '/api/apps', calls({ id: 'calls-1' }))).status).toBe(201);
    const { body: key } = await gw.api('POST', '/api/keys', { session: OTHER });
    const again = await gw.api('POST', '/api/apps', { ...calls({ id: 'calls-1' }), session: OTHER }, key.key);
    expect(again.status).toBe(422);
    expect(again.body.message).toBe("app id 'calls-1' is taken");
    expect(again.body.details).toEqual({ field: 'body.id', id: 'calls-1' });
    expect(JSON.stringify(again.body)).not.toContain(S);
  });

  it('PUT replaces the app of that id; DELETE removes it from its session', async () => {
    const put = await gw.api('PUT', '/api/apps/calls-1', calls({ enabled: false, config: { group: { reject: false } } }));
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ id: 'calls-1', session: S, app: 'calls', enabled: false, config: { dm: { reject: true }, group: { reject: false } } });
    expect((await gw.api('GET', '/api/apps/calls-1')).body).toEqual(put.body);
    const removed = await gw.api('DELETE', '/api/apps/calls-1');
    expect(removed).toMatchObject({ status: 200, body: put.body });
    expect((await gw.api('GET', '/api/apps/calls-1')).status).toBe(404);
    expect((await gw.api('GET', `/api/apps?session=${S}`)).body.map((app: { id: string }) => app.id)).not.toContain('calls-1');
  });

  it('other app kinds are a 422 naming the kinds this build has', async () => {
    for (const app of ['chatwoot', 'mcp']) {
      const res = await gw.api('POST', '/api/apps', { session: S, app, config: { url: 'http://127.0.0.1:1/' } });
      expect(res.status).toBe(422);
      expect(res.body.details).toEqual({ field: 'body.app', app, available: ['calls'] });
    }
  });

  it('404 for an unknown app id or session; 400 naming each bad field', async () => {
    expect((await gw.api('GET', '/api/apps/nope')).body).toMatchObject({ statusCode: 404, details: { id: 'nope' } });
    expect((await gw.api('PUT', '/api/apps/nope', calls())).status).toBe(404);
    expect((await gw.api('DELETE', '/api/apps/nope')).status).toBe(404);
    expect((await gw.api('POST', '/api/apps', { ...calls(), session: 'ghost' })).status).toBe(404);
    const bad = await gw.api('POST', '/api/apps', { session: 'bad name!', app: 'fax', id: 'a b' });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { path: string }) => d.path)).toEqual(expect.arrayContaining(['body.app']));
    const mismatch = await gw.api('PUT', '/api/apps/one', calls({ id: 'two' }));
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.details[0].path).toBe('body.id');
  });

  it('a key limited to another session may not add apps to this one; by id alone, only the admin', async () => {
    const { body: key } = await gw.api('POST', '/api/keys', { session: OTHER });
    expect((await gw.api('POST', '/api/apps', calls(), key.key)).status).toBe(403);
    expect((await gw.api('GET', `/api/apps?session=${S}`, undefined, key.key)).status).toBe(403);
    expect((await gw.api('GET', `/api/apps?session=${OTHER}`, undefined, key.key)).status).toBe(200);
    expect((await gw.api('GET', '/api/apps/any', undefined, key.key)).status).toBe(403);
  });

  it('a calls app that rejects calls on WEBJS is taken: WEBJS declines calls too', async () => {
    expect((await gw.api('POST', '/api/sessions', { name: 'apps-webjs', engine: 'WEBJS', start: false })).status).toBe(201);
    const res = await gw.api('POST', '/api/apps', { ...calls(), session: 'apps-webjs' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ app: 'calls', session: 'apps-webjs', config: { dm: { reject: true } } });
  });
});
