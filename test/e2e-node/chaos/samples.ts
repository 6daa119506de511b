// What the soak samples each minute: every component's resident memory and open file descriptors,
// read from /proc on the node for each container's process tree (crictl gives the pid), summed
// per component: the gateway replicas, the operator replicas, NATS, and the engine pods of each
// engine. A container replaced by a fault counts from its new process on.
import { readdirSync, readFileSync } from 'node:fs';
import { processTree } from '@switchboard/testkit';
import type { Manifest } from '../release.js';
import { must } from '../release.js';
import type { NodeCluster } from '../support/node-cluster.js';

export interface Sample {
  /** Minutes since the soak started. */
  readonly minute: number;
  /** component -> bytes resident. */
  readonly rss: Record<string, number>;
  /** component -> open file descriptors. */
  readonly fds: Record<string, number>;
}

function rssOf(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0; // gone since the listing
  }
}

function fdsOf(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

/** The component a container is: its container name, and for engine pods the engine (the session's name starts with it). */
function componentOf(container: Manifest): string {
  const name = container.metadata.name as string;
  if (name !== 'engine') return name;
  const session = (container.labels['io.kubernetes.pod.name'] as string).replace(/^engine-/, '');
  return `engine ${session.split('-')[0]!.toUpperCase()}`;
}

export async function sample(cluster: NodeCluster, namespace: string, minute: number): Promise<Sample> {
  const listed = JSON.parse(await must(cluster.crictl(['ps', '--state', 'running', '-o', 'json']), 'crictl ps'));
  const rss: Record<string, number> = {};
  const fds: Record<string, number> = {};
  for (const container of listed.containers as Manifest[]) {
    if (container.labels?.['io.kubernetes.pod.namespace'] !== namespace) continue;
    const inspected = await cluster.crictl(['inspect', container.id as string]);
    if (inspected.code !== 0) continue; // stopped meanwhile
    const pid = JSON.parse(inspected.stdout).info.pid as number;
    const component = componentOf(container);
    for (const p of processTree(pid)) {
      rss[component] = (rss[component] ?? 0) + rssOf(p);
      fds[component] = (fds[component] ?? 0) + fdsOf(p);
    }
  }
  return { minute, rss, fds };
}

/**
 * Growth of each component from the sample at `from` minutes (the first at or after it) to the
 * last, as a fraction: 0.1 is 10 %.
 */
export function growth(samples: readonly Sample[], from: number, of: 'rss' | 'fds'): Record<string, number> {
  const base = samples.find((s) => s.minute >= from);
  const last = samples.at(-1);
  if (!base || !last || base === last) return {};
  const out: Record<string, number> = {};
  for (const [component, value] of Object.entries(base[of])) {
    const now = last[of][component];
    if (now !== undefined && value > 0) out[component] = now / value - 1;
  }
  return out;
}
