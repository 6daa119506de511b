import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KV_BUCKETS, OBJECT_STORES, objectStoreStream, STREAMS, SUBJECTS } from '@switchboard/protocol';
import { freePort, productNatsServer, waitFor } from '@switchboard/testkit';
import { connect, type NatsConnection, StringCodec } from 'nats';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureClusterStores, ensureSessionStores, isProductStream, openAuthBucket, openMediaObjects, useReplicas } from '../src/index.js';

// The chart's `helm upgrade` of the bundled NATS from 1 server to 3: the single server's volume
// becomes server 0 of a JetStream cluster. nats-server (2.12) does not take over the streams it
// holds: they have no assignment in the cluster's metadata, and it deletes them as orphans 30 s
// after it joins. A stream created at one copy on that server (SWITCHBOARD_NATS_SEED) is one it
// has on disk and keeps, with what it holds; raised to three copies, the others catch up from it.
// Real nats-servers on loopback: one alone, then the same store as server 0 of three.

const sc = StringCodec();
const SESSION = 'default';
const binary = productNatsServer();
const root = mkdtempSync(join(tmpdir(), 'switchboard-nats-seed-'));
const running: ChildProcess[] = [];
/** What each server logs: server 0's orphan check is the moment the streams it holds would go. */
const logs = new Map<string, string>();
const logOf = (name: string) => logs.get(name) ?? '';
/** nats-server's debug line as it looks for orphans, 30 s after it joined its cluster's metadata. */
const ORPHAN_CHECK = 'JetStream cluster checking for orphans';

