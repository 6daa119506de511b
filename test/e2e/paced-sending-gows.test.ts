// Cluster mode end to end: paced sending of a GOWS session, its queue owned by the Go engine pod
// (engines/gows/internal/natshost, sendq*.go) in NATS KV as the Node pod keeps it
// (paced-sending.test.ts). The REST answers are the same; the queue outlives its pod, and each
// queued send reaches the contact and the webhook once, in the order it was queued.
import { waitFor, WebhookReceiver } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePhone, FakeWaServer } from '../../engine-pod/test/fake-wa/index.js';
import { buildGows } from '../../engine-pod/test/gows/driver.js';
import { rawQr, waitForStatus } from '../contract/harness.js';
import { type ClusterEnvironment, type GatewayProcess, fakeServersEnv, startClusterWithGateway } from './support/cluster-environment.js';
import { HOLDING, type PacedSending, pacedSending } from './support/paced-sending.js';

const SECRET = 'paced-gows-secret';
const CONTACT = '15550003333';
const CHAT = `${CONTACT}@c.us`;

let fake: FakeWaServer;
let env: ClusterEnvironment;
let gw: GatewayProcess;
let receiver: WebhookReceiver;
let paced: PacedSending;
const phones = new Map<string, FakePhone>();

beforeAll(async () => {
  const [server, binary] = await Promise.all([FakeWaServer.start({ signal: true }), buildGows()]);
  fake = server;
  receiver = await new WebhookReceiver(SECRET).start();
  ({ env, gw } = await startClusterWithGateway({
    namespace: 'switchboard-e2e-paced-gows',
    engineEnv: { SWITCHBOARD_GOWS_BIN: binary, ...fakeServersEnv({ gows: fake }) },
  }));
  paced = pacedSending(gw, receiver, CHAT);
}, 300_000);

afterAll(async () => {
  await env?.stop();
  await receiver?.stop();
  await fake?.close();
});

/** A GOWS session paired through the fake server, WORKING, its `message.any` events at the webhook. */
const webhooks = () => [{ url: receiver.url, events: ['message.any'], hmac: { key: SECRET } }];

