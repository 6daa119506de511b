// The chaos tier's NATS faults (issue 29), for a bundled NATS of three servers: each server's pod
// deleted in turn, the JetStream meta leader first, and one server's volume lost. Each is over once
// the server is back and every stream of the product has all its copies current again: the next
// fault (or the next pod) must not take a second copy while one is still catching up, which is what
// the chart's PDB (maxUnavailable 1) asks of a drain too.
import { chownSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { waitFor } from '@switchboard/testkit';
import { metaLeader, natsPods, waitForCurrentCopies } from '../nats.js';
import { type Manifest, must, type Release, USER_ID } from '../release.js';
import type { Fault } from './faults.js';

const ready = (pod: Manifest) => pod.status?.conditions?.find((c: Manifest) => c.type === 'Ready')?.status === 'True';

/** Deletes a NATS pod and waits for the StatefulSet's new one (same name, new uid) to be ready and every copy current. */
async function replacePod(release: Release, pod: string, servers: number): Promise<void> {
  const uid = (await release.json('pod', pod)).metadata.uid as string;
  await must(release.kubectl(['delete', 'pod', pod, '--wait=false']), `delete ${pod}`);
  await waitFor(
    async () => {
      const now = await release.kubectl(['get', 'pod', pod, '-o', 'json']);
      if (now.code !== 0) return false;
      const manifest = JSON.parse(now.stdout);
      return manifest.metadata.uid !== uid && !manifest.metadata.deletionTimestamp && ready(manifest);
    },
    `${pod} back and ready`,
    300_000,
    500,
  );
  await waitForCurrentCopies(release, servers);
}

/** The servers in the order they go: the meta leader first (a new election), then the others. */
async function leaderFirst(release: Release): Promise<string[]> {
  const pods = await natsPods(release);
  const leader = pods.length > 1 ? await waitFor(() => metaLeader(release), 'a JetStream meta leader', 120_000, 500) : '';
  return [...pods.filter((pod) => pod === leader), ...pods.filter((pod) => pod !== leader)];
}

/**
 * A server's volume gone: its hostPath directory moved aside and an empty one put in its place
 * (owned by the containers' user, as the volume was made), then its pod deleted. The running
 * server keeps the directory it mounted until it stops; its replacement mounts the empty one, so
 * it starts with no JetStream store at all and must catch up from the other two.
 */
async function loseVolume(release: Release): Promise<void> {
  const pods = await leaderFirst(release);
  if (pods.length < 3) throw new Error(`nats-volume needs a NATS of three servers (nats.bundled.replicas 3); this release has ${pods.length}`);
  const pod = pods.at(-1)!;
  const claim = await release.json('pvc', `data-${pod}`);
  const volume = await release.json('pv', claim.spec.volumeName as string);
  const path = volume.spec.hostPath?.path as string | undefined;
  if (!path) throw new Error(`the volume of ${pod} (${claim.spec.volumeName}) is not a hostPath volume`);
  const lost = `${path}.lost-${Date.now()}`;
  renameSync(path, lost);
  mkdirSync(path);
  chownSync(path, USER_ID, USER_ID);
  try {
    await replacePod(release, pod, pods.length);
  } finally {
    rmSync(lost, { recursive: true, force: true });
  }
}

export const NATS_FAULTS: readonly Fault[] = [
  {
    name: 'nats-pod',
    what: 'each NATS pod deleted in turn, the meta leader first',
    async inject(release) {
      const pods = await leaderFirst(release);
      for (const pod of pods) await replacePod(release, pod, pods.length);
    },
  },
  {
    name: 'nats-volume',
    what: "one NATS pod's volume lost",
    inject: loseVolume,
  },
];
