// helm install on the real node, as docs/operations.md tells a platform team: the CRD, the
// operator (2 replicas, leader election), the gateway (2 replicas), the bundled NATS, the
// NetworkPolicies, in a namespace that enforces the restricted Pod Security standard. Every pod
// is a real container of the images `make images` built (imported, never pulled). Then the
// operator leader's pod is deleted and the other replica takes over, and the release is removed
// the documented way, leaving no pod behind.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { waitFor } from '@switchboard/testkit';
import { ensureNatsImage, type Manifest, must, nodeValues, Release, seconds, USER_ID } from './release.js';
import { probePod, tcpReach } from './reach.js';
import { connectNodeCluster } from './support/node-cluster.js';

const info = inject('nodeCluster');
const cluster = connectNodeCluster(info);
const release = new Release(cluster, info, 'sb-install');
const { full } = release;

const ready = (pod: Manifest) => pod.status?.conditions?.find((c: Manifest) => c.type === 'Ready')?.status === 'True';
const componentPods = async (component: string) =>
  (
    (await release.json('pods', '-l', `app.kubernetes.io/instance=${release.name},app.kubernetes.io/component=${component}`)).items as Manifest[]
  ).filter((pod) => !pod.metadata.deletionTimestamp);
const leaseHolder = async () => (await release.json('lease', `${full}-operator`)).spec.holderIdentity as string;

beforeAll(async () => {
  const nats = await ensureNatsImage(cluster);
  const took = await release.install(nodeValues(cluster, nats));
  console.log(`e2e-node: helm install --wait of the chart took ${seconds(took)} (namespace ${release.namespace})`);
}, 900_000);

afterAll(() => release.remove(), 600_000);

