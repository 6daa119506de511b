import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type ContractGateway, workingSession } from './harness.js';

let gw: ContractGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw.close();
});

const status = async (name: string) => (await gw.api('GET', `/api/sessions/${name}`)).body.status;

describe('4.3 sessions: create and read', () => {
  it('creates and starts a session (start defaults to true) and returns 201 SessionDTO', async () => {
    const res = await gw.api('POST', '/api/sessions', { name: 'create-1', config: { metadata: { 'user.id': '7' } } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'create-1', engine: 'SANDBOX', config: { metadata: { 'user.id': '7' } } });
    expect(['STARTING', 'SCAN_QR_CODE']).toContain(res.body.status);
    await waitFor(async () => (await status('create-1')) === 'SCAN_QR_CODE', 'SCAN_QR_CODE');
  });

  it('creates a stopped session with start=false', async () => {
    const res = await gw.api('POST', '/api/sessions', { name: 'create-2', start: false });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('STOPPED');
  });

  it('answers 422, as the peer product does, for a name that is taken, and changes nothing', async () => {
    await gw.api('POST', '/api/sessions', { name: 'dup', start: false, config: { metadata: { a: '1' } } });
    const res = await gw.api('POST', '/api/sessions', { name: 'dup', config: { metadata: { a: '2' } } });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      statusCode: 422,
      error: 'Unprocessable Entity',
      message: "session 'dup' already exists",
      details: { session: 'dup' },
    });
    const after = await gw.api('GET', '/api/sessions/dup');
    expect(after.body.config.metadata).toEqual({ a: '1' });
    expect(after.body.status).toBe('STOPPED');
  });

  it('rejects bad input with 400 naming each field, and creates nothing', async () => {
    const res = await gw.api('POST', '/api/sessions', {
      name: 'bad name!',
      config: { webhooks: [{ url: 'ftp://x', events: ['no.such.event'] }] },
    });
    expect(res.status).toBe(400);
    const paths = res.body.details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['body.name', 'body.config.webhooks[0].url', 'body.config.webhooks[0].events[0]']));
    expect((await gw.api('GET', '/api/sessions?all=true')).body.map((s: { name: string }) => s.name)).not.toContain('bad name!');
  });

  it('answers 400 for malformed JSON and for a missing body, never 500', async () => {
    expect((await gw.api('POST', '/api/sessions', '{"name": ')).status).toBe(400);
    const missing = await gw.api('POST', '/api/sessions', '');
    expect(missing.status).toBe(400);
    expect(missing.body.details[0].path).toBe('body');
  });

  it('answers 413 for a body over the limit', async () => {
    const res = await gw.api('POST', '/api/sessions', { name: 'big', config: { metadata: { x: 'y'.repeat(2_000_000) } } });
    expect(res.status).toBe(413);
    expect(res.body.statusCode).toBe(413);
  });

  it('serves every engine of the interface: a WPP session is created; an engine name outside it is a 400 naming the field and the names allowed', async () => {
    const created = await gw.api('POST', '/api/sessions', { name: 'wpp', engine: 'WPP', start: false });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'wpp', engine: 'WPP' });
    const res = await gw.api('POST', '/api/sessions', { name: 'nope', engine: 'TELEGRAM' });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('engine');
    for (const engine of ['WEBJS', 'WPP', 'NOWEB', 'GOWS', 'SANDBOX']) expect(JSON.stringify(res.body)).toContain(engine);
    expect((await gw.api('GET', '/api/sessions/nope')).status).toBe(404);
  });

  it('answers 404 for an unknown session', async () => {
    const res = await gw.api('GET', '/api/sessions/nobody');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ statusCode: 404, error: 'Not Found', details: { session: 'nobody' } });
  });
});

