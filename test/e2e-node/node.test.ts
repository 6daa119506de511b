// The real node itself, before any scenario leans on it: the node is Ready with the versions we
// built; a pod of the project's engine image (imported, never pulled) runs as a real container
// (crictl sees it, with a network namespace of its own and an address in the pod range); a
// Service's ClusterIP and DNS name answer from another pod (kube-proxy's nftables rules and
// CoreDNS); a pod reaches a server this test runs on the host address.
import { once } from 'node:events';
import { readlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pin } from '../e2e/support/control-plane.js';
import { engineImage, probePod } from './reach.js';
import { connectNodeCluster } from './support/node-cluster.js';

const cluster = connectNodeCluster(inject('nodeCluster'));
const namespace = 'node-smoke';

async function kubectl(args: readonly string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, input === undefined ? {} : { input });
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return result.stdout;
}

/** Runs `node -e <script>` in the client pod (kubectl exec: API server to kubelet to the CRI), returns its stdout. */
function inClient(script: string): Promise<string> {
  return kubectl(['-n', namespace, 'exec', 'client', '--', 'node', '-e', script]);
}

let hostServer: Server;

beforeAll(async () => {
  const server = probePod(
    'server',
    namespace,
    { app: 'smoke' },
    `require('http').createServer((q, r) => r.end('pong from ' + require('os').hostname())).listen(8080)`,
  );
  const client = probePod('client', namespace);
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'smoke', namespace },
    spec: { selector: { app: 'smoke' }, ports: [{ port: 80, targetPort: 8080 }] },
  };
  await kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
  await kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [server, client, service] }));
  await kubectl(['-n', namespace, 'wait', '--for=condition=Ready', 'pod/server', 'pod/client', '--timeout=150s']);
  hostServer = createServer((_req, res) => res.end('hello from the host'));
  hostServer.listen(0, cluster.hostAddress);
  await once(hostServer, 'listening');
});

afterAll(async () => {
  hostServer?.close();
  await cluster.kubectl(['delete', 'namespace', namespace, '--wait=true', '--timeout=120s']);
});

describe('the real node', () => {
  it('is Ready, with the kubelet and containerd versions built from the pins', async () => {
    const node = JSON.parse(await kubectl(['get', 'node', '-o', 'json'])) as {
      items: { status: { conditions: { type: string; status: string }[]; nodeInfo: { kubeletVersion: string; containerRuntimeVersion: string } } }[];
    };
    expect(node.items).toHaveLength(1);
    const { conditions, nodeInfo } = node.items[0]!.status;
    expect(conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(nodeInfo.kubeletVersion).toBe(pin('kube', 'k8s.io/kubernetes'));
    // The CRI reports containerd's version without the "v", as release builds do.
    expect(nodeInfo.containerRuntimeVersion).toBe(`containerd://${pin('containerd', 'github.com/containerd/containerd/v2').slice(1)}`);
  });

  it('runs a pod of the imported engine image as a real container, in its own network namespace with an address in the pod range', async () => {
    const pod = JSON.parse(await kubectl(['-n', namespace, 'get', 'pod', 'server', '-o', 'json'])) as {
      status: { podIP: string; containerStatuses: { containerID: string; imageID: string }[] };
    };
    const [, ip3] = /^10\.222\.0\.(\d+)$/.exec(pod.status.podIP) ?? [];
    expect(Number(ip3), `pod IP ${pod.status.podIP}`).toBeGreaterThan(1);
    const containerId = pod.status.containerStatuses[0]!.containerID.replace(/^containerd:\/\//, '');

    const ps = await cluster.crictl(['inspect', containerId]);
    expect(ps.code, ps.stderr).toBe(0);
    const inspect = JSON.parse(ps.stdout) as { status: { state: string; image: { image: string } }; info: { pid: number } };
    expect(inspect.status.state).toBe('CONTAINER_RUNNING');
    expect(inspect.status.image.image).toBe(engineImage);
    // A process of this machine, in a network namespace that is not the host's.
    const netns = readlinkSync(`/proc/${inspect.info.pid}/ns/net`);
    expect(netns).toMatch(/^net:\[\d+\]$/);
    expect(netns).not.toBe(readlinkSync('/proc/self/ns/net'));
    // And the address the API reports is the one inside that namespace.
    const serverAddresses = await kubectl([
      '-n',
      namespace,
      'exec',
      'server',
      '--',
      'node',
      '-e',
      "process.stdout.write(JSON.stringify(Object.values(require('os').networkInterfaces()).flat().map((a) => a.address)))",
    ]);
    expect(JSON.parse(serverAddresses)).toContain(pod.status.podIP);
  });

  it("answers on a Service's ClusterIP and its DNS name from another pod (kube-proxy and CoreDNS)", async () => {
    const clusterIp = (await kubectl(['-n', namespace, 'get', 'service', 'smoke', '-o', 'jsonpath={.spec.clusterIP}'])).trim();
    expect(clusterIp).toMatch(/^10\.223\.\d+\.\d+$/);
    const resolved = await inClient(
      `require('dns').promises.lookup('smoke.${namespace}.svc.cluster.local').then((r) => process.stdout.write(r.address))`,
    );
    expect(resolved).toBe(clusterIp);
    // The short name too, through the search path the kubelet writes into the pod's resolv.conf.
    expect(await inClient(`fetch('http://smoke').then((r) => r.text()).then((t) => process.stdout.write(t))`)).toBe('pong from server');
    expect(await inClient(`fetch('http://${clusterIp}').then((r) => r.text()).then((t) => process.stdout.write(t))`)).toBe('pong from server');
  });

  it('reaches a server the test runs on the host address', async () => {
    const { port } = hostServer.address() as { port: number };
    const url = `http://${cluster.hostAddress}:${port}/`;
    expect(await inClient(`fetch('${url}').then((r) => r.text()).then((t) => process.stdout.write(t))`)).toBe('hello from the host');
  });
});
