// The browser engines on the real node: the browser-engine image (Debian's chromium in it) runs
// whatsapp-web.js (WEBJS) and WPPConnect with its wa-js (WPP), unmodified, in real containers,
// against the fake WhatsApp Web on the host: the engine fetches
// the page as its pinned web version, and the page opens its backend over wss (a page on https may
// reach plain ws:// only on loopback; Chromium trusts the fake's key alone). A session pairs by the
// QR code the library read from the page, messages go both ways, and its pod, deleted, comes back
// WORKING from the profile saved in NATS, without a new QR code. Both engines share one release.
import { type ReceivedHook, waitFor, WebhookReceiver } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type FakeWebPhone, FakeWhatsAppWeb } from '../../engine-pod/test/fake-web/index.js';
import { ensureNatsImage, type Manifest, must, nodeValues, Release, seconds } from './release.js';
import { connectNodeCluster } from './support/node-cluster.js';

const info = inject('nodeCluster');
const cluster = connectNodeCluster(info);
const release = new Release(cluster, info, 'sb-webjs');
const CONTACT = '15557770042';
let fake: FakeWhatsAppWeb;
let receiver: WebhookReceiver;
let phone: FakeWebPhone;

const hooks = (session: string, event: string, match: (payload: Manifest) => boolean = () => true) =>
  receiver.received
    .filter((hook: ReceivedHook) => hook.body.session === session && hook.body.event === event && match(hook.body.payload))
    .map((hook) => hook.body);

beforeAll(async () => {
  // Pods reach the host at the bridge address only: the fake and the receiver listen there.
  fake = await FakeWhatsAppWeb.start({ host: cluster.hostAddress, tls: true });
  receiver = await new WebhookReceiver().start(0, cluster.hostAddress);
  const nats = await ensureNatsImage(cluster);
  const extraEnv = Object.entries(fake.engineEnv()).map(([name, value]) => ({ name, value }));
  const took = await release.install(
    nodeValues(cluster, nats, { engines: { extraEnv } }, { gateway: [receiver.url], engines: [fake.url, fake.backendUrl] }),
  );
  console.log(`e2e-node: helm install --wait took ${seconds(took)} (namespace ${release.namespace})`);
}, 900_000);

afterAll(async () => {
  await release.remove();
  await receiver?.stop();
  await fake?.close();
}, 600_000);

