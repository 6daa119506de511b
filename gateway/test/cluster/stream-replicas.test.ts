import { ensureClusterStores, useReplicas } from '@switchboard/kube';
import { STREAMS } from '@switchboard/protocol';
import { type NatsCluster, productNatsServer, sample, startNatsCluster, waitFor } from '@switchboard/testkit';
import { connect, type NatsConnection } from 'nats';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamReplicaReadings } from '../../src/cluster/stream-replicas.js';
import { GatewayMetrics } from '../../src/metrics/gateway-metrics.js';
import { captureLog } from './nats-support.js';

// switchboard_nats_stream_replicas_{current,wanted}{stream}: what the "NATS not current" alert
// reads (docs/operations.md). A real JetStream cluster of three nats-servers on loopback.

const silent = pino({ level: 'silent' });
let cluster: NatsCluster;
let nc: NatsConnection;

/** A gateway's metrics reading the streams through `readings`, and one scrape of them. */
function scraper(readings: StreamReplicaReadings): () => Promise<string> {
  const metrics = new GatewayMetrics({ defaultMetrics: false });
  metrics.streamReplicas(() => readings.read());
  return () => metrics.registry.metrics();
}

beforeAll(async () => {
  cluster = await startNatsCluster(3, { binary: productNatsServer() });
  // One server only: the request counter below sees what this connection publishes at once.
  nc = useReplicas(await connect({ servers: cluster.servers[0]!.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 }), 3);
  await waitFor(() => ensureClusterStores(nc).then(() => true), 'the product streams with three copies', 60_000);
  const jsm = await nc.jetstreamManager();
  await jsm.streams.add({ name: 'SOMEONE_ELSES', subjects: ['elsewhere.>'] });
}, 90_000);

afterAll(async () => {
  await nc?.close();
  await cluster?.stop();
});

describe('NATS stream replicas (cluster mode metrics)', () => {
  it('reports every product stream with its copies current and wanted, and no stream of anyone else', async () => {
    const scrape = scraper(new StreamReplicaReadings(nc, silent, 0));
    const text = await waitFor(
      async () => {
        const body = await scrape();
        return sample(body, 'switchboard_nats_stream_replicas_current', { stream: STREAMS.events }) === 3 ? body : undefined;
      },
      'every copy of SB_EVENTS current',
      30_000,
    );
    expect(sample(text, 'switchboard_nats_stream_replicas_wanted', { stream: STREAMS.events })).toBe(3);
    expect(sample(text, 'switchboard_nats_stream_replicas_wanted', { stream: 'KV_sb_auth' })).toBe(3);
    expect(text).not.toContain('SOMEONE_ELSES');
  });

  it('reports fewer current copies than wanted while a server is down, and all again once it is back', async () => {
    const scrape = scraper(new StreamReplicaReadings(nc, silent, 0));
    const current = async () => sample(await scrape(), 'switchboard_nats_stream_replicas_current', { stream: STREAMS.events });
    await waitFor(async () => (await current()) === 3, 'every copy of SB_EVENTS current', 30_000);
    const lost = cluster.servers[2]!;
    await lost.kill();
    try {
      await waitFor(async () => (await current()) === 2, 'SB_EVENTS one copy short', 60_000, 250);
      expect(sample(await scrape(), 'switchboard_nats_stream_replicas_wanted', { stream: STREAMS.events })).toBe(3);
    } finally {
      await lost.start();
    }
    await waitFor(async () => (await current()) === 3, 'SB_EVENTS current again', 60_000, 250);
  }, 150_000);

  it('reads JetStream once for the scrapes within its age, however many come at once', async () => {
    const watcher = await connect({ servers: cluster.servers[0]!.url });
    try {
      let lists = 0;
      watcher.subscribe('$JS.API.STREAM.LIST', { callback: () => void lists++ });
      await watcher.flush();
      const cached = scraper(new StreamReplicaReadings(nc, silent, 3_600_000));
      await Promise.all([cached(), cached()]);
      await cached();
      await watcher.flush();
      expect(lists).toBe(1);

      const fresh = scraper(new StreamReplicaReadings(nc, silent, 0));
      await fresh();
      await fresh();
      await watcher.flush();
      expect(lists).toBe(3);
    } finally {
      await watcher.close();
    }
  });

  it('leaves the series out, with a warning, when JetStream cannot be listed', async () => {
    const closed = await connect({ servers: cluster.servers[0]!.url });
    await closed.close();
    const { log, lines } = captureLog();
    const text = await scraper(new StreamReplicaReadings(closed, log, 0))();
    expect(text).not.toMatch(/^switchboard_nats_stream_replicas_current\{/m);
    expect(lines.join('')).toContain('JetStream stream list failed');
  });
});
