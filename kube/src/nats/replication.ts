import { setTimeout as sleep } from 'node:timers/promises';
import type { JetStreamManager, NatsConnection, NatsError, Placement, StreamConfig } from 'nats';

/**
 * How many copies JetStream keeps of each stream and bucket the product makes: 1 on one NATS
 * server, 3 (or 5) on a JetStream cluster of as many servers or more, so that a server or its
 * volume can go without losing a pairing, a lease or an event. Every component reads it from
 * `SWITCHBOARD_NATS_REPLICAS` (the chart sets it from `nats.bundled.replicas`, 1 or 3, or from
 * `nats.external.replicas`) and ties it to the connection it made (`useReplicas`); every store
 * made through that connection is created with it.
 */
export const NATS_REPLICAS_VARIABLE = 'SWITCHBOARD_NATS_REPLICAS';
/** JetStream's own bounds: a stream has 1 to 5 replicas. */
export const MAX_NATS_REPLICAS = 5;

/**
 * The server tag of the NATS server that ran alone before its NATS became a cluster (the chart's
 * `<fullname>-nats-0`, tagged with its pod name). nats-server does not take over a single
 * server's streams when it joins a cluster: it deletes them 30 s after (they have no assignment
 * in the cluster's metadata: "orphaned stream"). A stream created at one copy placed on that
 * server is one it already has on disk, and it keeps what it holds; raised to more copies then,
 * the others catch up from it. So, with a seed, every missing stream is created there first
 * (`creationOf`), then raised (`raiseCreated`). On a new cluster this costs nothing. The chart
 * tags each server with its pod name (`server_tags`) and names pod 0 here.
 */
export const NATS_SEED_VARIABLE = 'SWITCHBOARD_NATS_SEED';
/** A server tag as the chart gives it: a pod name (nats-server keeps tags in lower case). */
export const NATS_SEED_PATTERN = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/;

const REPLICAS = new WeakMap<NatsConnection, { replicas: number; seed: string | undefined }>();

/** Streams and buckets made through `nc` get `replicas` copies (1 unless said), created first on `seed` if given. */
export function useReplicas(nc: NatsConnection, replicas: number, seed?: string): NatsConnection {
  REPLICAS.set(nc, { replicas, seed: seed || undefined });
  return nc;
}

export function replicasOf(nc: NatsConnection): number {
  return REPLICAS.get(nc)?.replicas ?? 1;
}

/** What a missing stream is created with: one copy on the seed (raised after), or every copy. */
export function creationOf(nc: NatsConnection): { num_replicas: number; placement?: Placement } {
  const { replicas = 1, seed = undefined } = REPLICAS.get(nc) ?? {};
  // No cluster name: nats-server takes an empty one as a cluster of that name, and none is.
  return seed && replicas > 1 ? { num_replicas: 1, placement: { tags: [seed] } as Placement } : { num_replicas: replicas };
}

/** After creation on the seed: the copies asked for, if `nc` asks for more than one. */
export async function raiseCreated(nc: NatsConnection, stream: string): Promise<void> {
  const { replicas = 1, seed = undefined } = REPLICAS.get(nc) ?? {};
  if (replicas > 1) await raiseStream(await nc.jetstreamManager(), stream, replicas, undefined, seed);
}

/**
 * What the JetStream API answers while the seed has not joined its cluster yet: no server with
 * its tag (10005), no meta leader (10008), too few servers for the copies (10023), or the
 * seed still running alone, before its restart, and refusing more than one copy (10074).
 */
const SEED_AWAY = new Set([10005, 10008, 10023, 10074]);
/** nats.js's own codes while a server restarts: no JetStream answered, or not in time. */
const SERVER_AWAY = new Set(['503', 'TIMEOUT']);
/** How long a part waits at start for the seed: a StatefulSet's rolling restart of its pods. */
const SEED_WAIT_MS = 5 * 60_000;

