// Two operator replicas against a real kube-apiserver: one Lease, one leader, and a takeover
// when the leader stops or is cut off from the API server.
import { CoordinationV1Api } from '@kubernetes/client-node';
import { type NatsServer, startNatsServer, TcpProxy } from '@switchboard/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { OperatorConfig } from '../src/config.js';
import { type RunningOperator, startOperator } from '../src/operator.js';
import { TestCluster } from './support/cluster.js';
import { testLog } from './support/log.js';
import { sleep, waitForApiServer } from './support/wait.js';

describe('leader election between two replicas', { timeout: 60_000 }, () => {
  let cluster: TestCluster;
  let nats: NatsServer;
  const cleanups: (() => unknown)[] = [];

  beforeAll(async () => {
    [cluster, nats] = await Promise.all([TestCluster.start(), startNatsServer()]);
  }, 180_000);
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(async () => {
    await nats?.stop();
    await cluster?.stop();
  }, 60_000);

  async function replica(namespace: string, identity: string, config: Partial<OperatorConfig> = {}): Promise<RunningOperator> {
    const operator = await startOperator(cluster.operatorConfig(namespace, nats.url, { identity, ...config }), { log: testLog });
    cleanups.push(() => operator.stop());
    return operator;
  }

  async function holder(namespace: string): Promise<string | undefined> {
    const lease = await cluster.kubeConfig.makeApiClient(CoordinationV1Api).readNamespacedLease({ namespace, name: 'switchboard-operator' });
    return lease.spec?.holderIdentity;
  }

  async function reporters(namespace: string, session: string): Promise<string[]> {
    return [...new Set((await cluster.eventsOf(namespace, session)).map((e) => e.reportingInstance))];
  }

  it('only the replica holding the lease reconciles', async () => {
    const ns = await cluster.namespace('two');
    const a = await replica(ns, 'operator-a');
    await waitForApiServer(async () => a.isLeader, 'a leader');
    const b = await replica(ns, 'operator-b');
    await cluster.createSession(ns, 's1');
    await waitForApiServer(() => cluster.pod(ns, 's1'), 'the engine pod');
    await sleep(3_000);

    expect(b.isLeader).toBe(false);
    expect(await holder(ns)).toBe('operator-a');
    expect(await cluster.enginePods(ns)).toHaveLength(1);
    expect(await reporters(ns, 's1')).toEqual(['operator-a']);
  });

  it('a leader that stops releases the lease; the other takes over at once', async () => {
    const ns = await cluster.namespace('handover');
    const a = await replica(ns, 'operator-a');
    await waitForApiServer(async () => a.isLeader, 'a leader');
    const b = await replica(ns, 'operator-b');
    await sleep(2_500); // b has seen the lease held

    const stoppedAt = Date.now();
    await a.stop();
    await waitForApiServer(async () => b.isLeader, 'b leading', 20_000);
    // Released, so b need not wait out the 15 s lease: its next 2 to 4.4 s retry takes it.
    expect(Date.now() - stoppedAt).toBeLessThan(8_000);
    expect(await holder(ns)).toBe('operator-b');

    await cluster.createSession(ns, 's2');
    await waitForApiServer(() => cluster.pod(ns, 's2'), 'the engine pod');
    await waitForApiServer(async () => (await reporters(ns, 's2')).includes('operator-b'), 'an event from b');
    expect(await reporters(ns, 's2')).toEqual(['operator-b']);
  });

  it('a standby wakes on the release: with a retry period of a minute it still takes the released lease at once (it watches the lease)', async () => {
    const ns = await cluster.namespace('woken');
    const a = await replica(ns, 'operator-a');
    await waitForApiServer(async () => a.isLeader, 'a leader');
    const slow = { leaseDurationMs: 120_000, renewDeadlineMs: 90_000, retryPeriodMs: 60_000 };
    const b = await startOperator(cluster.operatorConfig(ns, nats.url, { identity: 'operator-b' }), { log: testLog, leaseTimings: slow });
    cleanups.push(() => b.stop());
    await sleep(2_500); // b has tried once, found the lease held, and sleeps for 60 to 132 s

    await a.stop();
    // Its next retry is a minute away at least: only the watch can bring b in before this waits out.
    await waitForApiServer(async () => b.isLeader, 'b leading', 20_000);
    expect(await holder(ns)).toBe('operator-b');
  });

  it('a leader cut off from the API server stops leading after the renew deadline; the other takes over within about 20 s', async () => {
    const ns = await cluster.namespace('cutoff');
    const proxy = await TcpProxy.start(cluster.cp.server);
    cleanups.push(() => proxy.stop());
    const a = await replica(ns, 'operator-a', { kubeConfig: cluster.kubeConfigVia(proxy.url) });
    await waitForApiServer(async () => a.isLeader, 'a leader');
    const b = await replica(ns, 'operator-b');
    await sleep(2_500);

    const cutAt = Date.now();
    await proxy.cut();
    let lostAfter = 0;
    void a.leadershipLost.then(() => (lostAfter = Date.now() - cutAt));
    await waitForApiServer(async () => b.isLeader, 'b leading', 25_000);
    const takeover = Date.now() - cutAt;

    // a gave up (10 s renew deadline, counted from its last renew) before b took the lease
    // (15 s after b last saw it renewed): never two leaders at once.
    expect(lostAfter).toBeGreaterThan(0);
    expect(lostAfter).toBeLessThan(takeover);
    // 15 s after b last saw a renew, plus b's retry period (2 to 4.4 s): about 20 s, at most 24.
    expect(takeover).toBeLessThan(25_000);
    expect(a.isLeader).toBe(false);

    await cluster.createSession(ns, 's3');
    await waitForApiServer(() => cluster.pod(ns, 's3'), 'the engine pod');
    await waitForApiServer(async () => (await reporters(ns, 's3')).includes('operator-b'), 'an event from b');
  });
});
