import { ensureEventStream } from '@switchboard/kube';
import { SUBJECTS, type WebhookConfig } from '@switchboard/protocol';
import { type ClosedPort, type NatsServer, startNatsServer, TcpProxy } from '@switchboard/testkit';
import { connect, type NatsConnection } from 'nats';
import { pino, type Logger } from 'pino';
import { afterEach } from 'vitest';
import type { PublishedEvent } from '../../src/events/event-bus.js';
import { ForgedEventGuard } from '../../src/cluster/forged-events.js';
import { JetStreamWebhookWorker, type WebhookWorkerOptions } from '../../src/cluster/webhook-worker.js';
import { GatewayMetrics } from '../../src/metrics/gateway-metrics.js';
import { startReceiver, type Receiver, type Responder } from '../webhooks/support.js';

/** One gateway replica's webhook worker, on a NATS connection of its own (a process of its own). */
export interface Replica {
  readonly nc: NatsConnection;
  readonly worker: JetStreamWebhookWorker;
  /** A crash: the connection drops with nothing acked or handed back, then the process is gone. */
  kill(): Promise<void>;
}

/**
 * `webhooks` for every session of `sessions` (default alpha and beta); `through`: its connection
 * goes through this proxy (made with `natsProxy`), which the test can stall.
 */
export type ReplicaOptions = Omit<Partial<WebhookWorkerOptions>, 'nc'> & { webhooks?: readonly WebhookConfig[]; through?: TcpProxy };

/** Log lines collected as text, to check what a warning says. */
export function captureLog(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  return { log: pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) }), lines };
}

/** The check every reader of the events makes, counting into metrics of its own (`metrics`). */
export function forgedEventGuard(log: Logger = pino({ level: 'silent' })): { guard: ForgedEventGuard; metrics: GatewayMetrics } {
  const metrics = new GatewayMetrics({ defaultMetrics: false });
  return { guard: new ForgedEventGuard(metrics, log), metrics };
}

/**
 * A real nats-server with JetStream per test, replicas on it, the test's own connection (to
 * publish as an engine pod does), and receivers; all closed after each test, even a failing one.
 */
export function natsPerTest(options: { binary?: string } = {}) {
  let server: NatsServer | undefined;
  const connections: NatsConnection[] = [];
  const workers: JetStreamWebhookWorker[] = [];
  const receivers: Receiver[] = [];
  const proxies: TcpProxy[] = [];
  afterEach(async () => {
    // A stalled connection first: cut, its replica's stop does not wait on it.
    await Promise.all(proxies.splice(0).map((proxy) => proxy.stop()));
    await Promise.all(workers.splice(0).map((worker) => worker.stop()));
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
    await Promise.all(
      connections
        .splice(0)
        .filter((nc) => !nc.isClosed())
        .map((nc) => nc.close()),
    );
    await server?.stop();
    server = undefined;
  });

  const connection = async (through?: TcpProxy): Promise<NatsConnection> => {
    server ??= await startNatsServer(options);
    const nc = await connect({ servers: through ? through.address : server.url });
    connections.push(nc);
    return nc;
  };

  return {
    connection,
    /** A connection that publishes as an engine pod does, the events stream made sure of first. */
    engine: async (): Promise<NatsConnection> => {
      const nc = await connection();
      await ensureEventStream(nc);
      return nc;
    },
    /** A proxy to the test's NATS server, closed after the test. */
    natsProxy: async (): Promise<TcpProxy> => {
      server ??= await startNatsServer(options);
      const proxy = await TcpProxy.start(server.url);
      proxies.push(proxy);
      return proxy;
    },
    replica: async (options: ReplicaOptions = {}): Promise<Replica> => {
      const { webhooks = [], through, ...rest } = options;
      const nc = await connection(through);
      const worker = await JetStreamWebhookWorker.start({
        nc,
        log: pino({ level: 'silent' }),
        guard: forgedEventGuard().guard,
        webhooksOf: () => webhooks,
        sessions: () => ['alpha', 'beta'],
        globalHook: null,
        ackWaitMs: 1_000,
        timeoutMs: 5_000,
        ...rest,
      });
      workers.push(worker);
      return {
        nc,
        worker,
        async kill() {
          await nc.close();
          await worker.stop();
        },
      };
    },
    receiver: async (respond?: Responder, port?: number | ClosedPort): Promise<Receiver> => {
      const receiver = await startReceiver(respond, port);
      receivers.push(receiver);
      return receiver;
    },
  };
}

/** Publishes an event as an engine pod does: to its subject, the event id as the message id. */
export async function publishEvent(nc: NatsConnection, event: PublishedEvent): Promise<void> {
  const { envelope } = event;
  await nc.jetstream().publish(SUBJECTS.event(envelope.session, envelope.event), event.json, { msgID: envelope.id });
}
