import { readFileSync } from 'node:fs';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeWaServer } from '../../engine-pod/test/fake-wa/index.js';
import { buildGows } from '../../engine-pod/test/gows/driver.js';
import { LIBRARY_VERSIONS } from '../../engine-pod/test/library-versions.js';
import { startGateway, type TestGateway } from './support/gateway.js';

/** The engine pod package's version, which SANDBOX reports (the gateway's is the same release's). */
const BUILD_VERSION = (JSON.parse(readFileSync(new URL('../../engine-pod/package.json', import.meta.url), 'utf8')) as { version: string }).version;

/**
 * Issue 31 §1 in local mode: each socket session reports what it runs (library and version, the
 * client version it presents) in GET /api/sessions/{session}; the client version is a setting
 * (the engine's variable, a session's `config.clientVersion`); and a version the service has
 * retired (the fake answers its handshake with the 405 connect failure) ends the session FAILED,
 * saying so, while one it accepts pairs and works.
 */
const NOWEB_DEFAULT = '2.3000.1000000001';
const GOWS_DEFAULT = '2.3000.1000000002';
const ACCEPTED = '2.3000.1000000003';
const RETIRED = '2.3000.1000000666';

let noweb: FakeWaServer;
let gows: FakeWaServer;
let gw: TestGateway;

beforeAll(async () => {
  const [nowebFake, gowsFake, binary] = await Promise.all([FakeWaServer.start(), FakeWaServer.start({ signal: true }), buildGows()]);
  noweb = nowebFake;
  gows = gowsFake;
  for (const fake of [noweb, gows]) fake.retireClientVersion(RETIRED);
  // The gateway's engine catalog reads these when it is built.
  Object.assign(process.env, {
    SWITCHBOARD_NOWEB_WS_URL: noweb.url,
    SWITCHBOARD_NOWEB_CLIENT_VERSION: NOWEB_DEFAULT,
    SWITCHBOARD_GOWS_BIN: binary,
    SWITCHBOARD_GOWS_WS_URL: gows.url,
    SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY: gows.certRootPublicKey,
    SWITCHBOARD_GOWS_CLIENT_VERSION: GOWS_DEFAULT,
  });
  gw = await startGateway();
}, 180_000);

afterAll(async () => {
  await gw?.close();
  for (const variable of [
    'SWITCHBOARD_NOWEB_WS_URL',
    'SWITCHBOARD_NOWEB_CLIENT_VERSION',
    'SWITCHBOARD_GOWS_BIN',
    'SWITCHBOARD_GOWS_WS_URL',
    'SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY',
    'SWITCHBOARD_GOWS_CLIENT_VERSION',
  ]) {
    delete process.env[variable];
  }
  await noweb?.close();
  await gows?.close();
});

const session = async (name: string) => (await gw.api('GET', `/api/sessions/${name}`)).body;
const statusOf = async (name: string, status: string) =>
  waitFor(async () => ((await session(name)).status === status ? session(name) : undefined), `${name} ${status}`, 20_000);