describe('helm install on a real node, as docs/operations.md tells a platform team', () => {
  it('runs the operator (2 replicas, one leader), the gateway (2), the bundled NATS and the NetworkPolicies, in a namespace enforcing restricted', async () => {
    const namespace = JSON.parse(await must(cluster.kubectl(['get', 'namespace', release.namespace, '-o', 'json']), 'get namespace'));
    expect(namespace.metadata.labels['pod-security.kubernetes.io/enforce']).toBe('restricted');
    const crd = JSON.parse(await must(cluster.kubectl(['get', 'crd', 'messagingsessions.switchboard.dev', '-o', 'json']), 'get crd'));
    expect(crd.status.conditions.find((c: Manifest) => c.type === 'Established')?.status).toBe('True');

    for (const [component, replicas, image] of [
      ['operator', 2, 'localhost/switchboard/operator:dev'],
      ['gateway', 2, 'localhost/switchboard/gateway:dev'],
      ['nats', 1, 'localhost/switchboard/nats:'],
    ] as const) {
      const pods = await componentPods(component);
      expect(pods.map((pod) => pod.metadata.name).length, component).toBe(replicas);
      for (const pod of pods) {
        expect(ready(pod), pod.metadata.name).toBe(true);
        expect(pod.spec.containers[0].image).toContain(image);
        // A container the runtime started from the imported image, not a process of ours.
        expect(pod.status.containerStatuses[0].containerID).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);
      }
    }
    // The NATS volume is bound, and JetStream is on it (the streams exist, so the pod is ready on /healthz?js-enabled-only).
    expect((await release.json('pvc', `data-${full}-nats-0`)).status.phase).toBe('Bound');

    const operators = (await componentPods('operator')).map((pod) => pod.metadata.name as string);
    expect(operators).toContain(await leaseHolder());

    const policies = ((await release.json('networkpolicies')).items as Manifest[]).map((p) => p.metadata.name as string).sort();
    expect(policies).toEqual([`${full}-engines`, `${full}-gateway`, `${full}-nats`, `${full}-operator`]);

    // The API through the Service, with the generated key; a wrong key is refused.
    expect((await release.api('GET', '/api/sessions')).status).toBe(200);
    expect((await release.api('GET', '/api/sessions', undefined, 'wrong-key')).status).toBe(401);
  });

  it('runs every container of the release as uid 10001, read-only root, no capabilities, RuntimeDefault seccomp (crictl inspect)', async () => {
    const pods = (await release.json('pods', '-l', `app.kubernetes.io/instance=${release.name}`)).items as Manifest[];
    expect(pods.length).toBe(5);
    for (const pod of pods) {
      const id = (pod.status.containerStatuses[0].containerID as string).replace(/^containerd:\/\//, '');
      const inspected = JSON.parse(await must(cluster.crictl(['inspect', id]), `crictl inspect ${pod.metadata.name}`));
      const spec = inspected.info.runtimeSpec;
      const what = `${pod.metadata.name}: ${JSON.stringify(spec.process.capabilities ?? {})}`;
      expect(spec.process.user.uid, what).toBe(USER_ID);
      expect(spec.process.user.gid, what).toBe(USER_ID);
      expect(spec.root.readonly, what).toBe(true);
      expect(spec.process.noNewPrivileges, what).toBe(true);
      for (const set of ['bounding', 'effective', 'permitted', 'inheritable', 'ambient'])
        expect(spec.process.capabilities?.[set] ?? [], `${what} ${set}`).toEqual([]);
      // RuntimeDefault: containerd's default profile, which refuses what it does not list.
      expect(spec.linux.seccomp?.defaultAction, what).toBe('SCMP_ACT_ERRNO');
    }
  });

  it('the operator leader pod deleted: another replica takes the Lease and runs a new session', async () => {
    const leader = await leaseHolder();
    const other = (await componentPods('operator')).map((pod) => pod.metadata.name as string).find((name) => name !== leader)!;
    const started = Date.now();
    await must(release.kubectl(['delete', 'pod', leader, '--wait=false']), 'delete the leader');
    // On SIGTERM the leader gives the Lease up: a new holder takes it without waiting it out.
    let holder = leader;
    await waitFor(
      async () => {
        holder = await leaseHolder();
        return holder !== leader && holder !== '';
      },
      `a new leader after ${leader}`,
      60_000,
      250,
    );
    const tookOver = Date.now() - started;
    // The standby: it watches the Lease and takes it when the leader releases it on SIGTERM,
    // ahead of the Deployment's replacement pod, which campaigns only once it runs (before the
    // watch, the replacement won about one run in five here).
    expect(holder, 'the standby replica takes the Lease').toBe(other);
    const created = await release.api('POST', '/api/sessions', { name: 'after-failover', engine: 'SANDBOX' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await release.waitForStatus('after-failover', 'SCAN_QR_CODE');
    console.log(`e2e-node: operator failover: the standby ${holder} leads ${seconds(tookOver)} after the leader's pod was deleted`);
    // The Deployment replaces the deleted pod; the new leader keeps the Lease.
    await waitFor(async () => (await componentPods('operator')).filter(ready).length === 2, 'two ready operators again', 120_000);
    expect(await leaseHolder()).toBe(holder);
  });

  it("holds to the chart's NetworkPolicies (kube-router enforces them): a pod not of the release reaches the gateway's port, not NATS, not an engine pod", async () => {
    const session = await release.api('POST', '/api/sessions', { name: 'policy-probe', engine: 'SANDBOX' });
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    await release.waitForStatus('policy-probe', 'SCAN_QR_CODE');
    await must(release.kubectl(['apply', '-f', '-'], JSON.stringify(probePod('outsider', release.namespace))), 'apply the outsider pod');
    try {
      await must(release.kubectl(['wait', '--for=condition=Ready', 'pod/outsider', '--timeout=150s']), 'wait for the outsider');
      const ipOf = (pod: Manifest) => pod.status.podIP as string;
      const [gateway] = await componentPods('gateway');
      const [nats] = await componentPods('nats');
      const engine = await release.enginePod('policy-probe');
      const gatewayPort = Number(gateway!.spec.containers[0].ports.find((p: Manifest) => p.name === 'http').containerPort);
      expect(await tcpReach(cluster, release.namespace, 'outsider', ipOf(gateway), gatewayPort)).toBe('open');
      expect(await tcpReach(cluster, release.namespace, 'outsider', ipOf(nats), 4222)).not.toBe('open');
      expect(await tcpReach(cluster, release.namespace, 'outsider', ipOf(engine), 8080)).not.toBe('open');
      // What the policies let through still flows: the gateway reads the session, through NATS, from its engine pod.
      expect((await release.api('GET', '/api/sessions/policy-probe')).status).toBe(200);
      expect((await release.api('GET', '/api/policy-probe/auth/qr?format=raw')).status).toBe(200);
    } finally {
      await release.kubectl(['delete', 'pod', 'outsider', '--wait=true', '--timeout=60s']);
      await release.api('DELETE', '/api/sessions/policy-probe');
    }
  });

  it('removed as docs/operations.md says (sessions, helm uninstall, the volume), leaves no pod behind', async () => {
    expect(await release.enginePod('after-failover')).not.toBeNull();
    await release.remove();
    const all = await cluster.kubectl(['get', 'pods', '-A', '-o', 'json']);
    const pods = JSON.parse(all.stdout).items as Manifest[];
    expect(pods.filter((pod) => pod.metadata.namespace === release.namespace).map((pod) => pod.metadata.name)).toEqual([]);
    // Nor a running container or a ready pod sandbox of it on the node (the kubelet's garbage
    // collector removes the stopped ones later).
    const left = async (kind: 'ps' | 'pods') => {
      const listed = JSON.parse(await must(cluster.crictl([kind, '-o', 'json']), `crictl ${kind}`));
      return ((kind === 'ps' ? listed.containers : listed.items) as Manifest[])
        .filter((c) => c.labels?.['io.kubernetes.pod.namespace'] === release.namespace && c.state !== 'SANDBOX_NOTREADY')
        .map((c) => `${c.labels['io.kubernetes.pod.name']} ${c.state}`);
    };
    await waitFor(async () => (await left('ps')).length === 0 && (await left('pods')).length === 0, 'no container or sandbox of the release', 60_000);
  });
});
