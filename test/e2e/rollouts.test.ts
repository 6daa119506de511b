// Issue 31 §2 in cluster mode: a changed client version (the operator restarted with another
// SWITCHBOARD_NOWEB_CLIENT_VERSION, as a chart upgrade does) rolls through NOWEB sessions on the
// fake WhatsApp server in waves (a canary alone, then at most maxUnavailable at once, each having
// to be WORKING again before the next); a version the fake refuses halts at the canary, which goes
// back to the version it ran, WORKING without a new QR code, and no other session's pod restarts.
// A session pinned with spec.engineVersion is never rolled.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeWaServer } from '../../engine-pod/test/fake-wa/index.js';
import { rawQr, waitForStatus } from '../contract/harness.js';
import { type ClusterEnvironment, ENGINE_IMAGE, type GatewayProcess, startClusterEnvironment } from './support/cluster-environment.js';

const FIRST = '2.3000.1000000001';
const SECOND = '2.3000.1000000002';
const RETIRED = '2.3000.1000000666';
/** Rolled; sorted by name, so roll-a is the canary. */
const ROLLED = ['roll-a', 'roll-b', 'roll-c', 'roll-d'];
const PINNED = 'roll-pinned';
const MAX_UNAVAILABLE = 2;
const ROLLOUT_ENV = {
  SWITCHBOARD_ROLLOUT_CANARY: '1',
  SWITCHBOARD_ROLLOUT_MAX_UNAVAILABLE: String(MAX_UNAVAILABLE),
  SWITCHBOARD_ROLLOUT_WORKING_TIMEOUT_SECONDS: '90',
};

let fake: FakeWaServer;
let env: ClusterEnvironment;
let gw: GatewayProcess;
let operators = 0;
let operator: { stop(): Promise<unknown>; readonly httpUrl: string };

/** Replaces the running operator by one with this NOWEB client version (and more settings): a release upgrade. */
async function releaseWith(clientVersion: string, settings: Record<string, string> = {}): Promise<void> {
  await operator?.stop();
  const identity = `operator-${String(operators++)}`;
  operator = await env.startOperator(identity, { ...ROLLOUT_ENV, SWITCHBOARD_NOWEB_CLIENT_VERSION: clientVersion, ...settings });
  await env.waitForOperatorLeader(identity, 60_000);
}

