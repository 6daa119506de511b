// Issue 31 §1 in cluster mode: each socket session's MessagingSession status says what it runs
// (its engine pod's image, the engine's library and the client version it presents), and so does
// its REST answer; a session's config.clientVersion reaches its engine pod, and a version the
// service has retired (the fake answers the handshake with the 405 connect failure) ends it FAILED,
// saying so, in the resource's status too.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeWaServer } from '../../engine-pod/test/fake-wa/index.js';
import { buildGows } from '../../engine-pod/test/gows/driver.js';
import { LIBRARY_VERSIONS } from '../../engine-pod/test/library-versions.js';
import { waitForStatus } from '../contract/harness.js';
import {
  type ClusterEnvironment,
  ENGINE_IMAGE,
  fakeServersEnv,
  type GatewayProcess,
  GOWS_ENGINE_IMAGE,
  startClusterWithGateway,
} from './support/cluster-environment.js';

const ACCEPTED = '2.3000.1000000003';
/** The engine pod package's version, which SANDBOX reports. */
const BUILD_VERSION = (JSON.parse(readFileSync(new URL('../../engine-pod/package.json', import.meta.url), 'utf8')) as { version: string }).version;
const RETIRED = '2.3000.1000000666';

let noweb: FakeWaServer;
let gows: FakeWaServer;
let env: ClusterEnvironment;
let gw: GatewayProcess;

beforeAll(async () => {
  [noweb, gows] = await Promise.all([FakeWaServer.start(), FakeWaServer.start({ signal: true }), buildGows()]);
  for (const fake of [noweb, gows]) fake.retireClientVersion(RETIRED);
  ({ env, gw } = await startClusterWithGateway({
    namespace: 'switchboard-e2e-versions',
    engineEnv: fakeServersEnv({ noweb, gows }),
  }));
}, 300_000);

afterAll(async () => {
  await env?.stop();
  await noweb?.close();
  await gows?.close();
});

describe('SANDBOX in cluster mode: the versions a session runs', () => {
  it('names the engine pod image and this build, and no client version, in the resource status and the REST answer', async () => {
    expect((await gw.api('POST', '/api/sessions', { name: 'sandbox-versions', engine: 'SANDBOX' })).status).toBe(201);
    await waitForStatus(gw, 'sandbox-versions', 'SCAN_QR_CODE', 60_000);
    const library = { name: 'SANDBOX', version: BUILD_VERSION };
    // The merge patch that writes the status stores a null client as none.
    expect((await env.resource('sandbox-versions')).status.versions).toEqual({ image: ENGINE_IMAGE, library });
    expect((await gw.api('GET', '/api/sessions/sandbox-versions')).body.versions).toEqual({ image: ENGINE_IMAGE, library, client: null });
  });
});

describe.each([
  { engine: 'NOWEB' as const, image: ENGINE_IMAGE, fake: () => noweb },
  { engine: 'GOWS' as const, image: GOWS_ENGINE_IMAGE, fake: () => gows },
])('$engine in cluster mode: the versions a session runs', ({ engine, image, fake }) => {
  const name = (what: string) => `${engine.toLowerCase()}-${what}`;

  it("the resource's status and the REST answer say which image, library and client version the session runs", async () => {
    const created = await gw.api('POST', '/api/sessions', { name: name('accepted'), engine, config: { clientVersion: ACCEPTED } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await waitForStatus(gw, name('accepted'), 'SCAN_QR_CODE', 60_000);
    const versions = { image, library: LIBRARY_VERSIONS[engine], client: ACCEPTED };
    expect((await env.resource(name('accepted'))).status.versions).toEqual(versions);
    expect((await gw.api('GET', `/api/sessions/${name('accepted')}`)).body.versions).toEqual(versions);
    expect(fake().presentedVersions).toContain(ACCEPTED);
  });

  it('a retired client version is FAILED with client_outdated, in the resource status as in the REST answer', async () => {
    expect((await gw.api('POST', '/api/sessions', { name: name('retired'), engine, config: { clientVersion: RETIRED } })).status).toBe(201);
    await waitForStatus(gw, name('retired'), 'FAILED', 60_000);
    const reason = `client_outdated: the service refused client version ${RETIRED} (405); set another with config.clientVersion or SWITCHBOARD_${engine}_CLIENT_VERSION`;
    const { status } = await env.resource(name('retired'));
    expect(status).toMatchObject({ status: 'FAILED', reason, versions: { image, library: LIBRARY_VERSIONS[engine], client: RETIRED } });
    expect((await gw.api('GET', `/api/sessions/${name('retired')}`)).body).toMatchObject({ reason, versions: { client: RETIRED } });
  });
});
