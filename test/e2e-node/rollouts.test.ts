// Engine version rollouts on the real node (docs/operations.md, "Rollouts"), with the chart as a
// platform team runs it: ten sessions (eight SANDBOX, two NOWEB on the fake WhatsApp server on the
// host), and three `helm upgrade`s of the socket engines' version:
// - a good image (the engine image tagged again under another repository, as a registry would
//   serve a new release): every session rolls onto it in waves, the canary first and alone, then
//   at most maxUnavailable at a time, each WORKING again before the next, without a new QR code;
// - a bad image (a repository the node does not have, with pullPolicy Never: the engine never
//   starts): the rollout halts at the canary, which goes back to its image and is WORKING again,
//   and no other session's pod restarts;
// - a client version the fake server refuses (as the service does when it retires one): the same,
//   for the NOWEB sessions.
// The rollout's state is read from its ConfigMap, as `kubectl switchboard rollout status` does.
import { type ReceivedHook, waitFor, WebhookReceiver } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FakeWaServer } from '../../engine-pod/test/fake-wa/index.js';
import { ensureNatsImage, type Manifest, must, nodeValues, Release, retag, seconds, untag } from './release.js';
import { connectNodeCluster } from './support/node-cluster.js';

const info = inject('nodeCluster');
const cluster = connectNodeCluster(info);
const release = new Release(cluster, info, 'sb-rollouts');
const SANDBOX = Array.from({ length: 8 }, (_, n) => `roll-${n}`);
const NOWEB = ['roll-noweb-0', 'roll-noweb-1'];
const ALL = [...SANDBOX, ...NOWEB];
const MAX_UNAVAILABLE = 3;
const GOOD = 'engine-next';
const MISSING = 'engine-missing';
const RETIRED = '2.3000.1000000666';
let fake: FakeWaServer;
let receiver: WebhookReceiver;
let values: Record<string, unknown>;

const engineImage = (repository: string) => `localhost/switchboard/${repository}:dev`;
const withEngine = (repository: string, extra: Record<string, unknown> = {}) => {
  const image = values.image as Record<string, unknown>;
  return { ...values, image: { ...image, repositories: { engine: repository } }, ...extra };
};
const qrsOf = (session: string) =>
  receiver.received.filter(
    (h: ReceivedHook) => h.body.session === session && h.body.event === 'session.status' && h.body.payload.status === 'SCAN_QR_CODE',
  ).length;

