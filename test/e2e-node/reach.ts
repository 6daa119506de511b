// Who can connect to whom on the real node, asked from inside a pod: the NetworkPolicy checks.
// kube-router's policy controller (support/node-cluster.ts) enforces policies here; a connection a
// policy forbids is rejected at the node (an ICMP port unreachable) or dropped, so a probe tells
// "open" from "refused" and "timeout", and a test asserts both what passes and what does not.
import type { NodeCluster } from './support/node-cluster.js';
import { must } from './release.js';

/** The engine image: it has node, which the probes run. */
export const engineImage = 'localhost/switchboard/engine:dev';

/** A pod that only waits (or serves `script`), fit for a namespace enforcing the restricted Pod Security standard. */
export function probePod(name: string, namespace: string, labels: Record<string, string> = {}, script = 'setInterval(() => {}, 1 << 30)') {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels },
    spec: {
      terminationGracePeriodSeconds: 1,
      automountServiceAccountToken: false,
      securityContext: { runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [
        {
          name: 'main',
          image: engineImage,
          imagePullPolicy: 'Never',
          command: ['node', '-e', script],
          securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
        },
      ],
    },
  };
}

export type Reach = 'open' | 'refused' | 'timeout';

/** From inside `pod`, a TCP connection to host:port: accepted within 3 s, refused, or no answer. */
export async function tcpReach(cluster: NodeCluster, namespace: string, pod: string, host: string, port: number): Promise<Reach> {
  const script = `const s = require('net').connect(${port}, '${host}');
s.setTimeout(3000, () => { process.stdout.write('timeout'); process.exit(0); });
s.on('connect', () => { process.stdout.write('open'); process.exit(0); });
s.on('error', (e) => { process.stdout.write(e.code === 'ECONNREFUSED' || e.code === 'EHOSTUNREACH' ? 'refused' : 'error ' + e.code); process.exit(0); });`;
  const answer = await must(cluster.kubectl(['-n', namespace, 'exec', pod, '--', 'node', '-e', script]), `probe ${host}:${port} from ${pod}`);
  if (answer !== 'open' && answer !== 'refused' && answer !== 'timeout') throw new Error(`probe from ${pod} to ${host}:${port}: ${answer}`);
  return answer;
}

/** From inside `pod`, the IPv4 addresses DNS gives for `name` (resolv.conf's server: CoreDNS), or the error's code. */
export async function dnsLookup(cluster: NodeCluster, namespace: string, pod: string, name: string): Promise<string> {
  const script = `require('dns').promises.resolve4('${name}').then((a) => process.stdout.write(a.join(',')), (e) => process.stdout.write('error ' + e.code));`;
  return must(cluster.kubectl(['-n', namespace, 'exec', pod, '--', 'node', '-e', script]), `resolve ${name} from ${pod}`);
}