/**
 * Runs `make` (a creation on the seed, or a raise) again every second while the seed is not in
 * its cluster yet, rather than failing the part's start: a part that restarts in a crash loop's
 * growing back-off may miss the 30 s in which the seed still holds the streams it had alone.
 */
export async function whileSeedJoins<T>(nc: NatsConnection, make: () => Promise<T>): Promise<T> {
  if (!REPLICAS.get(nc)?.seed) return make();
  const deadline = Date.now() + SEED_WAIT_MS;
  for (;;) {
    try {
      return await make();
    } catch (error) {
      const nats = error as NatsError | null;
      const away = SEED_AWAY.has(nats?.api_error?.err_code ?? 0) || SERVER_AWAY.has(nats?.code ?? '');
      if (!away || Date.now() > deadline) throw error;
      await sleep(1_000);
    }
  }
}

/** The streams the product makes: its own (`SB_`), and those behind its key-value and object buckets. */
export function isProductStream(name: string): boolean {
  return name.startsWith('SB_') || name.startsWith('KV_sb_') || name.startsWith('OBJ_sb_');
}

/**
 * Raises every stream of the product with fewer copies than `replicas` to that many, keeping
 * what it holds: what makes a NATS grown from one server to a cluster replicate what was made
 * before (JetStream copies a stream's messages to its new replicas). Never lowers: two parts
 * started with different settings during an upgrade do not undo each other, and fewer copies is
 * an operator's decision (`nats stream edit --replicas`). Answers the streams raised.
 */
export async function raiseReplicas(jsm: JetStreamManager, replicas: number, seed?: string): Promise<string[]> {
  const raised: string[] = [];
  for await (const { config } of jsm.streams.list()) {
    if (isProductStream(config.name) && (await raiseStream(jsm, config.name, replicas, config, seed))) raised.push(config.name);
  }
  return raised;
}

/** Gives one stream `replicas` copies if it has fewer (no longer held to `seed`); answers whether it did. */
export async function raiseStream(jsm: JetStreamManager, stream: string, replicas: number, known?: StreamConfig, seed?: string): Promise<boolean> {
  const config = known ?? (await jsm.streams.info(stream)).config;
  if (config.num_replicas >= replicas) return false;
  // The seed's placement held the first copy where the data was; the others go anywhere. nats.js
  // lays the update over the stream's configuration: the placement goes only when set undefined.
  const seeded = seed !== undefined && config.placement?.tags?.length === 1 && config.placement.tags[0] === seed;
  await jsm.streams.update(stream, { ...config, ...(seeded ? { placement: undefined } : {}), num_replicas: replicas });
  return true;
}

/** How often the operator looks for product streams with fewer copies than asked for. */
export const REPLICA_CHECK_MS = 60_000;

/**
 * Raises, every `everyMs`, each product stream with fewer copies than `nc` asks for, until the
 * answer is called. What it catches: a stream made again after the operator's start by a part
 * that still asks for one copy. During a `helm upgrade` from one NATS server to three, nats-server
 * deletes the sessions' idle command buckets as orphans, and a gateway pod of the old release,
 * not yet replaced, makes one again at one copy on any server at its next large command; nothing
 * raised it after (test/e2e-node/nats-cluster.test.ts, one run of three). A check is one stream
 * listing; it logs what it raised, and a failed one (NATS away) waits for the next.
 */
export function keepReplicas(
  nc: NatsConnection,
  options: { readonly everyMs?: number; readonly onRaised: (streams: string[]) => void; readonly onError: (error: unknown) => void },
): () => void {
  const { replicas = 1, seed = undefined } = REPLICAS.get(nc) ?? {};
  if (replicas <= 1) return () => {};
  let checking = false;
  const timer = setInterval(() => {
    if (checking || nc.isClosed()) return;
    checking = true;
    void (async () => {
      try {
        const raised = await raiseReplicas(await nc.jetstreamManager(), replicas, seed);
        if (raised.length > 0) options.onRaised(raised);
      } catch (error) {
        options.onError(error);
      } finally {
        checking = false;
      }
    })();
  }, options.everyMs ?? REPLICA_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