/** One nats-server with this configuration; resolves once it listens. */
async function server(name: string, lines: string[], port: number, debug = false): Promise<void> {
  const config = join(root, `${name}.conf`);
  writeFileSync(
    config,
    [`server_name: ${name}`, `server_tags: [${name}]`, `listen: 127.0.0.1:${port}`, `jetstream { store_dir: "${join(root, name)}" }`, ...lines].join(
      '\n',
    ),
  );
  const child = spawn(binary, ['-c', config, ...(debug ? ['-D'] : [])], { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr.on('data', (chunk: Buffer) => logs.set(name, logOf(name) + chunk.toString()));
  running.push(child);
  await waitFor(async () => {
    const probe = await connect({ servers: `127.0.0.1:${port}`, reconnect: false }).catch(() => null);
    await probe?.close();
    return probe !== null;
  }, `nats-server ${name} to listen`);
}

async function stopAll(): Promise<void> {
  await Promise.all(
    running.splice(0).map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
}

afterAll(async () => {
  await stopAll();
  rmSync(root, { recursive: true, force: true });
});

describe('a single NATS server grown into a cluster of three (SWITCHBOARD_NATS_SEED)', () => {
  it('keeps every stream and bucket the single server held, at three copies, past the orphan check', async () => {
    // One server, as the chart's replicas 1 runs it: the product's stores with one copy, a pairing, an event, a file.
    const alone = await freePort();
    await server('n0', [], alone);
    let nc: NatsConnection = useReplicas(await connect({ servers: `127.0.0.1:${alone}` }), 1);
    await ensureClusterStores(nc);
    await ensureSessionStores(nc, SESSION);
    await (await openAuthBucket(nc)).put(`${SESSION}.creds`, sc.encode('paired'));
    await nc.jetstream().publish(SUBJECTS.event(SESSION, 'message'), sc.encode('{"id":"evt-1"}'), { msgID: 'evt-1' });
    await (await openMediaObjects(nc, SESSION)).putBlob({ name: `${SESSION}/file` }, sc.encode('bytes'));
    const held: Record<string, number> = {};
    for await (const info of (await nc.jetstreamManager()).streams.list())
      if (isProductStream(info.config.name)) held[info.config.name] = info.state.messages;
    await nc.close();
    await stopAll();
    // Every store the operator makes, the media bucket, and each holds what was written.
    expect(held).toMatchObject({
      [STREAMS.events]: 1,
      [`KV_${KV_BUCKETS.auth}`]: 1,
      [`KV_${KV_BUCKETS.leases}`]: 0,
      [objectStoreStream(OBJECT_STORES.media(SESSION))]: 2,
    });

    // The same store as server 0 of three, as `helm upgrade --set nats.bundled.replicas=3` restarts it.
    const ports = await Promise.all([0, 1, 2].map(async () => ({ client: await freePort(), route: await freePort() })));
    const routes = `cluster { name: sb, listen: 127.0.0.1:${'ROUTE'}, routes: [${ports.map((p) => `nats-route://127.0.0.1:${p.route}`).join(', ')}] }`;
    rmSync(join(root, 'n0.conf'));
    await Promise.all(ports.map((p, i) => server(`n${i}`, [routes.replace('ROUTE', String(p.route))], i === 0 ? alone : p.client, i === 0)));
    nc = useReplicas(
      await connect({ servers: [alone, ...ports.slice(1).map((p) => p.client)].map((port) => `127.0.0.1:${port}`), maxReconnectAttempts: -1 }),
      3,
      'n0',
    );
    // What the operator and gateways do at start, retried while the cluster elects its leaders.
    await waitFor(
      async () => {
        await ensureClusterStores(nc);
        await ensureSessionStores(nc, SESSION);
        return true;
      },
      'the stores made on the cluster',
      60_000,
      500,
    );
    // Past server 0's orphan check (30 s after it joined): what it would have deleted is deleted by then.
    await waitFor(() => logOf('n0').includes(ORPHAN_CHECK), "server 0's orphan check", 90_000, 500);
    expect(logOf('n0')).not.toContain('Detected orphaned stream');

    const jsm = await nc.jetstreamManager();
    const now: Record<string, { messages: number; replicas: number }> = {};
    await waitFor(
      async () => {
        for (const name of Object.keys(held)) {
          const info = await jsm.streams.info(name);
          now[name] = { messages: info.state.messages, replicas: info.cluster?.replicas?.filter((peer) => peer.current).length ?? 0 };
        }
        // Every copy caught up: the leader and two current followers.
        return Object.values(now).every((stream) => stream.replicas === 2);
      },
      'every stream at three current copies',
      60_000,
      500,
    );
    expect(Object.fromEntries(Object.entries(now).map(([name, stream]) => [name, stream.messages]))).toEqual(held);
    expect(sc.decode((await (await openAuthBucket(nc)).get(`${SESSION}.creds`))!.value)).toBe('paired');
    await nc.close();
  }, 240_000);

  it('waits at start while server 0 is not in the cluster yet, then keeps what it held', async () => {
    const alone = await freePort();
    await server('m0', [], alone);
    let nc: NatsConnection = useReplicas(await connect({ servers: `127.0.0.1:${alone}` }), 1);
    await ensureClusterStores(nc);
    await (await openAuthBucket(nc)).put(`${SESSION}.creds`, sc.encode('paired'));
    await nc.close();
    await stopAll();

    const ports = await Promise.all([0, 1, 2].map(async () => ({ client: await freePort(), route: await freePort() })));
    const cluster = (i: number) =>
      `cluster { name: sb2, listen: 127.0.0.1:${ports[i]!.route}, routes: [${ports.map((p) => `nats-route://127.0.0.1:${p.route}`).join(', ')}] }`;
    rmSync(join(root, 'm0.conf'));
    // Servers 1 and 2 first, as a StatefulSet's new pods come up while pod 0 has not restarted yet.
    // Two of three new servers elect no meta leader: JetStream answers nothing until server 0 is back.
    await Promise.all([1, 2].map((i) => server(`m${i}`, [cluster(i)], ports[i]!.client)));
    nc = useReplicas(await connect({ servers: ports.slice(1).map((p) => `127.0.0.1:${p.client}`), maxReconnectAttempts: -1 }), 3, 'm0');
    // Each request to JetStream's API: a third one is the part trying again, not failing its start.
    let asked = 0;
    const requests = nc.subscribe('$JS.API.>', { callback: () => asked++ });
    const stores = ensureClusterStores(nc);
    await waitFor(() => asked >= 3, 'JetStream asked again while server 0 is away', 60_000, 100);
    await server('m0', [cluster(0)], alone, true);
    await stores;
    requests.unsubscribe();

    await waitFor(() => logOf('m0').includes(ORPHAN_CHECK), "server 0's orphan check", 90_000, 500);
    expect(logOf('m0')).not.toContain('Detected orphaned stream');
    expect(sc.decode((await (await openAuthBucket(nc)).get(`${SESSION}.creds`))!.value)).toBe('paired');
    const auth = await (await nc.jetstreamManager()).streams.info(`KV_${KV_BUCKETS.auth}`);
    expect(auth.config.num_replicas).toBe(3);
    await nc.close();
  }, 240_000);
});
