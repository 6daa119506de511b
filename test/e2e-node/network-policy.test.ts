// NetworkPolicy on the real node, enforced by kube-router's policy controller (support/
// node-cluster.ts; iptables-nft and ipset on the bridge's traffic). Plain policies first, each
// with the connection it allows beside the one it refuses, so that a refusal cannot come from a
// server that is not up; the chart's own policies are checked in chart-install.test.ts.
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { waitFor } from '@switchboard/testkit';
import { probePod, tcpReach } from './reach.js';
import { must } from './release.js';
import { connectNodeCluster } from './support/node-cluster.js';

const cluster = connectNodeCluster(inject('nodeCluster'));
const namespace = 'node-netpol';
const policy = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name, namespace },
  spec,
});
let serverIp = '';
/** A TCP server on the host at the bridge address: a destination outside the cluster for egress checks. */
let hostServer: Server;

beforeAll(async () => {
  hostServer = createServer((socket) => socket.end());
  await new Promise<void>((done) => hostServer.listen(0, cluster.hostAddress, done));
  const serve = `require('http').createServer((q, r) => r.end('reached')).listen(8080); require('http').createServer((q, r) => r.end('other')).listen(9090)`;
  const objects = [
    probePod('server', namespace, { app: 'server' }, serve),
    probePod('client', namespace, { role: 'client' }),
    probePod('stranger', namespace),
  ];
  await must(cluster.kubectl(['create', 'namespace', namespace]), 'create namespace');
  await must(cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }) }), 'apply');
  await must(
    cluster.kubectl(['-n', namespace, 'wait', '--for=condition=Ready', 'pod/server', 'pod/client', 'pod/stranger', '--timeout=150s']),
    'wait for the pods',
  );
  serverIp = (await must(cluster.kubectl(['-n', namespace, 'get', 'pod', 'server', '-o', 'jsonpath={.status.podIP}']), 'server ip')).trim();
  expect(serverIp).toMatch(/^10\.222\.0\.\d+$/);
}, 300_000);

afterAll(async () => {
  hostServer?.close();
  await cluster.kubectl(['delete', 'namespace', namespace, '--timeout=120s']);
}, 180_000);

/** Applies the policies and waits until kube-router's rules say what `expected` says (its sync follows the watch). */
async function settle(objects: object[], expected: () => Promise<boolean>): Promise<void> {
  await must(cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }) }), 'apply policies');
  await waitFor(expected, 'kube-router to apply the policies', 60_000, 500);
}

describe('NetworkPolicy on this node (kube-router)', () => {
  it('without a policy, every pod reaches the server', async () => {
    expect(await tcpReach(cluster, namespace, 'client', serverIp, 8080)).toBe('open');
    expect(await tcpReach(cluster, namespace, 'stranger', serverIp, 8080)).toBe('open');
  });

  it('a deny-all ingress policy refuses every pod; one allowing role=client on 8080 lets that pod in on that port only', async () => {
    await settle(
      [policy('deny-all-ingress', { podSelector: {}, policyTypes: ['Ingress'] })],
      async () => (await tcpReach(cluster, namespace, 'client', serverIp, 8080)) !== 'open',
    );
    expect(await tcpReach(cluster, namespace, 'stranger', serverIp, 8080)).not.toBe('open');

    const allowClient = policy('allow-client', {
      podSelector: { matchLabels: { app: 'server' } },
      policyTypes: ['Ingress'],
      ingress: [{ from: [{ podSelector: { matchLabels: { role: 'client' } } }], ports: [{ port: 8080, protocol: 'TCP' }] }],
    });
    await settle([allowClient], async () => (await tcpReach(cluster, namespace, 'client', serverIp, 8080)) === 'open');
    expect(await tcpReach(cluster, namespace, 'client', serverIp, 9090)).not.toBe('open');
    expect(await tcpReach(cluster, namespace, 'stranger', serverIp, 8080)).not.toBe('open');
  });

  it('an egress policy holds a pod to what it names: the server on 8080, not a server on the host', async () => {
    const hostPort = (hostServer.address() as AddressInfo).port;
    expect(await tcpReach(cluster, namespace, 'client', cluster.hostAddress, hostPort)).toBe('open');
    const clientEgress = policy('client-egress', {
      podSelector: { matchLabels: { role: 'client' } },
      policyTypes: ['Egress'],
      egress: [{ to: [{ podSelector: { matchLabels: { app: 'server' } } }], ports: [{ port: 8080, protocol: 'TCP' }] }],
    });
    await settle([clientEgress], async () => (await tcpReach(cluster, namespace, 'client', cluster.hostAddress, hostPort)) !== 'open');
    expect(await tcpReach(cluster, namespace, 'client', serverIp, 8080)).toBe('open');
    expect(await tcpReach(cluster, namespace, 'stranger', cluster.hostAddress, hostPort)).toBe('open');
  });
});
