// The faults the chaos tier injects, one at a time, each by a name CHAOS_FAULTS can pick
// (CHAOS_FAULTS=gateway-kill,engine-cut; the NATS ones are in nats-faults.ts). inject() returns once the fault is over from the
// outside: the process killed, the pod deleted, the component started again, the cut healed.
import { waitFor } from '@switchboard/testkit';
import { type Manifest, must, type Release } from '../release.js';
import { NATS_FAULTS } from './nats-faults.js';
import { containerOf, cutFromNats, healNats, killContainer, podSandbox, restartComponent } from './node-faults.js';

export interface Fault {
  readonly name: string;
  readonly what: string;
  /** The engine's process goes: its session says WORKING again on the webhook once it is back. */
  readonly restartsEngine?: boolean;
  /**
   * The fault's engine container must live through it: its pod stays up through a lost lease and
   * takes it back (docs/operations.md, "When NATS is away longer than the lease's ttl").
   */
  readonly keepsEngine?: boolean;
  inject(release: Release, target: { engineSession: string }): Promise<void>;
}

/** How long a pod stays cut off from NATS. */
export const CUT_MS = Number(process.env.CHAOS_CUT_SECONDS ?? 30) * 1000;

async function running(release: Release, component: string): Promise<Manifest[]> {
  const pods = (await release.json('pods', '-l', `app.kubernetes.io/component=${component}`)).items as Manifest[];
  return pods.filter((pod) => !pod.metadata.deletionTimestamp && pod.status.phase === 'Running');
}

async function firstGateway(release: Release): Promise<string> {
  const pods = await running(release, 'gateway');
  if (pods.length === 0) throw new Error('no running gateway pod');
  return pods[0].metadata.name as string;
}

async function cut(release: Release, pod: string): Promise<void> {
  const { netns } = await podSandbox(release.cluster, release.namespace, pod);
  await cutFromNats(netns);
  try {
    await new Promise((r) => setTimeout(r, CUT_MS));
  } finally {
    await healNats(netns);
  }
}

export const FAULTS: readonly Fault[] = [
  // The NATS faults first: with three servers, a pod or a volume of the one the rest depend on.
  ...NATS_FAULTS,
  {
    name: 'gateway-kill',
    what: 'a gateway replica SIGKILLed',
    async inject(release) {
      const pod = await firstGateway(release);
      const { id } = await podSandbox(release.cluster, release.namespace, pod);
      await killContainer(release.cluster, await containerOf(release.cluster, id, 'gateway'));
    },
  },
  {
    name: 'operator-leader',
    what: "the operator leader's pod deleted",
    async inject(release) {
      const holder = (await release.json('lease', `${release.full}-operator`)).spec.holderIdentity as string;
      const pod = holder.split('_')[0]!;
      await must(release.kubectl(['delete', 'pod', pod, '--wait=false']), 'delete the operator leader');
      await waitFor(
        async () => {
          const now = ((await release.json('lease', `${release.full}-operator`)).spec.holderIdentity as string | undefined) ?? '';
          return now !== '' && now.split('_')[0] !== pod;
        },
        'another operator to take the lease',
        180_000,
        500,
      );
    },
  },
  {
    name: 'apiserver-restart',
    what: 'the API server restarted',
    async inject(release) {
      await restartComponent(release.cluster, 'kube-apiserver');
      await waitFor(async () => (await release.cluster.kubectl(['get', '--raw', '/readyz'])).code === 0, 'the API server ready again', 180_000, 500);
    },
  },
  {
    name: 'engine-kill',
    what: 'an engine container killed',
    restartsEngine: true,
    async inject(release, { engineSession }) {
      await must(release.cluster.crictl(['stop', '--timeout', '0', await release.engineContainerId(engineSession)]), 'crictl stop');
    },
  },
  {
    name: 'containerd-restart',
    what: "the node's containerd restarted",
    async inject(release) {
      await restartComponent(release.cluster, 'containerd');
      await waitFor(async () => (await release.cluster.crictl(['version'])).code === 0, 'containerd answering again', 120_000, 500);
    },
  },
  {
    name: 'gateway-cut',
    what: `a gateway replica cut off from NATS for ${CUT_MS / 1000} s`,
    async inject(release) {
      await cut(release, await firstGateway(release));
    },
  },
  {
    name: 'engine-cut',
    what: `an engine pod cut off from NATS for ${CUT_MS / 1000} s`,
    keepsEngine: true,
    async inject(release, { engineSession }) {
      await cut(release, `engine-${engineSession}`);
    },
  },
];

/** The faults CHAOS_FAULTS names (comma-separated), or all of them. */
export function selectedFaults(list = process.env.CHAOS_FAULTS): Fault[] {
  if (!list) return [...FAULTS];
  const names = list.split(',').map((n) => n.trim());
  const unknown = names.filter((n) => !FAULTS.some((f) => f.name === n));
  if (unknown.length > 0) throw new Error(`CHAOS_FAULTS: unknown fault ${unknown.join(', ')}; known: ${FAULTS.map((f) => f.name).join(', ')}`);
  return FAULTS.filter((f) => names.includes(f.name));
}
