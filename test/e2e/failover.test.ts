// Cluster mode end to end, when processes die: an operator leader SIGKILLed (the other replica
// takes over), and gateway replicas SIGKILLed while a webhook receiver is down (no event lost,
// and the first copy of each reaches the webhook in the session's order).
import { STREAMS, SUBJECTS } from '@switchboard/protocol';
import { waitFor, WebhookReceiver } from '@switchboard/testkit';
import type { NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForStatus, workingSession } from '../contract/harness.js';
import { type ClusterEnvironment, connectNats, type GatewayProcess, startClusterEnvironment } from './support/cluster-environment.js';
import type { NodeProcess } from './support/node-process.js';

let env: ClusterEnvironment;
let gw: GatewayProcess;
let nc: NatsConnection;
const operators: Record<string, NodeProcess> = {};

beforeAll(async () => {
  env = await startClusterEnvironment();
  // The first replica leads; the second waits with warm caches.
  operators.a = await env.startOperator('operator-a');
  await env.waitForOperatorLeader('operator-a');
  operators.b = await env.startOperator('operator-b');
  gw = await env.startGateway();
  nc = await connectNats(env);
});

afterAll(async () => {
  await nc?.close();
  await env?.stop();
});

/** Whether an operator's log says it created the engine pod of `session`. */
const createdPodFor = (operator: NodeProcess, session: string) =>
  operator.logLines().some((line) => line.msg === 'created engine pod' && line.resource === session);

describe('operator leader election', () => {
  it('only the leader reconciles; when it is SIGKILLed, the other replica takes over and runs new sessions', async () => {
    await gw.api('POST', '/api/sessions', { name: 'before-kill' });
    await waitForStatus(gw, 'before-kill', 'SCAN_QR_CODE', 30_000);
    expect(createdPodFor(operators.a!, 'before-kill')).toBe(true);
    expect(createdPodFor(operators.b!, 'before-kill')).toBe(false);

    await operators.a!.kill('SIGKILL');
    const killedAt = Date.now();
    const created = await gw.api('POST', '/api/sessions', { name: 'after-kill' });
    expect(created.status).toBe(201);
    // The lease runs out 15 s after the leader's last renewal; the other replica then takes it.
    await waitFor(async () => (await env.enginePods('after-kill')).some((pod) => pod.ready), 'the new session’s pod', 40_000);
    await waitForStatus(gw, 'after-kill', 'SCAN_QR_CODE', 10_000);
    expect(Date.now() - killedAt).toBeLessThan(35_000);
    expect(await env.operatorLeader()).toBe('operator-b');
    expect(createdPodFor(operators.b!, 'after-kill'), operators.b!.tail()).toBe(true);
    // The session made under the old leader keeps running.
    expect((await gw.api('GET', '/api/sessions/before-kill')).body.status).toBe('SCAN_QR_CODE');
  });
});

describe('invariant 2: gateways killed during webhook delivery', () => {
  it('every event the engine published reaches the receiver at least once, in the order it was published', async () => {
    const SECRET = 'durable-secret';
    const receiver = await new WebhookReceiver(SECRET).start();
    let receiverUp = false;
    let refused = 0;
    receiver.respond = () => {
      if (receiverUp) return 200;
      refused++;
      return 503;
    };
    const second = await env.startGateway();
    try {
      await workingSession(gw, 'durable', {
        config: {
          webhooks: [{ url: receiver.url, events: ['*'], hmac: { key: SECRET }, retries: { policy: 'constant', delaySeconds: 1, attempts: 100 } }],
        },
      });
      const send = (via: GatewayProcess, text: string) => via.api('POST', '/api/sendText', { session: 'durable', chatId: '15551234567@c.us', text });
      const sent: string[] = [];
      for (const [via, text] of [
        [gw, 'one'],
        [second, 'two'],
        [gw, 'three'],
      ] as const)
        sent.push((await send(via, text)).body.id);
      await second.api('POST', '/api/durable/sandbox/simulate', { kind: 'message', from: '15557654321@c.us', body: 'incoming' });
      // The session's queue for this webhook holds its first event, retried by one of the replicas.
      await waitFor(() => refused >= 3, 'deliveries refused by the receiver', 10_000);

      await gw.process.kill('SIGKILL');
      sent.push((await send(second, 'four')).body.id);
      await second.process.kill('SIGKILL');

      // No gateway runs: the engine still takes commands (over NATS) and publishes events.
      const reply = await nc.request(
        SUBJECTS.command('durable'),
        JSON.stringify({ op: 'send.text', args: { chatId: '15551234567@c.us', text: 'five' } }),
        {
          timeout: 10_000,
        },
      );
      sent.push((JSON.parse(reply.string()) as { result: { id: string } }).result.id);

      receiverUp = true;
      gw = await env.startGateway();
      // The event a killed replica held comes back after the queue's ack wait (10 s).
      const delivered = () => new Set(receiver.received.map((hook) => hook.body.id as string));
      const published = await waitFor(
        async () => {
          const events = await publishedEvents(nc, 'durable');
          const acked = sent.every((id) => events.filter((event) => event.payload.id === id && event.event === 'message.ack').length === 2);
          return acked && events.every((event) => delivered().has(event.id)) && events;
        },
        'every published event at the receiver',
        60_000,
      ).catch(async (error: unknown) => {
        const missing = (await publishedEvents(nc, 'durable')).filter((event) => !delivered().has(event.id));
        throw new Error(`${(error as Error).message}; missing: ${JSON.stringify(missing.map((e) => [e.event, e.id]))}`);
      });
      expect(published.length).toBeGreaterThanOrEqual(3 + sent.length * 3 + 2);
      expect(receiver.received.every((hook) => hook.hmacValid === true)).toBe(true);
      // Duplicates are allowed (at least once); the first copies come in stream order.
      const firstCopies = [...new Set(receiver.received.map((hook) => hook.body.id as string))];
      expect(firstCopies).toEqual(published.map((event) => event.id));
      for (const id of sent) expect(published.filter((event) => event.payload.id === id).map((event) => event.event)).toContain('message.any');
    } finally {
      await second.process.kill();
      await receiver.stop();
    }
  });
});

interface PublishedEvent {
  id: string;
  event: string;
  payload: { id?: string };
}

/** Every event of a session in the SB_EVENTS stream, read with an ordered consumer from the start. */
async function publishedEvents(connection: NatsConnection, session: string): Promise<PublishedEvent[]> {
  const consumer = await connection.jetstream().consumers.get(STREAMS.events, { filterSubjects: [SUBJECTS.sessionEvents(session)] });
  const events: PublishedEvent[] = [];
  const messages = await consumer.fetch({ max_messages: 10_000, expires: 2_000 });
  for await (const message of messages) {
    events.push(message.json<PublishedEvent>());
    if (message.info.pending === 0) break;
  }
  return events;
}
