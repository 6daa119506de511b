// helm upgrade on the real node to a new image tag (the imported images tagged again, as a
// registry would serve a new release): the gateway, operator and engine pods are replaced, and a
// webhook that was queued while the receiver refused it (503) is still delivered once the
// receiver takes it (200). Counted by event id: every event the receiver refused arrives.
import { type ReceivedHook, waitFor, WebhookReceiver } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureNatsImage, type Manifest, nodeValues, Release, retag, seconds, untag } from './release.js';
import { connectNodeCluster } from './support/node-cluster.js';

const info = inject('nodeCluster');
const cluster = connectNodeCluster(info);
const release = new Release(cluster, info, 'sb-upgrade');
const NEW_TAG = 'dev-upgrade';
let receiver: WebhookReceiver;
let values: Record<string, unknown>;

beforeAll(async () => {
  receiver = await new WebhookReceiver().start(0, cluster.hostAddress);
  values = nodeValues(cluster, await ensureNatsImage(cluster), {}, { gateway: [receiver.url] });
  const took = await release.install(values);
  console.log(`e2e-node: helm install --wait took ${seconds(took)} (namespace ${release.namespace})`);
}, 900_000);

afterAll(async () => {
  await release.remove();
  for (const image of ['gateway', 'operator', 'engine']) await untag(info, `localhost/switchboard/${image}:${NEW_TAG}`).catch(() => {});
  await receiver?.stop();
}, 600_000);

const podsOf = async (component: string) =>
  ((await release.json('pods', '-l', `app.kubernetes.io/component=${component}`)).items as Manifest[]).filter(
    (pod) => !pod.metadata.deletionTimestamp,
  );

describe('helm upgrade to a new image tag', () => {
  it('replaces the gateway, operator and engine pods without losing a queued webhook', async () => {
    // Each event id the receiver saw, and how often it answered 503 and 200 to it.
    const refused = new Map<string, number>();
    const delivered = new Map<string, number>();
    let accepting = false;
    receiver.respond = (hook: ReceivedHook) => {
      const id = hook.body.id as string;
      if (!accepting) {
        refused.set(id, (refused.get(id) ?? 0) + 1);
        return 503;
      }
      delivered.set(id, (delivered.get(id) ?? 0) + 1);
      return 200;
    };
    accepting = true;
    const created = await release.api('POST', '/api/sessions', {
      name: 'queued',
      engine: 'SANDBOX',
      config: {
        webhooks: [{ url: receiver.url, events: ['message.any', 'message'], retries: { policy: 'constant', delaySeconds: 2, attempts: 100 } }],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await release.waitForStatus('queued', 'SCAN_QR_CODE');
    expect((await release.api('POST', '/api/queued/sandbox/simulate', { kind: 'scan' })).status).toBe(201);
    await release.waitForStatus('queued', 'WORKING');

    // The receiver goes down: what happens now is queued in JetStream, retried every 2 s (one
    // event at a time per session: the later ones wait behind the refused one).
    accepting = false;
    const sentIds: string[] = [];
    for (const text of ['one', 'two', 'three']) {
      const sent = await release.api('POST', '/api/sendText', { session: 'queued', chatId: '15551234567@c.us', text });
      expect(sent.status, JSON.stringify(sent.body)).toBe(201);
      sentIds.push(sent.body.id as string);
    }
    const incoming = await release.api('POST', '/api/queued/sandbox/simulate', { kind: 'message', from: '15557770001@c.us', body: 'incoming' });
    expect(incoming.status).toBe(201);
    await waitFor(() => [...refused.values()].some((count) => count >= 2), 'an event refused twice (queued and retried)', 60_000);

    const before = {
      gateway: (await podsOf('gateway')).map((pod) => pod.metadata.uid as string),
      operator: (await podsOf('operator')).map((pod) => pod.metadata.uid as string),
      engine: (await release.enginePod('queued'))!.metadata.uid as string,
    };
    for (const image of ['gateway', 'operator', 'engine']) {
      await retag(info, `localhost/switchboard/${image}:dev`, `localhost/switchboard/${image}:${NEW_TAG}`);
    }
    const upgrading = Date.now();
    await release.upgrade({ ...values, image: { tag: NEW_TAG, pullPolicy: 'Never' } });
    // The operator replaces the engine pod: its image changed, and so its template hash.
    await waitFor(
      async () => {
        const pod = await release.enginePod('queued');
        return (
          pod !== null &&
          pod.metadata.uid !== before.engine &&
          pod.spec.containers[0].image.endsWith(`:${NEW_TAG}`) &&
          pod.status.containerStatuses?.[0]?.ready
        );
      },
      'the engine pod replaced on the new tag',
      180_000,
      500,
    );
    await release.waitForStatus('queued', 'WORKING');
    console.log(`e2e-node: helm upgrade: every pod on ${NEW_TAG} and the session WORKING after ${seconds(Date.now() - upgrading)}`);
    for (const component of ['gateway', 'operator'] as const) {
      const pods = await podsOf(component);
      expect(pods.length, component).toBe(2);
      for (const pod of pods) {
        expect(before[component], component).not.toContain(pod.metadata.uid);
        expect(pod.spec.containers[0].image).toBe(`localhost/switchboard/${component}:${NEW_TAG}`);
      }
    }
    // Still refusing: a text sent on the new pods is queued too.
    const after = await release.api('POST', '/api/sendText', { session: 'queued', chatId: '15551234567@c.us', text: 'four' });
    expect(after.status, JSON.stringify(after.body)).toBe(201);
    sentIds.push(after.body.id as string);
    const refusedBefore = [...refused.values()].reduce((a, b) => a + b, 0);
    await waitFor(() => [...refused.values()].reduce((a, b) => a + b, 0) > refusedBefore, 'the new gateways retrying the queue', 60_000);

    accepting = true;
    // Counted by event id: each sent text's message.any and the incoming text's message, and every
    // event the receiver refused, arrive (at least once: delivery is at-least-once).
    const arrived = (event: string, match: (payload: Manifest) => boolean) =>
      receiver.received.some((h) => h.body.event === event && match(h.body.payload));
    await waitFor(
      () =>
        sentIds.every((id) => arrived('message.any', (p) => p.id === id)) &&
        arrived('message', (p) => p.id === incoming.body.id) &&
        [...refused.keys()].every((id) => delivered.has(id)),
      'every queued event delivered',
      180_000,
    );
    const duplicates = [...delivered.values()].filter((count) => count > 1).length;
    const refusals = [...refused.values()].reduce((a, b) => a + b, 0);
    console.log(
      `e2e-node: ${delivered.size} events delivered after the upgrade, ${refused.size} of them refused first (${refusals} refusals); ${duplicates} delivered more than once`,
    );
  });
});
