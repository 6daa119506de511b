// The operator against a real kube-apiserver and a real NATS server: one engine pod per Running
// session, Stopped removes it, the logout finalizer, the status from engine events, and informers
// that survive broken watches. No kubelet runs: the tests play its part on pod status.
import { objectStoreExists } from '@switchboard/kube';
import { ANNOTATIONS, LOGOUT_FINALIZER, OBJECT_STORES } from '@switchboard/protocol';
import { type NatsServer, sample, startNatsServer, TcpProxy } from '@switchboard/testkit';
import { connect, type NatsConnection } from 'nats';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type OperatorOptions, type RunningOperator, startOperator } from '../src/operator.js';
import type { OperatorConfig } from '../src/config.js';
import { TestCluster } from './support/cluster.js';
import { testLog } from './support/log.js';
import { sleep, waitForApiServer } from './support/wait.js';
import { FakeEngine } from './support/fake-engine.js';

const me = { id: '15550000000@c.us', pushName: 'Sandbox' };
const HOLD = 'test.switchboard.dev/hold';

describe('operator against a real API server', { timeout: 60_000 }, () => {
  let cluster: TestCluster;
  let nats: NatsServer;
  let nc: NatsConnection;
  const cleanups: (() => unknown)[] = [];

  beforeAll(async () => {
    [cluster, nats] = await Promise.all([TestCluster.start(), startNatsServer()]);
    nc = await connect({ servers: nats.url });
  }, 180_000);
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(async () => {
    await nc?.close();
    await nats?.stop();
    await cluster?.stop();
  }, 60_000);

  async function operatorIn(namespace: string, config: Partial<OperatorConfig> = {}, options: OperatorOptions = {}): Promise<RunningOperator> {
    const operator = await startOperator(cluster.operatorConfig(namespace, nats.url, config), { log: testLog, ...options });
    cleanups.push(() => operator.stop());
    return operator;
  }

  function fakeEngine(session: string, answer?: (op: string) => Promise<unknown>): FakeEngine {
    const engine = new FakeEngine(nc, session, answer);
    cleanups.push(() => engine.stop());
    return engine;
  }

  const statusOf = async (ns: string, name: string) => (await cluster.session(ns, name))?.status;

  describe('desired state Running', () => {
    it('gets exactly one engine pod, controlled by the resource, that passes the restricted Pod Security Standard', async () => {
      const ns = await cluster.namespace('running');
      await cluster.cp.kubectl(['label', 'namespace', ns, 'pod-security.kubernetes.io/enforce=restricted']);
      await operatorIn(ns, {}, { resyncMs: 300 });
      const resource = await cluster.createSession(ns, 's1', { config: { metadata: { team: 'a' } } });

      const pod = await waitForApiServer(() => cluster.pod(ns, 's1'), 'the engine pod');
      await sleep(1_500); // several resyncs: still the same one pod
      const pods = await cluster.enginePods(ns);
      expect(pods.map((p) => p.metadata?.uid)).toEqual([pod.metadata?.uid]);

      expect(pod.metadata?.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'MessagingSession', name: 's1', uid: resource.metadata.uid, controller: true, blockOwnerDeletion: true }),
      ]);
      const container = pod.spec!.containers[0]!;
      expect(container.name).toBe('engine');
      expect(container.image).toBe('ghcr.io/switchboard/engine:1');
      expect(container.env).toEqual(
        expect.arrayContaining([
          { name: 'SWITCHBOARD_SESSION', value: 's1' },
          { name: 'SWITCHBOARD_ENGINE', value: 'SANDBOX' },
          { name: 'SWITCHBOARD_NATS_URL', value: nats.url },
          { name: 'SWITCHBOARD_METADATA', value: '{"team":"a"}' },
          { name: 'SWITCHBOARD_HEALTH_PORT', value: '8080' },
        ]),
      );

      const stored = await waitForApiServer(async () => {
        const current = await cluster.session(ns, 's1');
        return current?.status?.status === 'STARTING' && current.status.podName === 'engine-s1' && current;
      }, 'status STARTING');
      expect(stored.metadata.finalizers).toEqual([LOGOUT_FINALIZER]);
      const reasons = (await cluster.eventsOf(ns, 's1')).map((e) => e.reason);
      expect(reasons.filter((r) => r === 'PodCreated')).toHaveLength(1);
      expect(await cluster.cp.kubectl(['describe', 'msess', 's1', '-n', ns])).toMatch(
        /PodCreated\s+\S+\s+switchboard-operator\s+Created engine pod engine-s1/,
      );
    });

    it("gives a NOWEB pod the proxy's password from the Secret the resource names: the pod as stored holds no password", async () => {
      const ns = await cluster.namespace('proxy');
      await operatorIn(ns);
      const passwordFrom = { secretKeyRef: { name: 'my-proxy', key: 'password' } };
      const proxy = { server: 'proxy.example.com:3128', username: 'u', passwordFrom };
      await cluster.createSession(ns, 'p1', { engine: 'NOWEB', config: { proxy } });

      const pod = await waitForApiServer(() => cluster.pod(ns, 'p1'), 'the engine pod');
      const env = pod.spec!.containers[0]!.env!;
      expect(env).toContainEqual({ name: 'SWITCHBOARD_PROXY_PASSWORD', valueFrom: passwordFrom });
      expect(env).toContainEqual({ name: 'SWITCHBOARD_ENGINE_SETTINGS', value: JSON.stringify({ proxy: { server: proxy.server, username: 'u' } }) });
      expect(JSON.stringify(env)).not.toMatch(/"password"\s*:/);
    });

    it('never creates a second pod while the old one is terminating; the new one comes once it is gone', async () => {
      const ns = await cluster.namespace('terminating');
      await operatorIn(ns);
      await cluster.createSession(ns, 's1');
      const old = await waitForApiServer(() => cluster.pod(ns, 's1'), 'the engine pod');
      await cluster.patchPod(ns, 's1', { metadata: { finalizers: [HOLD] } });

      await cluster.patchSession(ns, 's1', { metadata: { annotations: { [ANNOTATIONS.restartedAt]: '2026-11-21T10:00:00Z' } } });
      await waitForApiServer(async () => (await cluster.pod(ns, 's1'))?.metadata?.deletionTimestamp, 'the old pod terminating');
      await sleep(3_000);
      const meanwhile = await cluster.enginePods(ns);
      expect(meanwhile.map((p) => p.metadata?.uid)).toEqual([old.metadata?.uid]);

      await cluster.patchPod(ns, 's1', { metadata: { finalizers: null } });
      const replacement = await waitForApiServer(async () => {
        const pod = await cluster.pod(ns, 's1');
        return pod && pod.metadata?.uid !== old.metadata?.uid && pod;
      }, 'the new pod');
      expect(replacement.metadata?.annotations?.[ANNOTATIONS.podRestartedAt]).toBe('2026-11-21T10:00:00Z');
      expect(await cluster.enginePods(ns)).toHaveLength(1);
    });

    it('replaces a Failed pod', async () => {
      const ns = await cluster.namespace('failed');
      await operatorIn(ns);
      await cluster.createSession(ns, 's1');
      const old = await waitForApiServer(() => cluster.pod(ns, 's1'), 'the engine pod');
      await cluster.core.patchNamespacedPodStatus({
        namespace: ns,
        name: 'engine-s1',
        body: [{ op: 'add', path: '/status/phase', value: 'Failed' }],
      });
      await waitForApiServer(async () => {
        const pod = await cluster.pod(ns, 's1');
        return pod && pod.metadata?.uid !== old.metadata?.uid;
      }, 'a new pod');
    });
  });

  describe('terminal errors (issue 12 item 9)', () => {
    it('an engine this build lacks, or a spec the protocol refuses: FAILED with the reason as a condition, no pod, no retry loop', async () => {
      const ns = await cluster.namespace('refused');
      const operator = await operatorIn(ns, {}, { resyncMs: 300 });
      // The CRD's enum has only this build's engines (every name of the interface now): the API
      // server refuses any other.
      const refused = await cluster.createSession(ns, 'telegram-new', { engine: 'TELEGRAM' }).catch((error: unknown) => error);
      expect((refused as { code?: number }).code).toBe(422);
      expect((JSON.parse(String((refused as { body?: unknown }).body)) as { message: string }).message).toContain(
        'spec.engine: Unsupported value: "TELEGRAM"',
      );
      // One stored under another CRD whose enum had it (a build with an engine this one lacks) is refused by the operator.
      await cluster.withEarlierEngineEnum(['TELEGRAM'], () =>
        waitForApiServer(
          () => cluster.createSession(ns, 'telegram', { engine: 'TELEGRAM' }).catch(() => null),
          'a TELEGRAM resource under the other CRD',
        ),
      );
      // The CRD lets any string through as a url; the protocol takes http(s) only.
      await cluster.createSession(ns, 'ftp', { config: { webhooks: [{ url: 'ftp://example.com/in', events: ['message'] }] } });
      const failed = (name: string) =>
        waitForApiServer(async () => {
          const s = await statusOf(ns, name);
          return s?.status === 'FAILED' && s;
        }, `${name} FAILED`);

      // Its status is written under today's CRD all the same: an unchanged field is not checked again.
      const unknown = await failed('telegram');
      expect(unknown.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
        status: 'False',
        reason: 'EngineNotAvailable',
        message: expect.stringMatching(/^engine TELEGRAM is not in this build; available: .*SANDBOX.*WPP/),
      });
      const ftp = await failed('ftp');
      expect(ftp.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
        status: 'False',
        reason: 'InvalidSpec',
        message: expect.stringContaining('spec.config.webhooks.0.url'),
      });

      // Several resyncs later: still no pod, and not one reconcile ended in an error to retry.
      await sleep(1_500);
      expect(await cluster.pod(ns, 'telegram')).toBeNull();
      expect(await cluster.pod(ns, 'ftp')).toBeNull();
      const metrics = await (await fetch(`http://127.0.0.1:${operator.httpPort}/metrics`)).text();
      expect(sample(metrics, 'switchboard_operator_reconciles_total', { outcome: 'error' })).toBe(0);
      expect((await statusOf(ns, 'telegram'))?.status).toBe('FAILED');

      // A spec this build can run clears it: a pod, and the condition moves on.
      await cluster.patchSession(ns, 'telegram', { spec: { engine: 'SANDBOX' } });
      await waitForApiServer(() => cluster.pod(ns, 'telegram'), 'a pod for the engine this build has');
      await waitForApiServer(
        async () => (await statusOf(ns, 'telegram'))?.conditions?.find((c) => c.type === 'Ready')?.reason !== 'EngineNotAvailable',
        'the refusal cleared',
      );
    });

    it('carries the reason of an engine that reports FAILED into the Ready condition', async () => {
      const ns = await cluster.namespace('engine-failed');
      const engine = fakeEngine('fail1', async () => ({ status: 'STARTING', statuses: [{ status: 'STARTING', timestamp: Date.now() }], me: null }));
      await operatorIn(ns);
      await cluster.createSession(ns, 'fail1');
      await waitForApiServer(() => cluster.pod(ns, 'fail1'), 'the engine pod');
      await cluster.markPodReady(ns, 'fail1');
      await waitForApiServer(async () => engine.received.includes('host.status'), 'the question');
      engine.publishStatus('FAILED', undefined, 'could not connect to wss://example in 10 attempts in a row');
      const status = await waitForApiServer(async () => {
        const s = await statusOf(ns, 'fail1');
        return s?.status === 'FAILED' && s;
      }, 'FAILED from the engine');
      expect(status.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
        status: 'False',
        reason: 'Failed',
        message: 'The session is FAILED: could not connect to wss://example in 10 attempts in a row',
      });
    });
  });

  describe('desired state Stopped', () => {
    it('deletes the pod and reports STOPPED; Running again brings a pod back', async () => {
      const ns = await cluster.namespace('stopped');
      await operatorIn(ns);
      await cluster.createSession(ns, 's1');
      await waitForApiServer(() => cluster.pod(ns, 's1'), 'the engine pod');

      await cluster.patchSession(ns, 's1', { spec: { desiredState: 'Stopped' } });
      await waitForApiServer(async () => (await cluster.pod(ns, 's1')) === null, 'the pod gone');
      const status = await waitForApiServer(async () => {
        const s = await statusOf(ns, 's1');
        return s?.status === 'STOPPED' && s;
      }, 'status STOPPED');
      expect(status.podName ?? null).toBeNull();
      expect(status.conditions?.find((c) => c.type === 'PodReady')).toMatchObject({ status: 'False', reason: 'Stopped' });

      await cluster.patchSession(ns, 's1', { spec: { desiredState: 'Running' } });
      await waitForApiServer(() => cluster.pod(ns, 's1'), 'a pod again');
    });
  });

  describe('status from the engine', () => {
    it('asks a ready pod that has not reported for host.status', async () => {
      const ns = await cluster.namespace('ask');
      const engine = fakeEngine('ask1', async (op) =>
        op === 'host.status' ? { status: 'SCAN_QR_CODE', statuses: [{ status: 'SCAN_QR_CODE', timestamp: Date.now() }], me: null } : null,
      );
      await operatorIn(ns);
      await cluster.createSession(ns, 'ask1');
      await waitForApiServer(() => cluster.pod(ns, 'ask1'), 'the engine pod');
      await cluster.markPodReady(ns, 'ask1');
      await waitForApiServer(async () => (await statusOf(ns, 'ask1'))?.status === 'SCAN_QR_CODE', 'status SCAN_QR_CODE');
      expect(engine.received).toContain('host.status');
    });

    it('follows session.status events: status, statuses, me and conditions that carry the observed generation', async () => {
      const ns = await cluster.namespace('events');
      const engine = fakeEngine('evt1', async () => ({ status: 'STARTING', statuses: [{ status: 'STARTING', timestamp: Date.now() }], me: null }));
      await operatorIn(ns);
      await cluster.createSession(ns, 'evt1');
      await waitForApiServer(() => cluster.pod(ns, 'evt1'), 'the engine pod');
      await cluster.markPodReady(ns, 'evt1');
      await waitForApiServer(async () => engine.received.includes('host.status'), 'the question');

      engine.publishStatus('WORKING', me);
      const working = await waitForApiServer(async () => {
        const resource = await cluster.session(ns, 'evt1');
        return resource?.status?.status === 'WORKING' && resource;
      }, 'status WORKING');
      expect(working.status?.me).toEqual(me);
      expect(working.status?.statuses?.map((p) => p.status)).toEqual(['STARTING', 'WORKING']);
      const ready = working.status?.conditions?.find((c) => c.type === 'Ready');
      expect(ready).toMatchObject({ status: 'True', reason: 'Working', observedGeneration: working.metadata.generation });
      expect(working.status?.conditions?.find((c) => c.type === 'PodReady')).toMatchObject({ status: 'True' });

      // A spec change that needs no new pod: the generation moves, the transition time stays.
      await cluster.patchSession(ns, 'evt1', { spec: { config: { metadata: { team: 'b' } } } });
      const observed = await waitForApiServer(async () => {
        const resource = await cluster.session(ns, 'evt1');
        return resource?.status?.observedGeneration === resource?.metadata.generation && resource!.metadata.generation! > 1 && resource;
      }, 'the new generation observed');
      expect(observed.status?.conditions?.every((c) => c.observedGeneration === observed.metadata.generation)).toBe(true);
      expect(observed.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime).toBe(ready?.lastTransitionTime);

      engine.publishStatus('SCAN_QR_CODE');
      const unpaired = await waitForApiServer(async () => {
        const s = await statusOf(ns, 'evt1');
        return s?.status === 'SCAN_QR_CODE' && s;
      }, 'status SCAN_QR_CODE');
      expect(unpaired.me ?? null).toBeNull();
      expect(unpaired.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'ScanQrCode' });
      const reasons = (await cluster.eventsOf(ns, 'evt1')).map((e) => e.reason);
      expect(reasons).toContain('StatusChanged');
    });
  });

  describe('deletion and the logout finalizer', () => {
    /** Whether the session's media and command buckets exist. */
    const objectBuckets = (session: string) =>
      Promise.all([OBJECT_STORES.media(session), OBJECT_STORES.commands(session)].map((bucket) => objectStoreExists(nc, bucket)));

    async function authKeys(): Promise<string[]> {
      const kv = await nc.jetstream().views.kv('sb_auth');
      const keys: string[] = [];
      for await (const key of await kv.keys()) keys.push(key);
      return keys.sort();
    }

    async function putAuth(...keys: string[]): Promise<void> {
      const kv = await nc.jetstream().views.kv('sb_auth');
      for (const key of keys) await kv.put(key, '{"k":1}');
    }

    it('with the logout annotation: a ready engine logs out first, then the pod goes, the auth state is purged, the resource goes', async () => {
      const ns = await cluster.namespace('logout');
      await putAuth('lo1.creds.main', 'lo1.keys.k1', 'keep1.creds.main');
      let podDuringLogout: unknown = null;
      const engine = fakeEngine('lo1', async (op) => {
        if (op === 'host.status') return { status: 'WORKING', statuses: [{ status: 'WORKING', timestamp: Date.now() }], me };
        if (op === 'host.logout') {
          const [pod, resource] = await Promise.all([cluster.pod(ns, 'lo1'), cluster.session(ns, 'lo1')]);
          podDuringLogout = {
            podAlive: pod !== null && !pod.metadata?.deletionTimestamp,
            resourceDeleting: Boolean(resource?.metadata.deletionTimestamp),
          };
          await sleep(1_000);
        }
        return null;
      });
      await operatorIn(ns);
      await cluster.createSession(ns, 'lo1');
      await waitForApiServer(() => cluster.pod(ns, 'lo1'), 'the engine pod');
      await cluster.markPodReady(ns, 'lo1');
      await waitForApiServer(async () => (await statusOf(ns, 'lo1'))?.status === 'WORKING', 'status WORKING');

      await cluster.patchSession(ns, 'lo1', { metadata: { annotations: { [ANNOTATIONS.logoutOnDelete]: 'true' } } });
      await cluster.deleteSession(ns, 'lo1');
      await waitForApiServer(async () => (await cluster.session(ns, 'lo1')) === null, 'the resource gone', 20_000);

      expect(engine.received).toContain('host.logout');
      expect(podDuringLogout).toEqual({ podAlive: true, resourceDeleting: true });
      expect(await cluster.pod(ns, 'lo1')).toBeNull();
      expect(await authKeys()).not.toEqual(expect.arrayContaining(['lo1.creds.main']));
      expect((await authKeys()).filter((k) => k.startsWith('lo1.'))).toEqual([]);
      expect(await authKeys()).toContain('keep1.creds.main');
      const reasons = (await cluster.eventsOf(ns, 'lo1')).map((e) => e.reason);
      expect(reasons).toEqual(expect.arrayContaining(['LoggedOut', 'PodDeleted', 'AuthPurged']));
      expect(reasons.indexOf('LoggedOut')).toBeLessThan(reasons.lastIndexOf('PodDeleted'));
    });

    it('with the logout annotation and no running pod: no logout command, the auth state is still purged', async () => {
      const ns = await cluster.namespace('logout-idle');
      await putAuth('idle1.creds.main');
      const engine = fakeEngine('idle1');
      await operatorIn(ns);
      await cluster.createSession(ns, 'idle1', {}, { [ANNOTATIONS.logoutOnDelete]: 'true' });
      await waitForApiServer(() => cluster.pod(ns, 'idle1'), 'the engine pod');
      await cluster.deleteSession(ns, 'idle1');
      await waitForApiServer(async () => (await cluster.session(ns, 'idle1')) === null, 'the resource gone');
      expect(engine.received).not.toContain('host.logout');
      expect((await authKeys()).filter((k) => k.startsWith('idle1.'))).toEqual([]);
    });

    it('without the annotation: the resource waits for its terminating pod, then goes; the auth state is kept', async () => {
      const ns = await cluster.namespace('plain-delete');
      await putAuth('plain1.creds.main');
      const engine = fakeEngine('plain1');
      await operatorIn(ns);
      await cluster.createSession(ns, 'plain1');
      await waitForApiServer(() => cluster.pod(ns, 'plain1'), 'the engine pod');
      // The session's own object store buckets come before its pod, and stay while it is there.
      expect(await objectBuckets('plain1')).toEqual([true, true]);
      await waitForApiServer(async () => (await cluster.session(ns, 'plain1'))?.metadata.finalizers?.includes(LOGOUT_FINALIZER), 'the finalizer');
      await cluster.patchPod(ns, 'plain1', { metadata: { finalizers: [HOLD] } });

      await cluster.deleteSession(ns, 'plain1');
      await waitForApiServer(async () => (await cluster.pod(ns, 'plain1'))?.metadata?.deletionTimestamp, 'the pod terminating');
      await sleep(2_000);
      expect((await cluster.session(ns, 'plain1'))?.metadata.deletionTimestamp).toBeTruthy();
      expect(await objectBuckets('plain1')).toEqual([true, true]);

      await cluster.patchPod(ns, 'plain1', { metadata: { finalizers: null } });
      await waitForApiServer(async () => (await cluster.session(ns, 'plain1')) === null, 'the resource gone');
      expect(engine.received).not.toContain('host.logout');
      expect(await authKeys()).toContain('plain1.creds.main');
      // Its media and command buckets went before the resource did.
      expect(await objectBuckets('plain1')).toEqual([false, false]);
    });
  });

  describe('informers', () => {
    it('restart a watch that broke (connections dropped, then refused) and reconcile what happened meanwhile', async () => {
      const ns = await cluster.namespace('watch-broken');
      const proxy = await TcpProxy.start(cluster.cp.server);
      cleanups.push(() => proxy.stop());
      await operatorIn(ns, { kubeConfig: cluster.kubeConfigVia(proxy.url) }, { resyncMs: 600_000 });
      await cluster.createSession(ns, 'w1');
      await waitForApiServer(() => cluster.pod(ns, 'w1'), 'the first pod');

      await proxy.cut();
      await cluster.createSession(ns, 'w2');
      await sleep(3_000); // well within the 10 s renew deadline: the replica stays the leader
      await proxy.resume();
      await waitForApiServer(() => cluster.pod(ns, 'w2'), 'the pod of the session created while cut off', 20_000);
      await cluster.createSession(ns, 'w3');
      await waitForApiServer(() => cluster.pod(ns, 'w3'), 'a pod from the restarted watch');
    });

    it('keep their API calls on a few kept connections: ten sessions reconciled without a TLS handshake per call', async () => {
      const ns = await cluster.namespace('keepalive');
      const proxy = await TcpProxy.start(cluster.cp.server);
      cleanups.push(() => proxy.stop());
      const operator = await operatorIn(ns, { kubeConfig: cluster.kubeConfigVia(proxy.url) }, { resyncMs: 600_000 });
      await waitForApiServer(async () => operator.isLeader, 'the replica leading');
      const before = proxy.connections;
      const names = Array.from({ length: 10 }, (_, i) => `k${i}`);
      for (const name of names) await cluster.createSession(ns, name);
      for (const name of names) await waitForApiServer(() => cluster.pod(ns, name), `the pod of ${name}`);
      await waitForApiServer(async () => (await statusOf(ns, 'k9'))?.status === 'STARTING' && true, 'the last status written');
      // Each session took a finalizer, a pod, a status and events: over forty calls, which
      // @kubernetes/client-node alone makes on as many new connections (kube/src/kube-connections.ts).
      expect(proxy.connections - before).toBeLessThanOrEqual(8);
    });

    it('restart a watch that stays quiet longer than the timeout', async () => {
      const ns = await cluster.namespace('watch-quiet');
      // What the informers say of their watches: the restarts themselves, not the connections
      // they open (those are kept and reused, kube/src/kube-connections.ts).
      const lines: { msg?: string; informer?: string }[] = [];
      const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) });
      await operatorIn(ns, {}, { resyncMs: 600_000, watchQuietTimeoutMs: 1_000, log });
      await sleep(1_000);
      const resumed = () => lines.filter((line) => line.msg === 'watch stalled; resuming it');
      const before = resumed().length;
      await sleep(3_500);
      // Two informers, each restarted about three times in 3.5 s.
      expect(resumed().length - before).toBeGreaterThanOrEqual(4);
      expect(new Set(resumed().map((line) => line.informer)).size).toBe(2);
      await cluster.createSession(ns, 'q1');
      await waitForApiServer(() => cluster.pod(ns, 'q1'), 'the pod');
    });
  });
});