/** One of the operator's metrics, by its labels as written. */
async function metric(name: string): Promise<number | null> {
  const text = await (await fetch(`${operator.httpUrl}/metrics`)).text();
  const line = text.split('\n').find((entry) => entry.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : null;
}

const sessionsOf = (state: any) =>
  Object.entries(state.sessions as Record<string, { state: string; wave?: number }>)
    .map(([name, entry]) => [name, entry.state, entry.wave ?? null])
    .sort(([a], [b]) => String(a).localeCompare(String(b)));

async function rollout(): Promise<any> {
  const res = await env.cp.fetch(`/api/v1/namespaces/${env.namespace}/configmaps/switchboard-rollout-noweb`);
  return res.status === 404 ? null : JSON.parse(((await res.json()) as { data: { rollout: string } }).data.rollout);
}

async function podUids(): Promise<Record<string, string>> {
  const uids: Record<string, string> = {};
  for (const name of [...ROLLED, PINNED]) uids[name] = (await env.enginePods(name)).find((pod) => !pod.terminating)!.uid;
  return uids;
}

/**
 * Every pod change of the rolled sessions, in the order they arrive: a session is out from its
 * pod going (terminating or deleted) until a pod of another uid is ready.
 */
async function watchDisruptions(before: Record<string, string>) {
  const log: { session: string; out: boolean }[] = [];
  const current = { ...before };
  const out = new Set<string>();
  const watches = await Promise.all(
    ROLLED.map(async (session) => {
      const watch = await env.watchEnginePods(session);
      return { session, watch, seen: 0 };
    }),
  );
  const poll = () => {
    for (const entry of watches) {
      for (; entry.seen < entry.watch.events.length; entry.seen++) {
        const event = entry.watch.events[entry.seen]!;
        if (event.uid === current[entry.session] && (event.terminating || event.type === 'DELETED') && !out.has(entry.session)) {
          out.add(entry.session);
          log.push({ session: entry.session, out: true });
        } else if (event.uid !== current[entry.session] && event.ready && !event.terminating && out.has(entry.session)) {
          current[entry.session] = event.uid;
          out.delete(entry.session);
          log.push({ session: entry.session, out: false });
        }
      }
    }
  };
  const timer = setInterval(poll, 20);
  return {
    log,
    stop() {
      clearInterval(timer);
      poll();
      for (const { watch } of watches) watch.stop();
    },
  };
}

beforeAll(async () => {
  fake = await FakeWaServer.start();
  fake.retireClientVersion(RETIRED);
  env = await startClusterEnvironment({ namespace: 'switchboard-e2e-rollouts', engineEnv: { SWITCHBOARD_NOWEB_WS_URL: fake.url } });
  await releaseWith(FIRST);
  gw = await env.startGateway();
  for (const [index, name] of [...ROLLED, PINNED].entries()) {
    expect((await gw.api('POST', '/api/sessions', { name, engine: 'NOWEB' })).status).toBe(201);
    await fake.scanQr(await rawQr(gw, name, 60_000), { phone: `1555000100${String(index)}` });
    await waitForStatus(gw, name, 'WORKING', 60_000);
  }
  // Pinned to what it runs already: its pod stays.
  await env.cp.kubectl([
    'patch',
    'msess',
    PINNED,
    '-n',
    env.namespace,
    '--type=merge',
    '-p',
    JSON.stringify({ spec: { engineVersion: { image: ENGINE_IMAGE, clientVersion: FIRST } } }),
  ]);
}, 600_000);

afterAll(async () => {
  await env?.stop();
  await fake?.close();
});

describe('engine version rollouts in cluster mode (NOWEB on the fake server)', () => {
  it('a good client version rolls through every session in waves: the canary alone, then never more than maxUnavailable at once', async () => {
    const before = await podUids();
    const disruptions = await watchDisruptions(before);
    await releaseWith(SECOND);
    await waitFor(async () => (await rollout())?.phase === 'Complete', 'the NOWEB rollout to complete', 300_000);
    disruptions.stop();

    // Every rolled session is on the new version, WORKING, its account still paired.
    for (const name of ROLLED) {
      const { status } = await env.resource(name);
      expect(status, name).toMatchObject({ status: 'WORKING', versions: { client: SECOND } });
    }
    expect(Object.keys(before).filter((name) => ROLLED.includes(name))).toEqual(ROLLED);
    const after = await podUids();
    for (const name of ROLLED) expect(after[name], name).not.toBe(before[name]);
    // The pinned session was never touched.
    expect(after[PINNED]).toBe(before[PINNED]);
    expect((await env.resource(PINNED)).status.versions.client).toBe(FIRST);

    // The canary went out and came back before any other session went out; never more than 2 out.
    expect(disruptions.log.slice(0, 2)).toEqual([
      { session: 'roll-a', out: true },
      { session: 'roll-a', out: false },
    ]);
    let most = 0;
    const out = new Set<string>();
    for (const { session, out: going } of disruptions.log) {
      if (going) out.add(session);
      else out.delete(session);
      most = Math.max(most, out.size);
    }
    expect(
      disruptions.log
        .filter((entry) => entry.out)
        .map((entry) => entry.session)
        .sort(),
    ).toEqual(ROLLED);
    expect(most).toBeLessThanOrEqual(MAX_UNAVAILABLE);

    const state = await rollout();
    expect(state).toMatchObject({
      engine: 'NOWEB',
      phase: 'Complete',
      from: { image: ENGINE_IMAGE, clientVersion: FIRST },
      to: { image: ENGINE_IMAGE, clientVersion: SECOND },
    });
    expect(sessionsOf(state)).toEqual([
      ['roll-a', 'updated', 0],
      ['roll-b', 'updated', 1],
      ['roll-c', 'updated', 1],
      ['roll-d', 'updated', 2],
    ]);
    expect(await metric('switchboard_rollout_sessions{engine="NOWEB",state="updated"}')).toBe(ROLLED.length);
    expect(await metric('switchboard_rollout_halted{engine="NOWEB"}')).toBe(0);
  });

  it('a client version the service refuses halts at the canary: it goes back to its version, WORKING without a new QR code; no other pod restarts', async () => {
    const before = await podUids();
    await releaseWith(RETIRED);
    await waitFor(async () => (await rollout())?.phase === 'Halted', 'the NOWEB rollout to halt', 300_000);
    const state = await rollout();
    expect(state).toMatchObject({
      phase: 'Halted',
      from: { image: ENGINE_IMAGE, clientVersion: SECOND },
      to: { image: ENGINE_IMAGE, clientVersion: RETIRED },
      message: expect.stringContaining('roll-a: FAILED on'),
    });
    expect(sessionsOf(state)).toEqual([
      ['roll-a', 'rolled_back', 0],
      ['roll-b', 'pending', null],
      ['roll-c', 'pending', null],
      ['roll-d', 'pending', null],
    ]);
    expect(state.sessions['roll-a'].reason).toContain('client_outdated');

    // The canary is back on the version it ran, WORKING on the pairing it had: one QR code ever.
    await waitFor(
      async () => {
        const { status } = await env.resource('roll-a');
        return status.status === 'WORKING' && status.versions?.client === SECOND;
      },
      'the canary WORKING again on its previous version',
      120_000,
    );
    expect(fake.presentedVersions).toContain(RETIRED);
    expect(env.podLogs('roll-a').match(/"msg":"session SCAN_QR_CODE"/g)).toHaveLength(1);
    expect((await gw.api('GET', '/api/sessions/roll-a/me')).body).toMatchObject({ id: '15550001000@c.us' });
    // Nobody else's pod was made again.
    const after = await podUids();
    expect(after['roll-a']).not.toBe(before['roll-a']);
    for (const name of [...ROLLED.slice(1), PINNED]) expect(after[name], name).toBe(before[name]);
    expect(await metric('switchboard_rollout_halted{engine="NOWEB"}')).toBe(1);
    expect(await metric('switchboard_rollout_sessions{engine="NOWEB",state="rolled_back"}')).toBe(1);
    const events = JSON.parse(
      await env.cp.kubectl(['get', 'events', '-n', env.namespace, '--field-selector', 'involvedObject.name=roll-a', '-o', 'json']),
    );
    expect(events.items.map((event: { reason: string }) => event.reason)).toContain('RolloutRolledBack');
  });

  it('an image that cannot start (ErrImagePull) halts at the canary once the bound passes: back on its image, WORKING; kubectl switchboard rollout status says so', async () => {
    const before = await podUids();
    const broken = 'registry.invalid/switchboard-engine:broken';
    await releaseWith(SECOND, { SWITCHBOARD_ENGINE_IMAGE: broken, SWITCHBOARD_ROLLOUT_WORKING_TIMEOUT_SECONDS: '15' });
    await waitFor(async () => (await rollout())?.to?.image === broken && (await rollout()).phase === 'Halted', 'the NOWEB rollout to halt', 120_000);
    const state = await rollout();
    expect(state.message).toContain(`roll-a: not WORKING on ${broken} (client ${SECOND}) within 15 s`);
    expect(sessionsOf(state)).toEqual([
      ['roll-a', 'rolled_back', 0],
      ['roll-b', 'pending', null],
      ['roll-c', 'pending', null],
      ['roll-d', 'pending', null],
    ]);
    await waitFor(
      async () => {
        const { status } = await env.resource('roll-a');
        return status.status === 'WORKING' && status.versions?.image === ENGINE_IMAGE;
      },
      'the canary WORKING again on its image',
      120_000,
    );
    const after = await podUids();
    for (const name of [...ROLLED.slice(1), PINNED]) expect(after[name], name).toBe(before[name]);

    // The CLI the kubectl plugin runs, on the ConfigMaps as kubectl lists them.
    const list = await env.cp.kubectl(['get', 'configmap', '-n', env.namespace, '-l', 'app.kubernetes.io/component=rollout', '-o', 'json']);
    const cli = spawnSync(process.execPath, [fileURLToPath(new URL('../../cli/dist/main.js', import.meta.url)), 'rollout', 'status'], {
      input: list,
      encoding: 'utf8',
    });
    expect(cli.stdout).toContain('NOWEB: Halted, wave 0 (0 is the canary)');
    expect(cli.stdout).toContain(`  to   ${broken} (client ${SECOND})`);
    expect(cli.stdout).toMatch(new RegExp(`roll-a\\s+rolled_back\\s+0\\s+not WORKING on ${broken.replace(/[.]/g, '\\.')}`));
    expect(cli.status).toBe(1);
  });
});