describe.each([
  { engine: 'NOWEB' as const, fake: () => noweb, engineDefault: NOWEB_DEFAULT },
  { engine: 'GOWS' as const, fake: () => gows, engineDefault: GOWS_DEFAULT },
])('$engine: the client version it presents', ({ engine, fake, engineDefault }) => {
  const name = (what: string) => `${engine.toLowerCase()}-${what}`;

  it("presents the engine's setting and reports it with its library; an accepted version pairs and works", async () => {
    expect((await gw.api('POST', '/api/sessions', { name: name('default'), engine })).status).toBe(201);
    const waiting = await statusOf(name('default'), 'SCAN_QR_CODE');
    expect(waiting.versions).toEqual({ image: null, library: LIBRARY_VERSIONS[engine], client: engineDefault });
    expect(fake().presentedVersions).toContain(engineDefault);

    const qr = await gw.api('GET', `/api/${name('default')}/auth/qr?format=raw`);
    expect(qr.status).toBe(200);
    await fake().scanQr(qr.body.value as string, { pushName: 'Ada' });
    const working = await statusOf(name('default'), 'WORKING');
    expect(working.me).toMatchObject({ pushName: 'Ada' });
    expect(working.versions.client).toBe(engineDefault);
  });

  it("presents a session's config.clientVersion instead of the engine's", async () => {
    const created = await gw.api('POST', '/api/sessions', { name: name('pinned'), engine, config: { clientVersion: ACCEPTED } });
    expect(created.status).toBe(201);
    expect(created.body.config.clientVersion).toBe(ACCEPTED);
    const waiting = await statusOf(name('pinned'), 'SCAN_QR_CODE');
    expect(waiting.versions).toEqual({ image: null, library: LIBRARY_VERSIONS[engine], client: ACCEPTED });
    expect(fake().presentedVersions).toContain(ACCEPTED);
  });

  it('is FAILED, saying the service refused its client version, when the service has retired it', async () => {
    const before = fake().presentedVersions.filter((version) => version === RETIRED).length;
    expect((await gw.api('POST', '/api/sessions', { name: name('retired'), engine, config: { clientVersion: RETIRED } })).status).toBe(201);
    const failed = await statusOf(name('retired'), 'FAILED');
    expect(failed.reason).toBe(
      `client_outdated: the service refused client version ${RETIRED} (405); set another with config.clientVersion or SWITCHBOARD_${engine}_CLIENT_VERSION`,
    );
    expect(failed.versions).toEqual({ image: null, library: LIBRARY_VERSIONS[engine], client: RETIRED });
    // The refusal answered the version this session presented. (whatsmeow may have started one
    // reconnect as the socket closed, before it read the failure: GOWS ends it on the failure.)
    expect(fake().presentedVersions.filter((version) => version === RETIRED).length).toBeGreaterThan(before);

    // Another version, set on the session, and a start: it connects.
    const updated = await gw.api('PUT', `/api/sessions/${name('retired')}`, { config: { clientVersion: ACCEPTED } });
    expect(updated.status).toBe(200);
    expect((await gw.api('POST', `/api/sessions/${name('retired')}/restart`)).status).toBe(201);
    expect((await statusOf(name('retired'), 'SCAN_QR_CODE')).versions.client).toBe(ACCEPTED);
  });
});

describe('SANDBOX: the versions of a simulated account', () => {
  it('reports this build as its library and no client version: it presents none to any service', async () => {
    expect((await gw.api('POST', '/api/sessions', { name: 'sandbox-versions', engine: 'SANDBOX' })).status).toBe(201);
    const waiting = await statusOf('sandbox-versions', 'SCAN_QR_CODE');
    expect(waiting.versions).toEqual({ image: null, library: { name: 'SANDBOX', version: BUILD_VERSION }, client: null });
  });
});

describe('config.clientVersion at the edge', () => {
  it.each([
    ['abc', 'must be three whole numbers joined by dots, as "2.3000.1023456789"'],
    ['2.3000', 'must be three whole numbers joined by dots, as "2.3000.1023456789"'],
    ['2.3000.4294967296', 'each of its three numbers must be at most 4294967295'],
  ])('refuses %j with 400 naming the field and what it takes', async (clientVersion, reason) => {
    const res = await gw.api('POST', '/api/sessions', { name: 'bad-version', engine: 'NOWEB', start: false, config: { clientVersion } });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ path: 'body.config.clientVersion', reason }]);
    expect((await gw.api('GET', '/api/sessions/bad-version')).status).toBe(404);
  });

  it('refuses it with 422 for an engine that presents no client version of its own', async () => {
    const res = await gw.api('POST', '/api/sessions', { name: 'sandbox-version', engine: 'SANDBOX', config: { clientVersion: ACCEPTED } });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain('config.clientVersion (only NOWEB, GOWS)');
  });
});