describe('part 3 rule 5: the list omits STOPPED sessions unless all=true', () => {
  it('lists running sessions, and stopped ones only with all=true', async () => {
    await gw.api('POST', '/api/sessions', { name: 'list-run' });
    await gw.api('POST', '/api/sessions', { name: 'list-stop', start: false });
    const running = (await gw.api('GET', '/api/sessions')).body.map((s: { name: string }) => s.name);
    expect(running).toContain('list-run');
    expect(running).not.toContain('list-stop');
    const all = (await gw.api('GET', '/api/sessions?all=true')).body.map((s: { name: string }) => s.name);
    expect(all).toEqual(expect.arrayContaining(['list-run', 'list-stop']));
  });

  it('shows apps only with expand=apps', async () => {
    await gw.api('POST', '/api/sessions', {
      name: 'apps-1',
      start: false,
      apps: [{ app: 'calls', config: { dm: { reject: true, message: 'busy' } } }],
    });
    const plain = await gw.api('GET', '/api/sessions/apps-1');
    expect(plain.body.apps).toBeUndefined();
    const expanded = await gw.api('GET', '/api/sessions/apps-1?expand=apps');
    expect(expanded.body.apps).toEqual([{ app: 'calls', enabled: true, config: { dm: { reject: true, message: 'busy' }, group: { reject: true } } }]);
    const listed = (await gw.api('GET', '/api/sessions?all=true&expand=apps')).body.find((s: { name: string }) => s.name === 'apps-1');
    expect(listed.apps).toHaveLength(1);
  });

  it('rejects an unknown expand value and a non-boolean all', async () => {
    expect((await gw.api('GET', '/api/sessions?expand=nope')).status).toBe(400);
    expect((await gw.api('GET', '/api/sessions?all=maybe')).status).toBe(400);
  });
});

describe('4.3 sessions: update', () => {
  it('replaces config; the path names the session', async () => {
    await gw.api('POST', '/api/sessions', { name: 'upd', start: false });
    const res = await gw.api('PUT', '/api/sessions/upd', { config: { metadata: { k: 'v' }, debug: true } });
    expect(res.status).toBe(200);
    expect(res.body.config).toEqual({ metadata: { k: 'v' }, debug: true });
  });

  it('keeps every config field a PUT sends, debug included, and reads them back (item 11)', async () => {
    await gw.api('POST', '/api/sessions', { name: 'upd-full', start: false, config: { metadata: { old: '1' } } });
    const config = {
      metadata: { 'user.id': '123' },
      debug: true,
      webhooks: [{ url: 'http://127.0.0.1:9/hook', events: ['message', 'session.status'] }],
    };
    const res = await gw.api('PUT', '/api/sessions/upd-full', { name: 'upd-full', config });
    expect(res.status).toBe(200);
    expect(res.body.config).toMatchObject(config);
    // PUT replaces config as a whole (docs/api.md): the old metadata key is gone.
    const read = await gw.api('GET', '/api/sessions/upd-full');
    expect(read.body.config).toMatchObject(config);
    expect(read.body.config.metadata).toEqual({ 'user.id': '123' });
    // A PUT without config keeps the stored one.
    await gw.api('PUT', '/api/sessions/upd-full', { apps: [] });
    expect((await gw.api('GET', '/api/sessions/upd-full')).body.config).toMatchObject(config);
  });

  it('starts a stopped session when the PUT says start: true, and leaves it alone without it (item 10)', async () => {
    await gw.api('POST', '/api/sessions', { name: 'upd-start', start: false });
    const kept = await gw.api('PUT', '/api/sessions/upd-start', { config: { metadata: { a: '1' } } });
    expect(kept.body.status).toBe('STOPPED');
    expect(await status('upd-start')).toBe('STOPPED');
    const res = await gw.api('PUT', '/api/sessions/upd-start', { start: true, config: { metadata: { a: '2' } } });
    expect(res.status).toBe(200);
    expect(res.body.status).not.toBe('STOPPED');
    await waitFor(async () => (await status('upd-start')) === 'SCAN_QR_CODE', 'started by the PUT', 15_000);
    expect((await gw.api('GET', '/api/sessions/upd-start')).body.config.metadata).toEqual({ a: '2' });
    // start: false does not stop a running session: only POST .../stop does.
    await gw.api('PUT', '/api/sessions/upd-start', { start: false });
    expect(await status('upd-start')).toBe('SCAN_QR_CODE');
  });

  it('refuses a body name that differs from the path', async () => {
    const res = await gw.api('PUT', '/api/sessions/upd', { name: 'other', config: {} });
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('body.name');
  });

  it('answers 404 for an unknown session', async () => {
    expect((await gw.api('PUT', '/api/sessions/ghost', { config: {} })).status).toBe(404);
  });
});