async function workingGowsSession(session: string, sending: Record<string, unknown>, phone: string): Promise<void> {
  const created = await gw.api('POST', '/api/sessions', {
    name: session,
    engine: 'GOWS',
    config: { sending, webhooks: webhooks() },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  phones.set(session, await fake.scanQr(await rawQr(gw, session, 60_000), { phone, pushName: session }));
  await waitForStatus(gw, session, 'WORKING', 60_000);
  fake.contact(CONTACT, `2451200${phone.slice(-8)}`);
}

describe('paced sending of a GOWS session in cluster mode: the REST answers of local mode', () => {
  it('sends within the wait (201), queues (202), lists, refuses a waiting id (409), cancels (204, then 404), answers a full queue 429 with Retry-After', async () => {
    await workingGowsSession('gsq-api', { perMinute: 1, maxQueued: 3 }, '15550004001');
    const first = await paced.send('gsq-api', { text: 'one' }, '5000');
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toMatchObject({ body: 'one', fromMe: true });
    // The Go pod's lane sent it (its log line), not a pacer of the gateway.
    expect(env.podLogs('gsq-api')).toMatch(/"msg":"queued send sent".*"waitedMs"/);

    const queued = await paced.send('gsq-api', { text: 'two', id: 'GSQAPI000002' }, '0');
    expect(queued.status, JSON.stringify(queued.body)).toBe(202);
    expect(queued.body).toMatchObject({ id: 'GSQAPI000002', session: 'gsq-api', chatId: CHAT, route: '/api/sendText', state: 'queued', position: 0 });
    const made = await paced.send('gsq-api', { text: 'three' }, '0');
    expect(made.status, JSON.stringify(made.body)).toBe(202);
    expect(made.body).toMatchObject({ position: 1 });
    expect(made.body['id']).toMatch(/^[0-9A-Za-z]{8,64}$/);

    const twice = await paced.send('gsq-api', { text: 'again', id: 'GSQAPI000002' }, '0');
    expect(twice.status, JSON.stringify(twice.body)).toBe(409);

    expect(await paced.queue('gsq-api')).toMatchObject({ total: 2, items: [{ id: 'GSQAPI000002', state: 'queued' }, { id: made.body['id'] }] });
    expect((await gw.api('DELETE', '/api/gsq-api/queue/GSQAPI000002')).status).toBe(204);
    expect((await gw.api('DELETE', '/api/gsq-api/queue/GSQAPI000002')).status).toBe(404);
    expect((await paced.queue('gsq-api')).items.map(({ id }) => id)).toEqual([made.body['id']]);

    expect((await paced.send('gsq-api', { text: 'four' }, '0')).status).toBe(202);
    expect((await paced.send('gsq-api', { text: 'five' }, '0')).status).toBe(202);
    const refused = await paced.send('gsq-api', { text: 'six' }, '0');
    expect(refused.status, JSON.stringify(refused.body)).toBe(429);
    expect(refused.body).toMatchObject({ details: { session: 'gsq-api', limit: 3 } });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('takes a config change without a new engine pod: a send held by the minute goes out once the limit is lifted', async () => {
    await workingGowsSession('gsq-live', { perMinute: 1 }, '15550004002');
    const [pod] = await env.enginePods('gsq-live');
    expect((await paced.send('gsq-live', { text: 'first' }, '5000')).status).toBe(201);
    expect((await paced.send('gsq-live', { text: 'held', id: 'GSQLIVE00002' }, '0')).status).toBe(202);
    const changed = await gw.api('PUT', '/api/sessions/gsq-live', { config: { sending: { perMinute: 600 } } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    await waitFor(async () => (await paced.queue('gsq-live')).total === 0, 'the held send to go out', 20_000);
    expect(await phones.get('gsq-live')!.read('GSQLIVE00002')).toMatchObject({ conversation: 'held' });
    expect((await env.enginePods('gsq-live')).map(({ uid }) => uid)).toEqual([pod!.uid]);
  });
});

/** Queues `count` sends (ids `<prefix>0001`...) to a new session that holds them until `paced.release`. */
async function queuedSends(session: string, prefix: string, count: number, phone: string): Promise<string[]> {
  await workingGowsSession(session, HOLDING, phone);
  return paced.queueTexts(session, prefix, count);
}

/** Once the queue is empty: every send reached the webhook once, in the order it was queued, and the contact has it. */
async function eachOnceInOrder(session: string, ids: string[]): Promise<void> {
  await paced.eachOnceInOrder(session, ids);
  for (const id of ids) expect(await phones.get(session)!.read(id)).toMatchObject({ conversation: expect.stringContaining(' ') });
}

describe('durability: the queue outlives its Go engine pod', () => {
  it('the engine pod deleted with sends queued: the new pod sends each once, in order', async () => {
    const ids = await queuedSends('gsq-move', 'GSQMOVE', 6, '15550004003');
    const [old] = await env.enginePods('gsq-move');
    await paced.held('gsq-move', ids.length);
    await env.cp.kubectl(['delete', 'pod', old!.name, '-n', env.namespace, '--wait=false']);
    await waitFor(async () => (await env.enginePods('gsq-move')).some((pod) => pod.uid !== old!.uid && pod.ready), 'a new ready engine pod', 60_000);
    await waitForStatus(gw, 'gsq-move', 'WORKING', 30_000);
    await paced.release('gsq-move', webhooks());
    await eachOnceInOrder('gsq-move', ids);
  });

  it('the engine container SIGKILLed with sends queued: its next container sends each once, in order', async () => {
    const ids = await queuedSends('gsq-kill', 'GSQKILL', 6, '15550004004');
    await paced.held('gsq-kill', ids.length);
    const pids = [...env.podLogs('gsq-kill').matchAll(/started pid (\d+) \(restart \d+\)/g)].map((match) => Number(match[1]));
    process.kill(pids.at(-1)!, 'SIGKILL');
    await waitFor(() => /started pid \d+ \(restart [1-9]/.test(env.podLogs('gsq-kill')), 'the engine container restarted', 60_000);
    await waitForStatus(gw, 'gsq-kill', 'WORKING', 30_000);
    await paced.release('gsq-kill', webhooks());
    await eachOnceInOrder('gsq-kill', ids);
  });
});
