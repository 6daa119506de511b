// Every rule of the chart's NetworkPolicies (charts/switchboard/templates/networkpolicy.yaml), on
// the real node where kube-router enforces them. The probes run inside the release's own pods
// (kubectl exec into the engine, gateway and operator containers: their network namespace, their
// policy selection), beside a pod of the namespace that no policy selects ("outsider"), which
// reaches each refused destination: a refusal is then the policy's, not an address nothing answers
// or routes (stand-ins.ts: the internet, the metadata endpoint and private ranges on this node).
// The last test cuts the rules one at a time (kubectl patch of the chart's objects) and sees each
// refused probe open, then puts them back and sees it close: each refusal fails without its rule,
// on every run. What each rule allows: docs/operations.md, "NetworkPolicy".
import type { Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { waitFor } from '@switchboard/testkit';
import { dnsLookup, probePod, type Reach, tcpReach } from './reach.js';
import { ensureNatsImage, type Manifest, must, nodeValues, Release, seconds } from './release.js';
import { addStandIns, hostReach, INTERNET, listen, METADATA, PRIVATE, removeStandIns, UNNAMED_PORT } from './stand-ins.js';
import { connectNodeCluster } from './support/node-cluster.js';

const info = inject('nodeCluster');
const cluster = connectNodeCluster(info);
const release = new Release(cluster, info, 'sb-policies');
const { full, namespace } = release;

/** Host listeners: 80 and 443 (the host's private address on the rules' ports) and the two servers the tests' extraEgress lets in. */
const servers: Server[] = [];
let messagingUrl = '';
let receiverUrl = '';
const apiServer = new URL(info.apiServerUrl);
const apiPort = Number(apiServer.port);

/** Pod names and addresses, found once the release runs. */
const pods = { engine: '', otherEngine: '', gateway: '', operator: '' };
const ips = { engine: '', otherEngine: '', gateway: '', nats: '', outsider: '', kubernetesService: '' };
let gatewayPort = 0;
let operatorPort = 0;
const natsName = () => `${full}-nats.${namespace}.svc.cluster.local`;

const reach = (pod: string, host: string, port: number): Promise<Reach> => tcpReach(cluster, namespace, pod, host, port);

const componentPod = async (component: string): Promise<Manifest> =>
  (
    (await release.json('pods', '-l', `app.kubernetes.io/instance=${release.name},app.kubernetes.io/component=${component}`)).items as Manifest[]
  ).find((pod) => !pod.metadata.deletionTimestamp);

beforeAll(async () => {
  await addStandIns(cluster.podCidr, cluster.hostAddress);
  // 53 too: a DNS port on an address that is not the cluster's DNS (networkPolicy.dns.to).
  for (const port of [80, 443, 53]) servers.push(await listen(cluster.hostAddress, port));
  const messaging = await listen(cluster.hostAddress);
  const receiver = await listen(cluster.hostAddress);
  servers.push(messaging, receiver);
  messagingUrl = `http://${cluster.hostAddress}:${messaging.port}`;
  receiverUrl = `http://${cluster.hostAddress}:${receiver.port}`;

  const nats = await ensureNatsImage(cluster);
  const took = await release.install(nodeValues(cluster, nats, {}, { gateway: [receiverUrl], engines: [messagingUrl] }));
  console.log(`e2e-node: helm install --wait took ${seconds(took)} (namespace ${namespace})`);

  for (const name of ['policy-a', 'policy-b']) {
    const created = await release.api('POST', '/api/sessions', { name, engine: 'SANDBOX' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }
  // The outsider serves 8080 too: an address in the pod range that no ingress rule closes.
  const serve = `require('net').createServer((s) => s.end()).listen(8080)`;
  await must(release.kubectl(['apply', '-f', '-'], JSON.stringify(probePod('outsider', namespace, {}, serve))), 'apply the outsider pod');
  await must(release.kubectl(['wait', '--for=condition=Ready', 'pod/outsider', '--timeout=150s']), 'wait for the outsider');
  for (const name of ['policy-a', 'policy-b']) await release.waitForStatus(name, 'SCAN_QR_CODE');
  await waitFor(async () => (await release.enginePod('policy-b'))?.status?.podIP, 'the engine pods have addresses', 60_000);

  const gateway = await componentPod('gateway');
  const operator = await componentPod('operator');
  pods.engine = 'engine-policy-a';
  pods.otherEngine = 'engine-policy-b';
  pods.gateway = gateway.metadata.name;
  pods.operator = operator.metadata.name;
  ips.engine = (await release.enginePod('policy-a')).status.podIP;
  ips.otherEngine = (await release.enginePod('policy-b')).status.podIP;
  ips.gateway = gateway.status.podIP;
  ips.nats = (await componentPod('nats')).status.podIP;
  ips.outsider = (await release.json('pod', 'outsider')).status.podIP;
  ips.kubernetesService = JSON.parse(
    await must(cluster.kubectl(['-n', 'default', 'get', 'service', 'kubernetes', '-o', 'json']), 'kubernetes Service'),
  ).spec.clusterIP;
  gatewayPort = Number(gateway.spec.containers[0].ports.find((p: Manifest) => p.name === 'http').containerPort);
  operatorPort = Number(operator.spec.containers[0].ports.find((p: Manifest) => p.name === 'http').containerPort);
}, 900_000);

afterAll(async () => {
  await release.remove();
  for (const server of servers) server.close();
  await removeStandIns(cluster.podCidr);
}, 600_000);

/** Each destination refused from `pod` and open from the outsider, which no policy selects. */
async function expectRefusedByPolicy(pod: string, destinations: readonly (readonly [string, number])[]): Promise<void> {
  for (const [host, port] of destinations) {
    expect(await reach('outsider', host, port), `outsider -> ${host}:${port} (the control)`).toBe('open');
    expect(await reach(pod, host, port), `${pod} -> ${host}:${port}`).not.toBe('open');
  }
}

/** The chart's policies as installed, to cut rules from and put them back. */
const cutPolicies = () => [`${full}-engines`, `${full}-gateway`, `${full}-nats`];
const saved = new Map<string, Manifest>();
const egressIndex = (policy: string, match: (rule: Manifest) => boolean) => (saved.get(policy)!.spec.egress as Manifest[]).findIndex(match);
const internetRule = (policy: string) => egressIndex(policy, (rule) => rule.to?.[0]?.ipBlock?.cidr === '0.0.0.0/0');
const onPort = (port: number) => (rule: Manifest) => (rule.ports as Manifest[] | undefined)?.some((p) => p.port === port) === true;
/** A JSON patch of one of the chart's policies: the rule cut. */
const cut = (policy: string, patch: object[]) =>
  must(release.kubectl(['patch', 'networkpolicy', policy, '--type=json', '-p', JSON.stringify(patch)]), `patch ${policy}`);
const opens = (pod: string, host: string, port: number) =>
  waitFor(async () => (await reach(pod, host, port)) === 'open', `${pod} -> ${host}:${port} open`, 90_000, 500);
const closes = (pod: string, host: string, port: number) =>
  waitFor(async () => (await reach(pod, host, port)) !== 'open', `${pod} -> ${host}:${port} closed`, 90_000, 500);
async function savePolicies(): Promise<void> {
  for (const name of cutPolicies()) saved.set(name, await release.json('networkpolicy', name));
}
/** The saved objects back as they were (kubectl replace, without the server's fields). */
async function restorePolicies(): Promise<void> {
  for (const [name, policy] of saved) {
    const metadata = { name: policy.metadata.name, namespace, labels: policy.metadata.labels, annotations: policy.metadata.annotations };
    await must(release.kubectl(['replace', '-f', '-'], JSON.stringify({ ...policy, metadata })), `restore ${name}`);
  }
}

describe("the chart's NetworkPolicies, rule by rule, on the real node (kube-router)", () => {
  it('DNS and every path the policies allow work: engine and gateway to NATS, the gateway and operator to the API server, webhooks and the messaging service out, anyone to the gateway port', async () => {
    // End to end: the gateway answers through NATS from the engine pods, which the operator made through the API server.
    expect((await release.api('GET', '/api/policy-a/auth/qr?format=raw')).status).toBe(200);

    // DNS (the rule to port 53 of the cluster's DNS pods): CoreDNS answers the NATS Service's name.
    const natsService = (await release.json('service', `${full}-nats`)).spec.clusterIP as string;
    for (const pod of [pods.engine, pods.gateway]) expect(await dnsLookup(cluster, namespace, pod, natsName()), pod).toBe(natsService);

    // NATS's client port, from each component (the NATS rules: egress of engines and gateway, ingress of NATS).
    for (const pod of [pods.engine, pods.gateway, pods.operator]) expect(await reach(pod, ips.nats, 4222), `${pod} -> NATS 4222`).toBe('open');
    expect(await reach(pods.engine, natsService, 4222), 'engine -> the NATS Service').toBe('open');

    // The API server (the gateway's apiServer rule; the operator's egress is open).
    for (const pod of [pods.gateway, pods.operator]) expect(await reach(pod, apiServer.hostname, apiPort), `${pod} -> API server`).toBe('open');

    // Webhook receivers: the internet on webhookPorts, and the one the tests' extraEgress names.
    for (const port of [80, 443]) expect(await reach(pods.gateway, INTERNET, port), `gateway -> internet ${port}`).toBe('open');
    const receiver = new URL(receiverUrl);
    expect(await reach(pods.gateway, receiver.hostname, Number(receiver.port)), 'gateway -> receiver (extraEgress)').toBe('open');

    // The messaging service: the internet on internetPorts, and the fake server extraEgress names.
    for (const port of [443, 80, 5222]) expect(await reach(pods.engine, INTERNET, port), `engine -> internet ${port}`).toBe('open');
    const messaging = new URL(messagingUrl);
    expect(await reach(pods.engine, messaging.hostname, Number(messaging.port)), 'engine -> messaging server (extraEgress)').toBe('open');

    // Ingress to the gateway's port from a pod not of the release (networkPolicy.gateway.from empty: anyone).
    expect(await reach('outsider', ips.gateway, gatewayPort)).toBe('open');
  });

  it('an engine pod reaches nothing else: not another engine pod, the API server, NATS monitoring, the metadata endpoint, private ranges, or the internet on other ports', async () => {
    await expectRefusedByPolicy(pods.engine, [
      [apiServer.hostname, apiPort],
      [ips.kubernetesService, 443],
      [METADATA, 80],
      [METADATA, 443],
      [cluster.hostAddress, 443],
      // Port 53 of another address than the cluster's DNS pods (the DNS rule names them).
      [cluster.hostAddress, 53],
      ...PRIVATE.map((address) => [address, 443] as const),
      [INTERNET, UNNAMED_PORT],
    ]);
    // Another pod's port with no ingress policy: only the engine's egress holds it (the host is the control).
    expect(await hostReach(ips.outsider, 8080), 'host -> outsider 8080 (the control)').toBe('open');
    expect(await reach(pods.engine, ips.outsider, 8080)).not.toBe('open');
    // Another engine pod and NATS monitoring: closed to the outsider as well (engine and NATS
    // ingress); the kubelet's probes reach them (both pods are Ready on those ports), and the last
    // test opens them from the engine by cutting the rules.
    expect(await reach(pods.engine, ips.otherEngine, 8080)).not.toBe('open');
    expect(await reach(pods.engine, ips.nats, 8222)).not.toBe('open');
    expect(await reach('outsider', ips.otherEngine, 8080)).not.toBe('open');
    expect(await reach('outsider', ips.nats, 8222)).not.toBe('open');
  });

  it("the gateway reaches no destination of its webhook except-list, not engine pods, not NATS monitoring; the operator's port is closed to the namespace", async () => {
    await expectRefusedByPolicy(pods.gateway, [
      [METADATA, 80],
      [METADATA, 443],
      [cluster.hostAddress, 80],
      [cluster.hostAddress, 443],
      ...PRIVATE.flatMap((address) => [[address, 80] as const, [address, 443] as const]),
      [INTERNET, UNNAMED_PORT],
    ]);
    expect(await reach(pods.gateway, ips.outsider, 8080)).not.toBe('open');
    expect(await reach(pods.gateway, ips.engine, 8080)).not.toBe('open');
    expect(await reach(pods.gateway, ips.nats, 8222)).not.toBe('open');
    // metricsFrom empty: no pod reaches the operator's port (the kubelet's probes do: it is Ready).
    expect(await reach('outsider', (await componentPod('operator')).status.podIP, operatorPort)).not.toBe('open');
  });

  it('the operator reaches DNS, NATS and the API server only: not the internet, the metadata endpoint, private ranges or an engine pod', async () => {
    const natsService = (await release.json('service', `${full}-nats`)).spec.clusterIP as string;
    expect(await dnsLookup(cluster, namespace, pods.operator, natsName())).toBe(natsService);
    await expectRefusedByPolicy(pods.operator, [
      [INTERNET, 443],
      [METADATA, 80],
      [cluster.hostAddress, 443],
      ...PRIVATE.map((address) => [address, 443] as const),
    ]);
    expect(await reach(pods.operator, ips.engine, 8080)).not.toBe('open');
    expect(await reach(pods.operator, ips.outsider, 8080)).not.toBe('open');
  });

  it('each allowed path is its rule: cut from the chart objects, DNS, NATS and the API server close; put back, they open', async () => {
    await savePolicies();
    const natsService = (await release.json('service', `${full}-nats`)).spec.clusterIP as string;
    const engines = `${full}-engines`;
    const gateway = `${full}-gateway`;
    const dns = egressIndex(engines, onPort(53));
    const nats = egressIndex(engines, onPort(4222));
    const api = egressIndex(gateway, (rule) => onPort(apiPort)(rule) && rule.to?.[0]?.ipBlock?.cidr === `${cluster.hostAddress}/32`);
    expect([dns, nats, api].every((index) => index >= 0)).toBe(true);
    try {
      // Higher index first: each removal shifts the rules after it.
      await cut(
        engines,
        [Math.max(dns, nats), Math.min(dns, nats)].map((index) => ({ op: 'remove', path: `/spec/egress/${index}` })),
      );
      await cut(gateway, [{ op: 'remove', path: `/spec/egress/${api}` }]);
      await closes(pods.engine, ips.nats, 4222);
      await closes(pods.gateway, apiServer.hostname, apiPort);
      await waitFor(
        async () => (await dnsLookup(cluster, namespace, pods.engine, natsName())) !== natsService,
        'DNS fails with its rule cut',
        120_000,
        500,
      );
    } finally {
      await restorePolicies();
    }
    await opens(pods.engine, ips.nats, 4222);
    await opens(pods.gateway, apiServer.hostname, apiPort);
    await waitFor(async () => (await dnsLookup(cluster, namespace, pods.engine, natsName())) === natsService, 'DNS answers again', 120_000, 500);
  });

  it('each refusal is its rule: cut from the chart objects one at a time, the same probe opens; put back, it closes', async () => {
    await savePolicies();
    try {
      // The engines' internet except-list (networkPolicy.engines.internetExcept).
      await cut(`${full}-engines`, [{ op: 'remove', path: `/spec/egress/${internetRule(`${full}-engines`)}/to/0/ipBlock/except` }]);
      await opens(pods.engine, METADATA, 443);
      for (const address of [cluster.hostAddress, ...PRIVATE]) await opens(pods.engine, address, 443);
      // The gateway's webhook except-list (networkPolicy.gateway.webhookExcept).
      await cut(`${full}-gateway`, [{ op: 'remove', path: `/spec/egress/${internetRule(`${full}-gateway`)}/to/0/ipBlock/except` }]);
      await opens(pods.gateway, METADATA, 80);
      for (const address of [cluster.hostAddress, ...PRIVATE]) await opens(pods.gateway, address, 443);
      // The ports of those rules (internetPorts, webhookPorts).
      await cut(`${full}-engines`, [{ op: 'remove', path: `/spec/egress/${internetRule(`${full}-engines`)}/ports` }]);
      await opens(pods.engine, INTERNET, UNNAMED_PORT);
      await opens(pods.engine, ips.outsider, 8080);
      await opens(pods.engine, apiServer.hostname, apiPort);
      await opens(pods.engine, ips.kubernetesService, 443);
      await cut(`${full}-gateway`, [{ op: 'remove', path: `/spec/egress/${internetRule(`${full}-gateway`)}/ports` }]);
      await opens(pods.gateway, INTERNET, UNNAMED_PORT);
      // The engines' ingress (none but probes): another engine pod opens to the engine.
      await cut(`${full}-engines`, [{ op: 'add', path: '/spec/ingress', value: [{}] }]);
      await opens(pods.engine, ips.otherEngine, 8080);
      await opens(pods.gateway, ips.engine, 8080);
      // NATS's ingress on 4222 only: monitoring opens to the release's pods.
      await cut(`${full}-nats`, [{ op: 'remove', path: '/spec/ingress/0/ports' }]);
      await opens(pods.engine, ips.nats, 8222);
      await opens(pods.gateway, ips.nats, 8222);
    } finally {
      await restorePolicies();
    }
    // Put back, the refusals hold again.
    await closes(pods.engine, METADATA, 443);
    for (const [pod, host, port] of [
      [pods.engine, ips.nats, 8222],
      [pods.engine, ips.otherEngine, 8080],
      [pods.engine, apiServer.hostname, apiPort],
      [pods.gateway, METADATA, 80],
      [pods.gateway, INTERNET, UNNAMED_PORT],
    ] as const)
      await closes(pod, host, port);
  });
  it("the operator's egress is its rules: its API server rule and NATS rule cut, those close; the whole egress cut, the internet opens", async () => {
    const operator = `${full}-operator`;
    const policy = await release.json('networkpolicy', operator);
    const egress = policy.spec.egress as Manifest[];
    const nats = egress.findIndex(onPort(4222));
    const api = egress.findIndex((rule) => onPort(apiPort)(rule) && rule.to?.[0]?.ipBlock?.cidr === `${cluster.hostAddress}/32`);
    expect(nats >= 0 && api >= 0).toBe(true);
    const restore = () => {
      const metadata = { name: operator, namespace, labels: policy.metadata.labels, annotations: policy.metadata.annotations };
      return must(release.kubectl(['replace', '-f', '-'], JSON.stringify({ ...policy, metadata })), `restore ${operator}`);
    };
    try {
      await cut(
        operator,
        [Math.max(nats, api), Math.min(nats, api)].map((index) => ({ op: 'remove', path: `/spec/egress/${index}` })),
      );
      await closes(pods.operator, ips.nats, 4222);
      await closes(pods.operator, apiServer.hostname, apiPort);
      await cut(operator, [{ op: 'replace', path: '/spec/egress', value: [{}] }]);
      await opens(pods.operator, INTERNET, 443);
      await opens(pods.operator, METADATA, 80);
    } finally {
      await restore();
    }
    await closes(pods.operator, INTERNET, 443);
    await opens(pods.operator, apiServer.hostname, apiPort);
    await opens(pods.operator, ips.nats, 4222);
  });
});
