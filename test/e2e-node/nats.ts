// The bundled NATS as its own monitoring endpoint tells it (jsz, port 8222), read through the API
// server's pod proxy: the host cannot reach a pod's port by ClusterIP, and the chart exposes 8222
// on the container only (the kubelet's probes use it), with no Service. What the release's
// JetStream cluster holds, who leads it, and whether every copy of every stream is current.
import { isProductStream } from '@switchboard/kube';
import { waitFor } from '@switchboard/testkit';
import { type Manifest, must, type Release } from './release.js';

/** One stream as one server sees it (jsz's stream_detail). */
interface StreamDetail {
  readonly name: string;
  readonly cluster?: { readonly leader?: string; readonly replicas?: readonly { readonly name: string; readonly current: boolean }[] };
  readonly state: { readonly messages: number };
}

/** What one server reports: its name, the meta leader, and the streams it holds a copy of. */
interface ServerView {
  readonly server: string;
  readonly metaLeader: string;
  readonly streams: readonly StreamDetail[];
}

/** The release's NATS pods that run, by name (server_name is the pod name: the chart's config). */
export async function natsPods(release: Release): Promise<string[]> {
  const pods = (await release.json('pods', '-l', 'app.kubernetes.io/component=nats')).items as Manifest[];
  return pods
    .filter((pod) => !pod.metadata.deletionTimestamp && pod.status.phase === 'Running')
    .map((pod) => pod.metadata.name as string)
    .sort();
}

/** jsz of one server: every account's streams, the meta cluster. */
async function serverView(release: Release, pod: string): Promise<ServerView> {
  const path = `/api/v1/namespaces/${release.namespace}/pods/${pod}:8222/proxy/jsz?accounts=true&streams=true`;
  const jsz = JSON.parse(await must(release.cluster.kubectl(['get', '--raw', path]), `jsz of ${pod}`));
  const details = ((jsz.account_details ?? []) as Manifest[]).flatMap((account) => (account.stream_detail ?? []) as StreamDetail[]);
  // The chart names each server after its pod (server_name: $POD_NAME); jsz does not repeat it.
  return { server: pod, metaLeader: (jsz.meta_cluster?.leader as string | undefined) ?? '', streams: details };
}

/** The JetStream meta leader as the servers agree on it; '' while they do not. */
export async function metaLeader(release: Release): Promise<string> {
  const views = await Promise.all((await natsPods(release)).map((pod) => serverView(release, pod).catch(() => null)));
  const leaders = new Set(views.map((view) => view?.metaLeader ?? ''));
  return leaders.size === 1 ? [...leaders][0]! : '';
}

/**
 * Every stream of the product, with how many current copies it has as its leader reports them
 * (the leader's own, plus each follower it calls current) and the messages it holds.
 */
export async function productStreams(release: Release): Promise<Map<string, { copies: number; messages: number; servers: string[] }>> {
  const views = await Promise.all((await natsPods(release)).map((pod) => serverView(release, pod)));
  const streams = new Map<string, { copies: number; messages: number; servers: string[] }>();
  for (const view of views) {
    for (const stream of view.streams) {
      if (!isProductStream(stream.name)) continue;
      const entry = streams.get(stream.name) ?? { copies: 0, messages: 0, servers: [] };
      entry.servers.push(view.server);
      // One server alone has no cluster section: its own copy is the one.
      const leader = stream.cluster?.leader ?? view.server;
      if (leader === view.server) {
        entry.copies = 1 + (stream.cluster?.replicas ?? []).filter((replica) => replica.current).length;
        entry.messages = stream.state.messages;
      }
      streams.set(stream.name, entry);
    }
  }
  return streams;
}

/** Streams with fewer than `copies` current copies, or not on `copies` servers, as a readable list ('' when none). */
async function streamsShort(release: Release, copies: number): Promise<string> {
  const short = [...(await productStreams(release))].filter(([, s]) => s.copies < copies || s.servers.length < copies);
  return short.map(([name, s]) => `${name}: ${s.copies} current on ${s.servers.join(',')}`).join('; ');
}

/** Resolves once every stream of the product has `copies` current copies; fails naming those that have not. */
export async function waitForCurrentCopies(release: Release, copies: number, timeoutMs = 300_000): Promise<void> {
  let last = '';
  await waitFor(
    async () => {
      last = await streamsShort(release, copies).catch((error: unknown) => `jsz: ${String(error)}`);
      return last === '';
    },
    `every product stream at ${copies} current copies`,
    timeoutMs,
    1_000,
  ).catch((error: unknown) => {
    throw new Error(`${String(error)} (still short: ${last})`);
  });
}
