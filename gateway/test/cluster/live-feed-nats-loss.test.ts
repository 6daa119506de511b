import { useReplicas } from '@switchboard/kube';
import { STREAMS } from '@switchboard/protocol';
import { type NatsCluster, productNatsServer, startNatsCluster, waitFor } from '@switchboard/testkit';
import { connect, type NatsConnection } from 'nats';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveEventFeed } from '../../src/cluster/event-source.js';
import { InProcessEventBus, type PublishedEvent } from '../../src/events/event-bus.js';
import { makeEvent } from '../webhooks/support.js';
import { forgedEventGuard, publishEvent } from './nats-support.js';

// The /ws feed of a replica (LiveEventFeed) on a JetStream cluster of three real nats-servers,
// when the server its consumer lives on goes, and when one comes back with an empty store.

let cluster: NatsCluster;
const connections: NatsConnection[] = [];
const connectAll = async () => {
  const nc = await connect({ servers: cluster.url.split(','), maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  connections.push(nc);
  return useReplicas(nc, 3);
};

beforeAll(async () => {
  cluster = await startNatsCluster(3, { binary: productNatsServer() });
}, 60_000);

afterAll(async () => {
  for (const nc of connections) await nc.close().catch(() => {});
  await cluster?.stop();
});

describe('the live feed on a JetStream cluster', () => {
  it('carries on after the server holding its consumer is lost with its store, and after the stream leader is', async () => {
    const gateway = await connectAll();
    const engine = await connectAll();
    await waitFor(async () => {
      await (await gateway.jetstreamManager()).getAccountInfo();
      return true;
    }, 'a JetStream meta leader');
    const seen: PublishedEvent[] = [];
    const bus = new InProcessEventBus((error) => {
      throw error;
    });
    bus.subscribe((event) => seen.push(event));
    const feed = await LiveEventFeed.start({ nc: gateway, bus, log: pino({ level: 'silent' }), guard: forgedEventGuard().guard });

    // An engine publishing all along, retrying each event until the stream takes it.
    let seq = 0;
    let publishing = true;
    const published: string[] = [];
    const publisher = (async () => {
      while (publishing) {
        const event = makeEvent('alpha', ++seq);
        for (;;) {
          try {
            await publishEvent(engine, event);
            published.push(event.envelope.id);
            break;
          } catch {
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const jsm = await gateway.jetstreamManager();
    /**
     * An event published after `what` reaches the bus within `withinMs` of the server's return. The
     * bound is what the feed promises (docs/operations.md): its consumer's pulls lapse every 5 s,
     * so a consumer lost with its server is noticed and made again in about 7 s here; with the
     * client's default 30-s pulls the feed stayed silent 45 s (the /ws gap of the chaos tier).
     */
    const feedReaches = async (what: string, withinMs = 25_000) => {
      const mark = published.length + 5;
      const since = Date.now();
      await waitFor(() => published.length >= mark, `events published after ${what}`, 60_000);
      const id = published[mark - 1]!;
      await waitFor(
        () => seen.some((e) => e.envelope.id === id),
        `the feed carrying events after ${what}`,
        Math.max(1_000, withinMs - (Date.now() - since)),
      );
    };
    await feedReaches('the start', 10_000);

    const consumerHost = async () => {
      for await (const info of jsm.consumers.list(STREAMS.events)) return info.cluster?.leader;
      return undefined;
    };
    for (const fault of ['its consumer', 'the stream leader'] as const) {
      const name = fault === 'its consumer' ? await consumerHost() : (await jsm.streams.info(STREAMS.events)).cluster?.leader;
      const server = cluster.servers.find((s) => s.name === name);
      expect(server, `the server holding ${fault}`).toBeDefined();
      await server!.loseStore();
      await server!.start();
      await feedReaches(`losing ${fault}'s server (${name}) with its store`);
    }
    publishing = false;
    await publisher;
    await feed.stop();
  }, 240_000);
});