describe('a WEBJS session from the browser-engine image, through Chromium on the fake WhatsApp Web', () => {
  it('pairs by the QR code the library read from the page and reaches WORKING; texts go both ways', async () => {
    const webhooks = [{ url: receiver.url, events: ['*'], retries: { policy: 'constant', delaySeconds: 1, attempts: 30 } }];
    const created = await release.api('POST', '/api/sessions', { name: 'rest-webjs', engine: 'WEBJS', config: { webhooks } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const started = Date.now();
    await release.waitForStatus('rest-webjs', 'SCAN_QR_CODE', 180_000);
    console.log(`e2e-node: WEBJS session created -> SCAN_QR_CODE ${seconds(Date.now() - started)}`);
    const pod = await release.enginePod('rest-webjs');
    expect(pod.spec.containers[0].image).toMatch(/^localhost\/switchboard\/browser-engine:dev$/);
    const qr = await release.api('GET', '/api/rest-webjs/auth/qr?format=raw');
    expect(qr.status).toBe(200);
    phone = await fake.scanQr(qr.body.value as string, { id: '15550007042@c.us', pushName: 'Node Browser' });
    await release.waitForStatus('rest-webjs', 'WORKING', 120_000);
    expect((await release.api('GET', '/api/sessions/rest-webjs/me')).body).toEqual({ id: '15550007042@c.us', pushName: 'Node Browser' });

    phone.text(CONTACT, 'hello to the browser pod');
    await waitFor(
      () => hooks('rest-webjs', 'message', (p) => p.body === 'hello to the browser pod').length > 0,
      'the incoming text on the webhook',
      60_000,
    );
    const sent = await release.api('POST', '/api/sendText', { session: 'rest-webjs', chatId: `${CONTACT}@c.us`, text: 'and back from Chromium' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    await waitFor(() => phone.sentTo(`${CONTACT}@c.us`).some((m) => m.body === 'and back from Chromium'), 'the text on the phone', 60_000);
  });

  it('a deleted engine pod is replaced and comes back WORKING from the profile saved in NATS, without a new QR code', async () => {
    const qrs = hooks('rest-webjs', 'session.status', (p) => p.status === 'SCAN_QR_CODE').length;
    const statuses = hooks('rest-webjs', 'session.status').length;
    const old = await release.enginePod('rest-webjs');
    const deleted = Date.now();
    await must(release.kubectl(['delete', 'pod', old.metadata.name, '-n', release.namespace, '--wait=false']), 'kubectl delete pod');
    await waitFor(
      () =>
        hooks('rest-webjs', 'session.status')
          .slice(statuses)
          .some((h) => h.payload.status === 'WORKING'),
      'WORKING on the webhook again',
      240_000,
    );
    console.log(`e2e-node: WEBJS engine pod deleted: WORKING again after ${seconds(Date.now() - deleted)}`);
    expect(hooks('rest-webjs', 'session.status', (p) => p.status === 'SCAN_QR_CODE')).toHaveLength(qrs);
    expect((await release.enginePod('rest-webjs')).metadata.uid).not.toBe(old.metadata.uid);
    const sent = await release.api('POST', '/api/sendText', { session: 'rest-webjs', chatId: `${CONTACT}@c.us`, text: 'from the new pod' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    await waitFor(() => phone.sentTo(`${CONTACT}@c.us`).some((m) => m.body === 'from the new pod'), 'the text from the new pod', 60_000);
  });
});

describe('a WPP session from the browser-engine image, through Chromium on the fake WhatsApp Web', () => {
  let wppPhone: FakeWebPhone;

  it('pairs by the QR code WPPConnect read from the page and reaches WORKING; texts go both ways', async () => {
    const webhooks = [{ url: receiver.url, events: ['*'], retries: { policy: 'constant', delaySeconds: 1, attempts: 30 } }];
    const created = await release.api('POST', '/api/sessions', { name: 'rest-wpp', engine: 'WPP', config: { webhooks } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const started = Date.now();
    await release.waitForStatus('rest-wpp', 'SCAN_QR_CODE', 180_000);
    console.log(`e2e-node: WPP session created -> SCAN_QR_CODE ${seconds(Date.now() - started)}`);
    const pod = await release.enginePod('rest-wpp');
    expect(pod.spec.containers[0].image).toMatch(/^localhost\/switchboard\/browser-engine:dev$/);
    const qr = await release.api('GET', '/api/rest-wpp/auth/qr?format=raw');
    expect(qr.status).toBe(200);
    wppPhone = await fake.scanQr(qr.body.value as string, { id: '15550007043@c.us', pushName: 'Node Connect' });
    await release.waitForStatus('rest-wpp', 'WORKING', 120_000);
    expect((await release.api('GET', '/api/sessions/rest-wpp/me')).body).toEqual({ id: '15550007043@c.us', pushName: 'Node Connect' });

    wppPhone.text(CONTACT, 'hello to the WPP pod');
    await waitFor(
      () => hooks('rest-wpp', 'message', (p) => p.body === 'hello to the WPP pod').length > 0,
      'the incoming text on the webhook',
      60_000,
    );
    const sent = await release.api('POST', '/api/sendText', { session: 'rest-wpp', chatId: `${CONTACT}@c.us`, text: 'and back from WPPConnect' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    await waitFor(() => wppPhone.sentTo(`${CONTACT}@c.us`).some((m) => m.body === 'and back from WPPConnect'), 'the text on the phone', 60_000);
  });

  it('a deleted engine pod is replaced and comes back WORKING from the profile saved in NATS, without a new QR code', async () => {
    const qrs = hooks('rest-wpp', 'session.status', (p) => p.status === 'SCAN_QR_CODE').length;
    const statuses = hooks('rest-wpp', 'session.status').length;
    const old = await release.enginePod('rest-wpp');
    const deleted = Date.now();
    await must(release.kubectl(['delete', 'pod', old.metadata.name, '-n', release.namespace, '--wait=false']), 'kubectl delete pod');
    await waitFor(
      () =>
        hooks('rest-wpp', 'session.status')
          .slice(statuses)
          .some((h) => h.payload.status === 'WORKING'),
      'WORKING on the webhook again',
      240_000,
    );
    console.log(`e2e-node: WPP engine pod deleted: WORKING again after ${seconds(Date.now() - deleted)}`);
    expect(hooks('rest-wpp', 'session.status', (p) => p.status === 'SCAN_QR_CODE')).toHaveLength(qrs);
    expect((await release.enginePod('rest-wpp')).metadata.uid).not.toBe(old.metadata.uid);
    const sent = await release.api('POST', '/api/sendText', { session: 'rest-wpp', chatId: `${CONTACT}@c.us`, text: 'from the new WPP pod' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    await waitFor(() => wppPhone.sentTo(`${CONTACT}@c.us`).some((m) => m.body === 'from the new WPP pod'), 'the text from the new pod', 60_000);
  });
});
