import type { JetStreamManager, NatsConnection, StreamConfig } from 'nats';

/**
 * How many copies JetStream keeps of each stream and bucket the product makes: 1 on one NATS
 * server, 3 (or 5) on a JetStream cluster of as many servers or more, so that a server or its
 * volume can go without losing a pairing, a lease or an event. Every component reads it from
 * `SWITCHBOARD_NATS_REPLICAS` (the chart sets it from `nats.external.replicas`; its bundled NATS
 * is one server, so 1) and ties it to the connection it made (`useReplicas`); every store made
 * through that connection is created with it.
 */
export const NATS_REPLICAS_VARIABLE = 'SWITCHBOARD_NATS_REPLICAS';
/** JetStream's own bounds: a stream has 1 to 5 replicas. */
export const MAX_NATS_REPLICAS = 5;

const REPLICAS = new WeakMap<NatsConnection, number>();

/** Streams and buckets made through `nc` get `replicas` copies (1 unless said). */
export function useReplicas(nc: NatsConnection, replicas: number): NatsConnection {
  REPLICAS.set(nc, replicas);
  return nc;
}

export function replicasOf(nc: NatsConnection): number {
  return REPLICAS.get(nc) ?? 1;
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
export async function raiseReplicas(jsm: JetStreamManager, replicas: number): Promise<string[]> {
  const raised: string[] = [];
  for await (const { config } of jsm.streams.list()) {
    if (isProductStream(config.name) && (await raiseStream(jsm, config.name, replicas, config))) raised.push(config.name);
  }
  return raised;
}

/** Gives one stream `replicas` copies if it has fewer; answers whether it did. */
export async function raiseStream(jsm: JetStreamManager, stream: string, replicas: number, known?: StreamConfig): Promise<boolean> {
  const config = known ?? (await jsm.streams.info(stream)).config;
  if (config.num_replicas >= replicas) return false;
  await jsm.streams.update(stream, { ...config, num_replicas: replicas });
  return true;
}
