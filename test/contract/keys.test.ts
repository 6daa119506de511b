import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContractGateway, startGateway } from './harness.js';

let gw: ContractGateway;
beforeAll(async () => {
  gw = await startGateway();
  // Media and control keys belong to an existing session; a stopped one is enough.
  for (const name of ['k1', 'k2']) {
    const created = await gw.api('POST', '/api/sessions', { name, start: false });
    if (created.status !== 201) throw new Error(`create ${name}: ${created.status} ${JSON.stringify(created.body)}`);
  }
});
afterAll(async () => {
  await gw?.close();
});

const KEY_ID = /^key_[0-9a-hjkmnp-tv-z]{26}$/;
const SECRET = /^sb_[A-Za-z0-9_-]{43}$/;

async function listed(id: string) {
  const list = await gw.api('GET', '/api/keys');
  expect(list.status).toBe(200);
  return (list.body as { id: string; isActive: boolean; isAdmin: boolean }[]).find((key) => key.id === id);
}

describe('4.2 API keys: create, list, update, delete', () => {
  it('POST /api/keys answers 201 with the secret, which works at once', async () => {
    const res = await gw.api('POST', '/api/keys', { isAdmin: false, session: null, isActive: true });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(KEY_ID),
      key: expect.stringMatching(SECRET),
      isActive: true,
      isAdmin: false,
      session: null,
      actions: null,
      kind: 'general',
    });
    expect((await gw.api('GET', '/api/sessions', undefined, res.body.key)).status).toBe(200);
  });

  it('applies the reference defaults to an empty body: an active general key for all sessions', async () => {
    const res = await gw.api('POST', '/api/keys', {});
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ isActive: true, isAdmin: false, session: null, actions: null });
  });

  it('shows the secret only once: never in the list, nor in an update', async () => {
    const created = await gw.api('POST', '/api/keys', { session: 'k1' });
    const entry = await listed(created.body.id);
    expect(entry).toEqual({ id: created.body.id, isActive: true, isAdmin: false, session: 'k1', actions: null, kind: 'general' });
    expect(JSON.stringify((await gw.api('GET', '/api/keys')).body)).not.toContain(created.body.key);

    const updated = await gw.api('PUT', `/api/keys/${created.body.id}`, { isAdmin: false, session: 'k2', isActive: true });
    expect(updated.status).toBe(200);
    expect(updated.body).not.toHaveProperty('key');
    expect(updated.body).toMatchObject({ id: created.body.id, session: 'k2' });
  });

  it('PUT changes what the key may do; its secret stays the same', async () => {
    const { body: key } = await gw.api('POST', '/api/keys', { session: 'k1' });
    expect((await gw.api('GET', '/api/sessions/k1', undefined, key.key)).status).toBe(200);
    expect((await gw.api('GET', '/api/sessions/k2', undefined, key.key)).status).toBe(403);

    await gw.api('PUT', `/api/keys/${key.id}`, { isAdmin: false, session: 'k2', isActive: true });
    expect((await gw.api('GET', '/api/sessions/k1', undefined, key.key)).status).toBe(403);
    expect((await gw.api('GET', '/api/sessions/k2', undefined, key.key)).status).toBe(200);
  });

  it('an inactive key is refused with 401 until it is activated again', async () => {
    const { body: key } = await gw.api('POST', '/api/keys', { isActive: false });
    const refused = await gw.api('GET', '/api/sessions', undefined, key.key);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toContain('inactive');
    await gw.api('PUT', `/api/keys/${key.id}`, { isAdmin: false, session: null, isActive: true });
    expect((await gw.api('GET', '/api/sessions', undefined, key.key)).status).toBe(200);
  });

  it('DELETE answers 200 and the key stops working; a second DELETE and a PUT answer 404', async () => {
    const { body: key } = await gw.api('POST', '/api/keys', {});
    const deleted = await gw.api('DELETE', `/api/keys/${key.id}`);
    expect(deleted.status).toBe(200);
    expect((await gw.api('GET', '/api/sessions', undefined, key.key)).status).toBe(401);
    expect(await listed(key.id)).toBeUndefined();
    expect((await gw.api('DELETE', `/api/keys/${key.id}`)).status).toBe(404);
    expect((await gw.api('PUT', `/api/keys/${key.id}`, {})).status).toBe(404);
  });

  it('an admin key made here manages keys; a general key may not (403)', async () => {
    const { body: admin } = await gw.api('POST', '/api/keys', { isAdmin: true });
    expect(admin).toMatchObject({ isAdmin: true, kind: 'admin' });
    expect((await gw.api('GET', '/api/keys', undefined, admin.key)).status).toBe(200);
    const made = await gw.api('POST', '/api/keys', {}, admin.key);
    expect(made.status).toBe(201);

    const refused = await gw.api('GET', '/api/keys', undefined, made.body.key);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('admin');
    expect((await gw.api('POST', '/api/keys', { isAdmin: true }, made.body.key)).status).toBe(403);
  });

  it('a general key with actions may do only those (reference SessionActionsDTO)', async () => {
    const { body: key } = await gw.api('POST', '/api/keys', { session: 'k1', actions: { read: true } });
    expect(key.actions).toEqual({ read: true });
    expect((await gw.api('GET', '/api/sessions/k1', undefined, key.key)).status).toBe(200);
    const refused = await gw.api('POST', '/api/sessions/k1/start', undefined, key.key);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain("'control'");
    expect((await gw.api('DELETE', '/api/sessions/k1', undefined, key.key)).status).toBe(403);
  });
});