beforeAll(async () => {
  fake = await FakeWaServer.start({ host: cluster.hostAddress });
  receiver = await new WebhookReceiver().start(0, cluster.hostAddress);
  values = nodeValues(
    cluster,
    await ensureNatsImage(cluster),
    {
      engines: {
        extraEnv: [{ name: 'SWITCHBOARD_NOWEB_WS_URL', value: fake.url }],
        nowebConnectAttempts: 3,
        rollout: { canary: '1', maxUnavailable: String(MAX_UNAVAILABLE), workingTimeoutSeconds: 60 },
      },
    },
    { gateway: [receiver.url], engines: [fake.url] },
  );
  const took = await release.install(values);
  console.log(`e2e-node: helm install --wait took ${seconds(took)} (namespace ${release.namespace})`);
  const webhooks = [{ url: receiver.url, events: ['session.status'], retries: { policy: 'constant', delaySeconds: 1, attempts: 30 } }];
  for (const name of ALL) {
    const engine = NOWEB.includes(name) ? 'NOWEB' : 'SANDBOX';
    const created = await release.api('POST', '/api/sessions', { name, engine, config: { webhooks } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }
  for (const name of ALL) {
    await release.waitForStatus(name, 'SCAN_QR_CODE', 180_000);
    if (SANDBOX.includes(name)) expect((await release.api('POST', `/api/${name}/sandbox/simulate`, { kind: 'scan' })).status).toBe(201);
    else await fake.scanQr((await release.api('GET', `/api/${name}/auth/qr?format=raw`)).body.value as string, { pushName: name });
  }
  for (const name of ALL) await release.waitForStatus(name, 'WORKING', 120_000);
}, 1_200_000);

afterAll(async () => {
  await release.remove();
  await untag(info, engineImage(GOOD)).catch(() => {});
  await receiver?.stop();
  await fake?.close();
}, 600_000);

/** Each session's engine pod: its uid and image, by session. */
async function podsBySession(): Promise<Record<string, { uid: string; image: string }>> {
  const out: Record<string, { uid: string; image: string }> = {};
  for (const name of ALL) {
    const pod = await release.enginePod(name);
    out[name] = { uid: pod?.metadata.uid, image: pod?.spec.containers[0].image };
  }
  return out;
}

/** An engine's rollout as the operator keeps it (operator/src/rollout/rollout-state.ts) (null when there is none). */
async function rollout(engine: 'sandbox' | 'noweb'): Promise<Manifest> {
  const res = await release.kubectl(['get', 'configmap', `switchboard-rollout-${engine}`, '-o', 'json']);
  return res.code === 0 ? JSON.parse(JSON.parse(res.stdout).data.rollout) : null;
}

/** Polls an engine's rollout while `until` is not met, keeping the most sessions ever `updating` at once. */
async function watchRollout(
  engine: 'sandbox' | 'noweb',
  until: (state: Manifest) => boolean,
  what: string,
): Promise<{ state: Manifest; mostUpdating: number }> {
  let mostUpdating = 0;
  const state = await waitFor(
    async () => {
      const current = await rollout(engine);
      if (!current) return undefined;
      const updating = Object.values(current.sessions as Record<string, Manifest>).filter((s) => s.state === 'updating').length;
      mostUpdating = Math.max(mostUpdating, updating);
      return until(current) ? current : undefined;
    },
    what,
    600_000,
    250,
  );
  return { state, mostUpdating };
}

describe('engine version rollouts on the real node', () => {
  it('a good image rolls through ten sessions in waves: the canary alone, then at most maxUnavailable at a time, all WORKING on it without a new QR', async () => {
    const before = await podsBySession();
    const qrs = Object.fromEntries(ALL.map((name) => [name, qrsOf(name)]));
    await retag(info, engineImage('engine'), engineImage(GOOD));
    const started = Date.now();
    await release.upgrade(withEngine(GOOD));
    const sandbox = await watchRollout(
      'sandbox',
      (state) => state.phase === 'Complete' && state.to.image === engineImage(GOOD),
      'the SANDBOX rollout complete',
    );
    const noweb = await watchRollout(
      'noweb',
      (state) => state.phase === 'Complete' && state.to.image === engineImage(GOOD),
      'the NOWEB rollout complete',
    );
    console.log(`e2e-node: rollout of a good image over ten sessions: complete ${seconds(Date.now() - started)} after helm upgrade began`);
    for (const { state, mostUpdating } of [sandbox, noweb]) {
      const sessions = Object.values(state.sessions as Record<string, Manifest>);
      expect(sessions.every((s) => s.state === 'updated')).toBe(true);
      // The canary is wave 0 and alone; no later wave is larger than maxUnavailable.
      const waves = new Map<number, number>();
      for (const s of sessions) waves.set(s.wave, (waves.get(s.wave) ?? 0) + 1);
      expect(waves.get(0)).toBe(1);
      for (const [wave, size] of waves) if (wave > 0) expect(size, `wave ${wave}`).toBeLessThanOrEqual(MAX_UNAVAILABLE);
      expect(mostUpdating).toBeLessThanOrEqual(MAX_UNAVAILABLE);
    }
    expect(Object.keys(sandbox.state.sessions).length).toBe(SANDBOX.length);
    const after = await podsBySession();
    for (const name of ALL) {
      await release.waitForStatus(name, 'WORKING');
      expect(after[name]!.uid, name).not.toBe(before[name]!.uid);
      expect(after[name]!.image, name).toBe(engineImage(GOOD));
      expect(qrsOf(name), `${name}: no new QR code`).toBe(qrs[name]);
    }
  });

  it('a bad image halts at the canary, which goes back to its image WORKING; no other session restarts', async () => {
    const before = await podsBySession();
    const started = Date.now();
    await release.upgrade(withEngine(MISSING));
    const { state } = await watchRollout('sandbox', (s) => s.phase === 'Halted' && s.to.image === engineImage(MISSING), 'the SANDBOX rollout halted');
    console.log(`e2e-node: a bad image: the rollout halted ${seconds(Date.now() - started)} after helm upgrade began`);
    const sessions = state.sessions as Record<string, Manifest>;
    const canaries = Object.entries(sessions).filter(([, s]) => s.wave === 0);
    expect(canaries.map(([, s]) => s.state)).toEqual(['rolled_back']);
    expect(Object.values(sessions).filter((s) => s.state === 'updating' || s.state === 'updated')).toEqual([]);
    const canary = SANDBOX.find((name) => sessions[name]?.wave === 0)!;
    await waitFor(
      async () => (await release.enginePod(canary))?.spec.containers[0].image === engineImage(GOOD),
      'the canary back on its image',
      180_000,
      500,
    );
    await release.waitForStatus(canary, 'WORKING', 180_000);
    const after = await podsBySession();
    for (const name of SANDBOX.filter((n) => n !== canary)) expect(after[name], `${name} untouched`).toEqual(before[name]);
    const status = await must(release.kubectl(['get', 'events', '--field-selector', 'reason=RolloutRolledBack', '-o', 'json']), 'events');
    expect(JSON.parse(status).items.length).toBeGreaterThan(0);
  });

  it('a client version the fake server refuses halts at the NOWEB canary, which goes back WORKING on its version; the other NOWEB session is untouched', async () => {
    fake.retireClientVersion(RETIRED);
    const before = await podsBySession();
    // Back to the good image (the SANDBOX rollout has nothing left to do: its sessions run it), and
    // a retired client version for NOWEB.
    const engines = values.engines as Record<string, unknown>;
    await release.upgrade(withEngine(GOOD, { engines: { ...engines, clientVersions: { NOWEB: RETIRED } } }));
    const { state } = await watchRollout('noweb', (s) => s.phase === 'Halted' && s.to.clientVersion === RETIRED, 'the NOWEB rollout halted');
    const sessions = state.sessions as Record<string, Manifest>;
    const canary = NOWEB.find((name) => sessions[name]?.wave === 0)!;
    expect(sessions[canary]!.state).toBe('rolled_back');
    const other = NOWEB.find((name) => name !== canary)!;
    expect(sessions[other]!.state).toBe('pending');
    await release.waitForStatus(canary, 'WORKING', 180_000);
    expect(fake.presentedVersions).toContain(RETIRED);
    const after = await podsBySession();
    expect(after[other]).toEqual(before[other]);
    for (const name of SANDBOX) await release.waitForStatus(name, 'WORKING');
  });
});
