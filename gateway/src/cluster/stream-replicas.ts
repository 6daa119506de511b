import { isProductStream } from '@switchboard/kube';
import type { NatsConnection, StreamInfo } from 'nats';
import type { Logger } from 'pino';

/** How many copies of one stream JetStream keeps current, against how many its config asks for. */
export interface StreamReplicas {
  readonly stream: string;
  readonly current: number;
  readonly wanted: number;
}

/** How long one reading serves scrapes: every replica of every Prometheus scrapes each gateway. */
export const STREAM_REPLICAS_MAX_AGE_MS = 30_000;

/**
 * The copies of each of the product's streams (`isProductStream`) from JetStream's stream list,
 * read at most once per `maxAgeMs` whoever asks (the metrics' scrapes): the list is one request
 * per 256 streams, and a fleet has two object-store streams per session. Scrapes that come while
 * a reading is under way share it.
 */
export class StreamReplicaReadings {
  private last: { at: number; streams: readonly StreamReplicas[] } | undefined;
  private reading: Promise<readonly StreamReplicas[]> | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly log: Logger,
    private readonly maxAgeMs = STREAM_REPLICAS_MAX_AGE_MS,
  ) {}

  read(): Promise<readonly StreamReplicas[]> {
    if (this.last && Date.now() - this.last.at < this.maxAgeMs) return Promise.resolve(this.last.streams);
    return (this.reading ??= this.list().finally(() => (this.reading = undefined)));
  }

  /**
   * A failed listing (NATS away) reads as no streams, not as the last reading: an old "all
   * current" would hide the very outage, and a failed scrape would hide every other metric.
   */
  private async list(): Promise<readonly StreamReplicas[]> {
    const at = Date.now();
    const streams: StreamReplicas[] = [];
    try {
      const jsm = await this.nc.jetstreamManager();
      for await (const info of jsm.streams.list()) if (isProductStream(info.config.name)) streams.push(replicasOf(info));
    } catch (error) {
      this.log.warn({ err: error }, 'JetStream stream list failed: switchboard_nats_stream_replicas_* left empty for this scrape');
      return [];
    }
    this.last = { at, streams };
    return streams;
  }
}

/**
 * The leader counts as one current copy, each follower JetStream calls current (caught up, heard
 * from lately) as another. A stream on a server outside any cluster has no followers: its one copy.
 */
export function replicasOf(info: StreamInfo): StreamReplicas {
  const wanted = Math.max(1, info.config.num_replicas);
  const cluster = info.cluster;
  if (!cluster) return { stream: info.config.name, current: 1, wanted };
  const followers = (cluster.replicas ?? []).filter((peer) => peer.current && !peer.offline).length;
  return { stream: info.config.name, current: (cluster.leader ? 1 : 0) + followers, wanted };
}