describe('4.2 API keys: a PUT changes only what it sends', () => {
  it('PUT {} on a key limited to a session and to actions changes nothing: the key is not widened', async () => {
    const { body: key } = await gw.api('POST', '/api/keys', { session: 'k1', actions: { read: true }, isActive: false });
    const res = await gw.api('PUT', `/api/keys/${key.id}`, {});
    expect(res.status).toBe(200);
    const unchanged = { id: key.id, isActive: false, isAdmin: false, session: 'k1', actions: { read: true }, kind: 'general' };
    expect(res.body).toEqual(unchanged);
    expect(await listed(key.id)).toEqual(unchanged);
  });

  it('each field sent changes alone; widening takes an explicit null', async () => {
    const { body: key } = await gw.api('POST', '/api/keys', { session: 'k1', actions: { read: true } });
    expect((await gw.api('PUT', `/api/keys/${key.id}`, { isActive: false })).body).toMatchObject({
      isActive: false,
      session: 'k1',
      actions: { read: true },
    });
    expect((await gw.api('PUT', `/api/keys/${key.id}`, { actions: { read: true, send: true } })).body).toMatchObject({
      isActive: false,
      session: 'k1',
      actions: { read: true, send: true },
    });
    expect((await gw.api('PUT', `/api/keys/${key.id}`, { isActive: true, session: null })).body).toMatchObject({
      isActive: true,
      session: null,
      actions: { read: true, send: true },
    });
    expect((await gw.api('GET', '/api/sessions/k2', undefined, key.key)).status).toBe(200);
    expect((await gw.api('PUT', `/api/keys/${key.id}`, { actions: null })).body).toMatchObject({ session: null, actions: null });
  });

  it('promoting a limited key to admin needs its limits removed explicitly (400 naming them), and changes nothing', async () => {
    const { body: key } = await gw.api('POST', '/api/keys', { session: 'k1', actions: { read: true } });
    const res = await gw.api('PUT', `/api/keys/${key.id}`, { isAdmin: true });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toEqual(['body.session', 'body.actions']);
    expect(await listed(key.id)).toMatchObject({ isAdmin: false, session: 'k1' });
    const promoted = await gw.api('PUT', `/api/keys/${key.id}`, { isAdmin: true, session: null, actions: null });
    expect(promoted.body).toMatchObject({ isAdmin: true, kind: 'admin', session: null, actions: null });
  });

  it('a media key is paused by sending isActive alone', async () => {
    expect((await gw.api('POST', '/api/sessions', { name: 'k3', start: false })).status).toBe(201);
    const { body: media } = await gw.api('POST', '/api/keys/media', { session: 'k3' });
    const paused = await gw.api('PUT', `/api/keys/${media.id}`, { isActive: false });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ kind: 'media', session: 'k3', isActive: false });
    expect((await gw.api('PUT', `/api/keys/${media.id}`, { session: 'k1' })).status).toBe(422);
  });
});

