import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeWaServer } from '../../../engine-pod/test/fake-wa/index.js';
import { startGateway, type TestGateway } from '../support/gateway.js';

/**
 * Issue 31 §2 in local mode: the gateway started again with another SWITCHBOARD_NOWEB_CLIENT_VERSION
 * starts the running sessions on the version they ran, then restarts them onto the new one one at a
 * time, each WORKING again before the next; a version the service refuses (the fake's 405) halts at
 * the first session, which goes back to its version, WORKING on its pairing, and no other session
 * is restarted. NOWEB on the fake WhatsApp server, a real gateway, its data dir kept across starts.
 */
const FIRST = '2.3000.1000000001';
const SECOND = '2.3000.1000000002';
const RETIRED = '2.3000.1000000666';
const SESSIONS = ['first', 'second', 'third'];

let fake: FakeWaServer;
let gw: TestGateway | undefined;
const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-local-rollout-'));

/** Every session.status from now on: session, status, the client version it reported. */
type Seen = [session: string, status: string, client: string | null];

/** The gateway started again on the same data dir with this NOWEB client version. */
async function restartWith(clientVersion: string): Promise<{ seen: Seen[] }> {
  await gw?.close();
  process.env.SWITCHBOARD_NOWEB_CLIENT_VERSION = clientVersion;
  const seen: Seen[] = [];
  gw = await startGateway({ dataDir, defaultEngine: 'NOWEB' });
  gw.gateway.events.subscribe((event) => {
    const envelope = event.envelope as unknown as {
      session: string;
      event: string;
      payload: { status: string; versions?: { client?: string | null } };
    };
    if (envelope.event === 'session.status') seen.push([envelope.session, envelope.payload.status, envelope.payload.versions?.client ?? null]);
  });
  return { seen };
}

const session = async (name: string) => (await gw!.api('GET', `/api/sessions/${name}`)).body;

beforeAll(async () => {
  fake = await FakeWaServer.start();
  fake.retireClientVersion(RETIRED);
  process.env.SWITCHBOARD_NOWEB_WS_URL = fake.url;
  await restartWith(FIRST);
  for (const [index, name] of SESSIONS.entries()) {
    expect((await gw!.api('POST', '/api/sessions', { name, engine: 'NOWEB' })).status).toBe(201);
    const qr = await waitFor(async () => {
      const res = await gw!.api('GET', `/api/${name}/auth/qr?format=raw`);
      return res.status === 200 && (res.body.value as string);
    }, `${name}'s QR`);
    await fake.scanQr(qr, { phone: `1555000200${String(index)}` });
    await waitFor(async () => (await session(name)).status === 'WORKING', `${name} WORKING`, 30_000);
  }
}, 120_000);

afterAll(async () => {
  await gw?.close();
  delete process.env.SWITCHBOARD_NOWEB_WS_URL;
  delete process.env.SWITCHBOARD_NOWEB_CLIENT_VERSION;
  await fake?.close();
});

describe('a client version change in local mode', () => {
  it('restarts the running sessions onto the new version one at a time, each WORKING again before the next', async () => {
    const presented = fake.presentedVersions.length;
    const { seen } = await restartWith(SECOND);
    await waitFor(
      async () => {
        for (const name of SESSIONS) {
          const { status, versions } = await session(name);
          if (status !== 'WORKING' || versions.client !== SECOND) return false;
        }
        return true;
      },
      'every session WORKING on the new version',
      60_000,
    );
    // All three came back on the version they ran, then went over one at a time.
    expect(fake.presentedVersions.slice(presented)).toEqual([FIRST, FIRST, FIRST, SECOND, SECOND, SECOND]);
    const onSecond = seen.filter(([, , client]) => client === SECOND).map(([name, status]) => `${name} ${status}`);
    expect(onSecond.filter((entry) => !entry.endsWith('STARTING'))).toEqual(['first WORKING', 'second WORKING', 'third WORKING']);
    // A session went over only once the one before was WORKING on it.
    const firstWorking = seen.findIndex(([name, status, client]) => name === 'first' && status === 'WORKING' && client === SECOND);
    const secondLeaves = seen.findIndex(([name, status]) => name === 'second' && status === 'STOPPED');
    expect(secondLeaves).toBeGreaterThan(firstWorking);
    await waitFor(() => JSON.parse(readFileSync(join(dataDir, 'engine-versions.json'), 'utf8')).NOWEB === SECOND, 'the new version recorded');
  });

  it('a version the service refuses halts at the first session: it goes back WORKING on its version and pairing; the others are never restarted', async () => {
    const presented = fake.presentedVersions.length;
    const { seen } = await restartWith(RETIRED);
    await waitFor(
      () => fake.presentedVersions.slice(presented).filter((version) => version === SECOND).length === 4,
      'the first session back on its version',
      60_000,
    );
    await waitFor(async () => (await session('first')).status === 'WORKING', 'first WORKING again', 30_000);
    expect(fake.presentedVersions.slice(presented)).toEqual([SECOND, SECOND, SECOND, RETIRED, SECOND]);
    expect(await session('first')).toMatchObject({ status: 'WORKING', me: { id: '15550002000@c.us' }, versions: { client: SECOND } });
    expect(seen).toContainEqual(['first', 'FAILED', RETIRED]);
    // The others: started once on the version they ran (above: one connection each), never stopped since.
    for (const name of ['second', 'third']) {
      expect(seen.filter(([seenName, status]) => seenName === name && status === 'STOPPED')).toEqual([]);
      expect(await session(name)).toMatchObject({ status: 'WORKING', versions: { client: SECOND } });
    }
    // Not recorded: the next start tries again.
    expect(JSON.parse(readFileSync(join(dataDir, 'engine-versions.json'), 'utf8')).NOWEB).toBe(SECOND);
  });
});