describe('config members beyond the spec: honoured, refused, never dropped (item 15)', () => {
  const settings = {
    proxy: { server: 'proxy.internal:3128', username: 'bot', password: 'proxy-secret' },
    ignore: { status: true, groups: false, channels: null, broadcast: true },
    client: { deviceName: 'MacOS', browserName: 'Firefox' },
    noweb: { markOnline: false, store: { enabled: true, fullSync: false } },
  };

  it('a NOWEB session keeps proxy, ignore, client and noweb, the proxy password write-only', async () => {
    const res = await gw.api('POST', '/api/sessions', { name: 'cfg-noweb', engine: 'NOWEB', start: false, config: settings });
    expect(res.status).toBe(201);
    const masked = { ...settings, proxy: { ...settings.proxy, password: '***' } };
    expect(res.body.config).toEqual(masked);
    expect((await gw.api('GET', '/api/sessions/cfg-noweb')).body.config).toEqual(masked);
    // Sent back as read, the placeholder keeps the stored password; for another server it cannot.
    expect((await gw.api('PUT', '/api/sessions/cfg-noweb', { config: masked })).status).toBe(200);
    const moved = await gw.api('PUT', '/api/sessions/cfg-noweb', { config: { ...masked, proxy: { ...masked.proxy, server: 'other:3128' } } });
    expect(moved.status).toBe(400);
    expect(moved.body.details.map((d: { path: string }) => d.path)).toEqual(['body.config.proxy.password']);
  });

  it('refuses a setting the engine cannot honour with 422 naming it, and creates or changes nothing', async () => {
    const res = await gw.api('POST', '/api/sessions', {
      name: 'cfg-sandbox',
      engine: 'SANDBOX',
      config: { proxy: settings.proxy, ignore: settings.ignore },
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/^engine SANDBOX cannot honour config\.proxy \(only NOWEB\), config\.ignore \(only NOWEB\)/);
    expect(res.body.details).toMatchObject({ engine: 'SANDBOX', fields: ['body.config.proxy', 'body.config.ignore'] });
    expect((await gw.api('GET', '/api/sessions/cfg-sandbox')).status).toBe(404);
    // Moving the NOWEB session above to SANDBOX would drop its settings: refused too.
    const moved = await gw.api('PUT', '/api/sessions/cfg-noweb', { engine: 'SANDBOX' });
    expect(moved.status).toBe(422);
    expect((await gw.api('GET', '/api/sessions/cfg-noweb')).body.engine).toBe('NOWEB');
  });

  it('refuses a config member this build does not know with 400 naming it and what config takes', async () => {
    const res = await gw.api('POST', '/api/sessions', { name: 'cfg-gows', start: false, config: { gows: { storage: { messages: true } } } });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      {
        path: 'body.config',
        reason: 'unknown member "gows": config takes metadata, debug, webhooks, proxy, ignore, client, noweb, clientVersion, sending',
      },
    ]);
    expect((await gw.api('GET', '/api/sessions/cfg-gows')).status).toBe(404);
  });
});

describe('part 3 rules 1-4: start, stop, delete, logout', () => {
  it('start is idempotent and needs the session to exist', async () => {
    await gw.api('POST', '/api/sessions', { name: 'idem', start: false });
    const first = await gw.api('POST', '/api/sessions/idem/start');
    const second = await gw.api('POST', '/api/sessions/idem/start');
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.status).not.toBe('STOPPED');
    expect((await gw.api('POST', '/api/sessions/ghost/start')).status).toBe(404);
  });

  it('stop is idempotent', async () => {
    const first = await gw.api('POST', '/api/sessions/idem/stop');
    const second = await gw.api('POST', '/api/sessions/idem/stop');
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.status).toBe('STOPPED');
  });

  it('accepts Content-Type: application/json with an empty body on bodiless POSTs', async () => {
    const res = await fetch(`${gw.url}/api/sessions/idem/start`, {
      method: 'POST',
      headers: { 'x-api-key': 'test-admin-key-0123456789', 'content-type': 'application/json' },
    });
    expect(res.status).toBe(201);
  });

  it('delete stops, logs out and removes; repeating it is not an error', async () => {
    await workingSession(gw, 'del');
    expect((await gw.api('DELETE', '/api/sessions/del')).status).toBe(200);
    expect((await gw.api('DELETE', '/api/sessions/del')).status).toBe(200);
    expect((await gw.api('GET', '/api/sessions/del')).status).toBe(404);
    // Logged out: a new session of the same name must pair again.
    await gw.api('POST', '/api/sessions', { name: 'del' });
    await waitFor(async () => (await status('del')) === 'SCAN_QR_CODE', 'a fresh QR');
  });

  it('logout of a WORKING session unpairs it and starts it again (rule 4)', async () => {
    await workingSession(gw, 'lo');
    const res = await gw.api('POST', '/api/sessions/lo/logout');
    expect(res.status).toBe(201);
    await waitFor(async () => (await status('lo')) === 'SCAN_QR_CODE', 'SCAN_QR_CODE after logout');
    const me = await gw.api('GET', '/api/sessions/lo/me');
    expect(me.status).toBe(422);
    expect(me.body.details).toEqual({ session: 'lo', status: 'SCAN_QR_CODE' });
  });

  it('logout of a STOPPED session leaves it STOPPED', async () => {
    await workingSession(gw, 'lo2');
    await gw.api('POST', '/api/sessions/lo2/stop');
    const res = await gw.api('POST', '/api/sessions/lo2/logout');
    expect(res.body.status).toBe('STOPPED');
    await gw.api('POST', '/api/sessions/lo2/start');
    await waitFor(async () => (await status('lo2')) === 'SCAN_QR_CODE', 'pairing needed again');
  });

  it('restart of a paired session comes back WORKING without a new QR', async () => {
    await workingSession(gw, 'rs');
    const res = await gw.api('POST', '/api/sessions/rs/restart');
    expect(res.status).toBe(201);
    await waitFor(async () => (await status('rs')) === 'WORKING', 'WORKING after restart');
  });

  it('me before pairing answers 422 naming the status, never 200 null (item 14)', async () => {
    await gw.api('POST', '/api/sessions', { name: 'me0', start: false });
    const stopped = await gw.api('GET', '/api/sessions/me0/me');
    expect(stopped.status).toBe(422);
    expect(stopped.body).toMatchObject({ statusCode: 422, details: { session: 'me0', status: 'STOPPED' } });
    expect(stopped.body.message).toContain('paired');
    await gw.api('POST', '/api/sessions/me0/start');
    await waitFor(async () => (await status('me0')) === 'SCAN_QR_CODE', 'SCAN_QR_CODE', 15_000);
    const unpaired = await gw.api('GET', '/api/sessions/me0/me');
    expect(unpaired.status).toBe(422);
    expect(unpaired.body.details).toEqual({ session: 'me0', status: 'SCAN_QR_CODE' });
    expect((await gw.api('GET', '/api/sessions/ghost/me')).status).toBe(404);
  });

  it('me returns the paired account', async () => {
    await workingSession(gw, 'me1');
    const res = await gw.api('GET', '/api/sessions/me1/me');
    expect(res.body).toEqual({ id: '15550000000@c.us', pushName: 'Sandbox' });
  });
});

