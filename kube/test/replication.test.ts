import { KV_BUCKETS, OBJECT_STORES, objectStoreStream, STREAMS, SUBJECTS } from '@switchboard/protocol';
import { type NatsCluster, productNatsServer, startNatsCluster, waitFor } from '@switchboard/testkit';
import { connect, type JetStreamManager, type NatsConnection, StringCodec } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ensureClusterStores,
  ensureSessionStores,
  ensureStream,
  isProductStream,
  keepReplicas,
  openAuthBucket,
  raiseReplicas,
  replicasOf,
  useReplicas,
} from '../src/index.js';

// What makes a NATS grown from one server to a cluster keep everything: the streams and buckets
// made with one copy are raised to three, keep what they hold, and survive the loss of any one
// server. A real JetStream cluster of three nats-servers on loopback.

const sc = StringCodec();
let cluster: NatsCluster;
let nc: NatsConnection;
let jsm: JetStreamManager;

/** Each product stream's replica count, by name. */
async function replicasByStream(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for await (const info of jsm.streams.list()) if (isProductStream(info.config.name)) out[info.config.name] = info.config.num_replicas;
  return out;
}

beforeAll(async () => {
  cluster = await startNatsCluster(3, { binary: productNatsServer() });
  nc = await connect({ servers: cluster.url.split(','), maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  // The cluster has elected its JetStream meta leader once an account info answers.
  jsm = await waitFor(async () => {
    const manager = await nc.jetstreamManager();
    await manager.getAccountInfo();
    return manager;
  }, 'the JetStream cluster to elect a leader');
}, 60_000);

afterAll(async () => {
  await nc?.close();
  await cluster?.stop();
});

describe('stream replicas (SWITCHBOARD_NATS_REPLICAS)', () => {
  it('makes every store with one copy unless asked; raising to three keeps what they hold and survives a lost server', async () => {
    expect(replicasOf(nc)).toBe(1);
    await ensureClusterStores(nc);
    await ensureSessionStores(nc, 's1');
    await (await openAuthBucket(nc)).put('s1.creds.me', sc.encode('paired'));
    await nc.jetstream().publish(SUBJECTS.event('s1', 'message'), sc.encode('{"event":"message"}'));
    // Not ours: left as it is.
    await jsm.streams.add({ name: 'SOMEONE_ELSES', subjects: ['elsewhere.>'] });

    const ours = [STREAMS.events, `KV_${KV_BUCKETS.auth}`, `KV_${KV_BUCKETS.messages}`, `KV_${KV_BUCKETS.leases}`, `KV_${KV_BUCKETS.sendQueues}`];
    const sessionStreams = [objectStoreStream(OBJECT_STORES.media('s1')), objectStoreStream(OBJECT_STORES.commands('s1'))];
    const before = await replicasByStream();
    expect(Object.keys(before).sort()).toEqual([...ours, ...sessionStreams].sort());
    expect(new Set(Object.values(before))).toEqual(new Set([1]));

    const raised = await raiseReplicas(jsm, 3);
    expect(raised.sort()).toEqual([...ours, ...sessionStreams].sort());
    expect(new Set(Object.values(await replicasByStream()))).toEqual(new Set([3]));
    expect((await jsm.streams.info('SOMEONE_ELSES')).config.num_replicas).toBe(1);
    // Raised once: asked again, nothing to do.
    expect(await raiseReplicas(jsm, 3)).toEqual([]);

    // Every copy of every stream raised has caught up before a server goes.
    for (const stream of raised) {
      await waitFor(
        async () => {
          const info = await jsm.streams.info(stream);
          return info.cluster?.leader && info.cluster.replicas?.length === 2 && info.cluster.replicas.every((peer) => peer.current);
        },
        `${stream} to be copied to its two new replicas`,
        30_000,
      );
    }

    // The server leading the pairing bucket is lost: its pairing and the event are still there,
    // and both take writes.
    const leader = (await jsm.streams.info(`KV_${KV_BUCKETS.auth}`)).cluster!.leader!;
    await cluster.servers.find((server) => server.name === leader)!.kill();
    // A JetStream request may time out while the bucket's remaining servers elect a new leader.
    const auth = await waitFor(() => openAuthBucket(nc), 'the pairing bucket, with its leader gone', 30_000);
    const entry = await waitFor(() => auth.get('s1.creds.me'), 'the pairing, with its leader gone', 30_000);
    expect(sc.decode(entry.value)).toBe('paired');
    await waitFor(() => auth.put('s1.creds.me', sc.encode('paired again')), 'a write to the pairing bucket', 30_000);
    await waitFor(() => nc.jetstream().publish(SUBJECTS.event('s1', 'message.ack'), sc.encode('{"event":"message.ack"}')), 'an event stored', 30_000);
    expect((await waitFor(() => jsm.streams.info(STREAMS.events), 'the events stream', 30_000)).state.messages).toBe(2);
    await cluster.servers.find((server) => server.name === leader)!.start();
  }, 120_000);

  it('makes new stores with the copies asked for, and a part asking for fewer never lowers them', async () => {
    const three = useReplicas(await connect({ servers: cluster.url.split(',') }), 3);
    try {
      await waitFor(() => ensureSessionStores(three, 's2').then(() => true), "s2's buckets", 30_000);
      expect((await jsm.streams.info(objectStoreStream(OBJECT_STORES.media('s2')))).config.num_replicas, "s2's media bucket").toBe(3);
    } finally {
      await three.close();
    }
    // A stream made with three copies, then brought to its configuration by a part asking for one
    // (`nc`), as the gateway does at start with the events stream: it keeps its three.
    const guarded = { name: 'SB_GUARD', subjects: ['sb.guard.>'] };
    await waitFor(() => ensureStream(jsm, { ...guarded, num_replicas: 3 }).then(() => true), 'SB_GUARD made with three copies', 30_000);
    await ensureStream(jsm, { ...guarded, num_replicas: replicasOf(nc) });
    expect((await jsm.streams.info('SB_GUARD')).config.num_replicas, 'SB_GUARD').toBe(3);
  }, 60_000);

  it("keeps the copies asked for: a product stream made later with one (a part of an older release) is raised, another's is not", async () => {
    const three = useReplicas(await connect({ servers: cluster.url.split(','), maxReconnectAttempts: -1, reconnectTimeWait: 100 }), 3);
    // Nothing else raises streams here: the raise is keepReplicas's. (Its report is not asserted: an
    // update JetStream made but answered late reports an error, and the next check finds it done.)
    const stop = keepReplicas(three, { everyMs: 200, onRaised: () => {}, onError: () => {} });
    try {
      // As an old gateway makes a session's command bucket after nats-server dropped it: one copy.
      const straggler = objectStoreStream(OBJECT_STORES.commands('s3'));
      await waitFor(() => jsm.streams.add({ name: straggler, subjects: ['$O.straggler.>'], num_replicas: 1 }).then(() => true), straggler, 30_000);
      await waitFor(() => jsm.streams.add({ name: 'NOT_OURS', subjects: ['not.ours.>'], num_replicas: 1 }).then(() => true), 'NOT_OURS', 30_000);
      await waitFor(async () => (await jsm.streams.info(straggler)).config.num_replicas === 3, `${straggler} raised to three`, 30_000);
      expect((await jsm.streams.info('NOT_OURS')).config.num_replicas).toBe(1);
    } finally {
      stop();
      await three.close();
    }
  }, 60_000);
});