describe('4.2 API keys: the media and control key of a session', () => {
  for (const kind of ['media', 'control'] as const) {
    it(`POST /api/keys/${kind} makes the key once, then answers the same key without its secret`, async () => {
      const first = await gw.api('POST', `/api/keys/${kind}`, { session: 'k1' });
      expect(first.status).toBe(201);
      expect(first.body).toEqual({
        id: expect.stringMatching(KEY_ID),
        key: expect.stringMatching(SECRET),
        isActive: true,
        isAdmin: false,
        session: 'k1',
        actions: null,
        kind,
      });

      const again = await gw.api('POST', `/api/keys/${kind}`, { session: 'k1' });
      expect(again.status).toBe(201);
      expect(again.body).toEqual({ ...first.body, key: undefined });
      expect(again.body).not.toHaveProperty('key');

      const other = await gw.api('POST', `/api/keys/${kind}`, { session: 'k2' });
      expect(other.body.id).not.toBe(first.body.id);
      expect(other.body.key).toMatch(SECRET);
    });
  }

  it('the media and the control key of one session are two keys', async () => {
    const media = await gw.api('POST', '/api/keys/media', { session: 'k2' });
    const control = await gw.api('POST', '/api/keys/control', { session: 'k2' });
    expect(media.body.id).not.toBe(control.body.id);
  });

  it('after the key is deleted, asking again makes a new one with a new secret', async () => {
    const first = await gw.api('POST', '/api/keys/control', { session: 'k2' });
    expect((await gw.api('DELETE', `/api/keys/${first.body.id}`)).status).toBe(200);
    const next = await gw.api('POST', '/api/keys/control', { session: 'k2' });
    expect(next.status).toBe(201);
    expect(next.body.id).not.toBe(first.body.id);
    expect(next.body.key).toMatch(SECRET);
    expect((await gw.api('GET', '/api/sessions/k2', undefined, next.body.key)).status).toBe(200);
  });

  it('answers 422 for a session that does not exist, and makes no key', async () => {
    const before = (await gw.api('GET', '/api/keys')).body.length;
    for (const kind of ['media', 'control']) {
      const res = await gw.api('POST', `/api/keys/${kind}`, { session: 'ghost' });
      expect(res.status).toBe(422);
      expect(res.body.message).toContain("'ghost'");
    }
    expect((await gw.api('GET', '/api/keys')).body.length).toBe(before);
  });

  it('a media or control key stays bound to its session: only isActive can change (422 otherwise)', async () => {
    const { body: media } = await gw.api('POST', '/api/keys/media', { session: 'k1' });
    const moved = await gw.api('PUT', `/api/keys/${media.id}`, { isAdmin: false, session: 'k2', isActive: true });
    expect(moved.status).toBe(422);
    expect(moved.body.message).toContain("'k1'");
    const promoted = await gw.api('PUT', `/api/keys/${media.id}`, { isAdmin: true, session: null, isActive: true });
    expect(promoted.status).toBe(422);

    const paused = await gw.api('PUT', `/api/keys/${media.id}`, { isAdmin: false, session: 'k1', isActive: false });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ kind: 'media', session: 'k1', isActive: false });
    expect((await listed(media.id))?.isActive).toBe(false);
    await gw.api('PUT', `/api/keys/${media.id}`, { isAdmin: false, session: 'k1', isActive: true });
  });
});

describe('4.2 API keys: bad input is a 400 naming the field, and changes nothing', () => {
  it.each([
    ['POST', '/api/keys', { isAdmin: 'yes' }, 'body.isAdmin'],
    ['POST', '/api/keys', { session: 'no spaces allowed' }, 'body.session'],
    ['POST', '/api/keys', { isActive: 1 }, 'body.isActive'],
    ['POST', '/api/keys', { actions: { read: 'yes' } }, 'body.actions.read'],
    ['POST', '/api/keys', { isAdmin: true, session: 'k1' }, 'body.session'],
    ['POST', '/api/keys', { isAdmin: true, actions: { read: true } }, 'body.actions'],
    ['POST', '/api/keys/media', {}, 'body.session'],
    ['POST', '/api/keys/control', { session: '' }, 'body.session'],
  ])('%s %s %j', async (method, path, body, field) => {
    const before = (await gw.api('GET', '/api/keys')).body.length;
    const res = await gw.api(method, path, body);
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(field);
    expect((await gw.api('GET', '/api/keys')).body.length).toBe(before);
  });

  it('PUT validates too, and leaves the key as it was', async () => {
    const { body: key } = await gw.api('POST', '/api/keys', { session: 'k1' });
    const res = await gw.api('PUT', `/api/keys/${key.id}`, { isAdmin: true, session: 'k1', isActive: true });
    expect(res.status).toBe(400);
    expect((await listed(key.id))?.isAdmin).toBe(false);
  });
});
