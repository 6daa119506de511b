// Cluster mode end to end: paced sending (docs/api.md "Paced sending") with the queue owned by the
// session's engine pod, in NATS KV. The REST answers are local mode's; the queue outlives its pod,
// deleted or SIGKILLed, and each queued send reaches the webhook once, in the order it was queued.
import { waitFor, WebhookReceiver } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForStatus, workingSession } from '../contract/harness.js';
import { type ClusterEnvironment, type GatewayProcess, startClusterEnvironment } from './support/cluster-environment.js';
import { HOLDING, type PacedSending, pacedSending } from './support/paced-sending.js';

let env: ClusterEnvironment;
let gw: GatewayProcess;
let receiver: WebhookReceiver;
let paced: PacedSending;
const SECRET = 'paced-secret';
const CHAT = '15550002222@c.us';

beforeAll(async () => {
  env = await startClusterEnvironment();
  await env.startOperator('operator-0');
  await env.waitForOperatorLeader('operator-0');
  gw = await env.startGateway();
  receiver = await new WebhookReceiver(SECRET).start();
  paced = pacedSending(gw, receiver, CHAT);
});

afterAll(async () => {
  await receiver?.stop();
  await env?.stop();
});

describe('paced sending in cluster mode: the REST answers of local mode', () => {
  it('queues (202), lists, refuses a waiting id (409), cancels (204, then 404) and answers a full queue 429 with Retry-After', async () => {
    await workingSession(gw, 'sq-api', { config: { sending: { perMinute: 1, maxQueued: 3 } } });
    const first = await paced.send('sq-api', { text: 'one' }, '5000');
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toMatchObject({ body: 'one', fromMe: true });

    const queued = await paced.send('sq-api', { text: 'two', id: 'SQAPI0000002' }, '0');
    expect(queued.status, JSON.stringify(queued.body)).toBe(202);
    expect(queued.body).toMatchObject({ id: 'SQAPI0000002', session: 'sq-api', chatId: CHAT, route: '/api/sendText', state: 'queued', position: 0 });
    const made = await paced.send('sq-api', { text: 'three' }, '0');
    expect(made.status).toBe(202);
    expect(made.body).toMatchObject({ position: 1 });
    expect(made.body['id']).toMatch(/^[0-9A-Za-z]{8,64}$/);

    const twice = await paced.send('sq-api', { text: 'again', id: 'SQAPI0000002' }, '0');
    expect(twice.status).toBe(409);
    expect(twice.body['details']).toEqual([expect.objectContaining({ path: 'body.id' })]);

    expect(await paced.queue('sq-api')).toMatchObject({ total: 2, items: [{ id: 'SQAPI0000002', state: 'queued' }, { id: made.body['id'] }] });
    expect((await gw.api('GET', '/api/sq-api/queue?limit=1&offset=1')).body).toMatchObject({ total: 2, items: [{ id: made.body['id'] }] });

    expect((await gw.api('DELETE', '/api/sq-api/queue/SQAPI0000002')).status).toBe(204);
    expect((await gw.api('DELETE', '/api/sq-api/queue/SQAPI0000002')).status).toBe(404);
    expect((await paced.queue('sq-api')).items.map(({ id }) => id)).toEqual([made.body['id']]);

    expect((await paced.send('sq-api', { text: 'four' }, '0')).status).toBe(202);
    expect((await paced.send('sq-api', { text: 'five' }, '0')).status).toBe(202);
    const refused = await paced.send('sq-api', { text: 'six' }, '0');
    expect(refused.status, JSON.stringify(refused.body)).toBe(429);
    expect(refused.body).toMatchObject({ details: { session: 'sq-api', limit: 3 } });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('takes a config change without a new engine pod: a queue paced by the minute goes out once the limit is lifted', async () => {
    await workingSession(gw, 'sq-live', { config: { sending: { perMinute: 1 } } });
    const [pod] = await env.enginePods('sq-live');
    expect((await paced.send('sq-live', { text: 'first' }, '5000')).status).toBe(201);
    expect((await paced.send('sq-live', { text: 'held', id: 'SQLIVE000002' }, '0')).status).toBe(202);
    const changed = await gw.api('PUT', '/api/sessions/sq-live', { config: { sending: { perMinute: 600 } } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    await waitFor(async () => (await paced.queue('sq-live')).total === 0, 'the held send to go out', 20_000);
    expect((await env.enginePods('sq-live')).map(({ uid }) => uid)).toEqual([pod!.uid]);
  });
});

const webhooks = () => [{ url: receiver.url, events: ['message.any'], hmac: { key: SECRET } }];

/** Queues `count` sends (ids `<prefix>0001`...) to a new session that holds them until `paced.release`. */
async function queuedSends(session: string, prefix: string, count: number): Promise<string[]> {
  await workingSession(gw, session, { config: { sending: HOLDING, webhooks: webhooks() } });
  return paced.queueTexts(session, prefix, count);
}

describe('durability: the queue outlives its engine pod', () => {
  it('the engine pod deleted with sends queued: the new pod sends each once, in order', async () => {
    const ids = await queuedSends('sq-move', 'SQMOVE', 6);
    const [old] = await env.enginePods('sq-move');
    await paced.held('sq-move', ids.length);
    await env.cp.kubectl(['delete', 'pod', old!.name, '-n', env.namespace, '--wait=false']);
    await waitFor(async () => (await env.enginePods('sq-move')).some((pod) => pod.uid !== old!.uid && pod.ready), 'a new ready engine pod', 60_000);
    await waitForStatus(gw, 'sq-move', 'WORKING', 30_000);
    await paced.release('sq-move', webhooks());
    await paced.eachOnceInOrder('sq-move', ids);
  });

  it('the engine container SIGKILLed with sends queued: its next container sends each once, in order', async () => {
    const ids = await queuedSends('sq-kill', 'SQKILL', 6);
    await paced.held('sq-kill', ids.length);
    const pids = [...env.podLogs('sq-kill').matchAll(/started pid (\d+) \(restart \d+\)/g)].map((match) => Number(match[1]));
    const pid = pids.at(-1)!;
    process.kill(pid, 'SIGKILL');
    await waitFor(() => /started pid \d+ \(restart [1-9]/.test(env.podLogs('sq-kill')), 'the engine container restarted', 60_000);
    await waitForStatus(gw, 'sq-kill', 'WORKING', 30_000);
    await paced.release('sq-kill', webhooks());
    await paced.eachOnceInOrder('sq-kill', ids);
  });
});