describe('4.3 deprecated session operations', () => {
  it('POST /api/sessions/start creates a missing session and starts it', async () => {
    const res = await gw.api('POST', '/api/sessions/start', { name: 'dep1', config: { metadata: { a: 'b' } } });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('dep1');
    expect(res.body.status).not.toBe('STOPPED');
  });

  it('POST /api/sessions/start updates an existing session config, then starts it', async () => {
    await gw.api('POST', '/api/sessions', { name: 'dep2', start: false });
    const res = await gw.api('POST', '/api/sessions/start', { name: 'dep2', config: { metadata: { x: 'y' } } });
    expect(res.status).toBe(201);
    expect(res.body.config.metadata).toEqual({ x: 'y' });
    expect(res.body.status).not.toBe('STOPPED');
  });

  it('POST /api/sessions/stop stops and by default logs out', async () => {
    await workingSession(gw, 'dep3');
    const res = await gw.api('POST', '/api/sessions/stop', { name: 'dep3' });
    expect(res.status).toBe(201);
    expect(res.body).toBe('');
    expect(await status('dep3')).toBe('STOPPED');
    await gw.api('POST', '/api/sessions/dep3/start');
    await waitFor(async () => (await status('dep3')) === 'SCAN_QR_CODE', 'logged out');
  });

  it('POST /api/sessions/stop with logout=false keeps the pairing', async () => {
    await workingSession(gw, 'dep4');
    await gw.api('POST', '/api/sessions/stop', { name: 'dep4', logout: false });
    await gw.api('POST', '/api/sessions/dep4/start');
    await waitFor(async () => (await status('dep4')) === 'WORKING', 'still paired');
  });

  it('POST /api/sessions/stop and /logout answer an unknown session the same way: 201, nothing created (item 12)', async () => {
    for (const body of [{ name: 'dep-ghost' }, { name: 'dep-ghost', logout: false }]) {
      const stop = await gw.api('POST', '/api/sessions/stop', body);
      expect(stop.status).toBe(201);
      expect(stop.body).toBe('');
    }
    const logout = await gw.api('POST', '/api/sessions/logout', { name: 'dep-ghost' });
    expect(logout.status).toBe(201);
    expect(logout.body).toBe('');
    expect((await gw.api('GET', '/api/sessions/dep-ghost')).status).toBe(404);
  });

  it('POST /api/sessions/logout stops, logs out and deletes', async () => {
    await workingSession(gw, 'dep5');
    const res = await gw.api('POST', '/api/sessions/logout', { name: 'dep5' });
    expect(res.status).toBe(201);
    expect((await gw.api('GET', '/api/sessions/dep5')).status).toBe(404);
  });
});
