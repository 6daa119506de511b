// Sessions on the real node: one created through the gateway's REST API and one with
// `kubectl apply -f examples/sandbox-session.yaml` each get an engine pod that runs as a real
// container (uid 10001, read-only root, no capabilities, RuntimeDefault seccomp, no
// service-account token: from the runtime's spec and from inside) and reach WORKING: SANDBOX, and
// NOWEB against the project's fake WhatsApp server on the host. Messages go out and come in, and
// their webhooks reach a receiver on the host. The engine container is killed under a WORKING
// session, and the session comes back WORKING without a new QR code.
import { type ReceivedHook, waitFor, WebhookReceiver } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type FakePhone, FakeWaServer } from '../../engine-pod/test/fake-wa/index.js';
import { ensureNatsImage, example, type Manifest, must, nodeValues, Release, repoRoot, seconds, USER_ID } from './release.js';
import { connectNodeCluster } from './support/node-cluster.js';

const info = inject('nodeCluster');
const cluster = connectNodeCluster(info);
const release = new Release(cluster, info, 'sb-sessions');
let fake: FakeWaServer;
let receiver: WebhookReceiver;
let phone: FakePhone;

/** Webhook bodies of one session and event, optionally matching the payload. */
const hooks = (session: string, event: string, match: (payload: Manifest) => boolean = () => true) =>
  receiver.received
    .filter((hook: ReceivedHook) => hook.body.session === session && hook.body.event === event && match(hook.body.payload))
    .map((hook) => hook.body);

const webhooks = () => [{ url: receiver.url, events: ['*'], retries: { policy: 'constant', delaySeconds: 1, attempts: 30 } }];

beforeAll(async () => {
  // Pods reach the host at the bridge address only: both servers listen there.
  fake = await FakeWaServer.start({ host: cluster.hostAddress });
  receiver = await new WebhookReceiver().start(0, cluster.hostAddress);
  const nats = await ensureNatsImage(cluster);
  const took = await release.install(
    nodeValues(
      cluster,
      nats,
      // NOWEB pods dial the fake server, not WhatsApp; a wrong address fails fast.
      { engines: { extraEnv: [{ name: 'SWITCHBOARD_NOWEB_WS_URL', value: fake.url }], nowebConnectAttempts: 3 } },
      { gateway: [receiver.url], engines: [fake.url] },
    ),
  );
  console.log(`e2e-node: helm install --wait took ${seconds(took)} (namespace ${release.namespace})`);
}, 900_000);

afterAll(async () => {
  await release.remove();
  await receiver?.stop();
  await fake?.close();
}, 600_000);

/**
 * What the engine container is, from two sides: the OCI spec the runtime ran it with (crictl
 * inspect) and what its own process sees (kubectl exec).
 */
async function expectLockedDown(resource: string): Promise<void> {
  const pod = (await release.enginePod(resource))!;
  expect(pod.spec.automountServiceAccountToken).toBe(false);
  expect(pod.spec.containers[0].image).toMatch(/^localhost\/switchboard\/engine:dev$/);
  expect(pod.spec.containers[0].imagePullPolicy).toBe('Never');

  const inspected = JSON.parse(await must(cluster.crictl(['inspect', await release.engineContainerId(resource)]), 'crictl inspect'));
  const spec = inspected.info.runtimeSpec;
  expect(spec.process.user.uid).toBe(USER_ID);
  expect(spec.root.readonly).toBe(true);
  expect(spec.process.noNewPrivileges).toBe(true);
  for (const set of ['bounding', 'effective', 'permitted', 'inheritable', 'ambient']) expect(spec.process.capabilities?.[set] ?? [], set).toEqual([]);
  expect(spec.linux.seccomp?.defaultAction).toBe('SCMP_ACT_ERRNO');
  const mounts = (spec.mounts as Manifest[]).map((m) => m.destination as string);
  expect(mounts.filter((m) => m.startsWith('/var/run/secrets/kubernetes.io'))).toEqual([]);

  const inside = JSON.parse(
    await release.inEngine(
      resource,
      `const fs = require('fs');
       const status = fs.readFileSync('/proc/self/status', 'utf8');
       const field = (name) => new RegExp(name + ':\\\\s*(\\\\S+)').exec(status)[1];
       let rootWrite = 'written';
       try { fs.writeFileSync('/probe', 'x'); } catch (error) { rootWrite = error.code; }
       let tmpWrite = 'written';
       try { fs.writeFileSync('/tmp/probe', 'x'); fs.rmSync('/tmp/probe'); } catch (error) { tmpWrite = error.code; }
       process.stdout.write(JSON.stringify({
         uid: process.getuid(), gid: process.getgid(), capEff: field('CapEff'), capBnd: field('CapBnd'), seccomp: field('Seccomp'),
         noNewPrivs: field('NoNewPrivs'), rootWrite, tmpWrite, token: fs.existsSync('/var/run/secrets/kubernetes.io/serviceaccount'),
       }));`,
    ),
  );
  expect(inside).toEqual({
    uid: USER_ID,
    gid: USER_ID,
    capEff: '0000000000000000',
    capBnd: '0000000000000000',
    seccomp: '2', // a filter
    noNewPrivs: '1',
    rootWrite: 'EROFS',
    tmpWrite: 'written', // the emptyDir
    token: false,
  });
}

describe('a SANDBOX session through the REST API', () => {
  it('gets an engine pod as a locked-down container, reaches WORKING, and its messages reach the webhook receiver on the host', async () => {
    const created = await release.api('POST', '/api/sessions', { name: 'rest-sandbox', engine: 'SANDBOX', config: { webhooks: webhooks() } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await release.waitForStatus('rest-sandbox', 'SCAN_QR_CODE');
    await expectLockedDown('rest-sandbox');
    expect((await release.api('POST', '/api/rest-sandbox/sandbox/simulate', { kind: 'scan' })).status).toBe(201);
    await release.waitForStatus('rest-sandbox', 'WORKING');

    const sent = await release.api('POST', '/api/sendText', { session: 'rest-sandbox', chatId: '15551234567@c.us', text: 'out from the node' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    await waitFor(() => hooks('rest-sandbox', 'message.any', (p) => p.id === sent.body.id).length > 0, 'message.any of the sent text', 60_000);
    const incoming = await release.api('POST', '/api/rest-sandbox/sandbox/simulate', {
      kind: 'message',
      from: '15557770001@c.us',
      body: 'in to the node',
    });
    expect(incoming.status).toBe(201);
    await waitFor(() => hooks('rest-sandbox', 'message', (p) => p.body === 'in to the node').length > 0, 'the incoming message', 60_000);
    expect(hooks('rest-sandbox', 'session.status', (p) => p.status === 'WORKING').length).toBeGreaterThan(0);
  });

  it('comes back WORKING without a new QR after its engine container is killed (crictl stop)', async () => {
    const before = (await release.enginePod('rest-sandbox'))!;
    const restarts = before.status.containerStatuses[0].restartCount as number;
    const qrs = hooks('rest-sandbox', 'session.status', (p) => p.status === 'SCAN_QR_CODE').length;
    const statuses = hooks('rest-sandbox', 'session.status').length;
    const killed = Date.now();
    await must(cluster.crictl(['stop', '--timeout', '0', await release.engineContainerId('rest-sandbox')]), 'crictl stop');
    // The kubelet starts the container again in the same pod; the engine finds its pairing in NATS.
    await waitFor(
      async () => {
        const pod = await release.enginePod('rest-sandbox');
        return (
          pod?.metadata.uid === before.metadata.uid &&
          pod.status.containerStatuses[0].restartCount > restarts &&
          pod.status.containerStatuses[0].ready
        );
      },
      'the engine container restarted and ready',
      180_000,
      500,
    );
    await waitFor(
      () =>
        hooks('rest-sandbox', 'session.status')
          .slice(statuses)
          .some((h) => h.payload.status === 'WORKING'),
      'WORKING on the webhook again',
      60_000,
    );
    console.log(`e2e-node: SANDBOX engine container killed: WORKING again after ${seconds(Date.now() - killed)}`);
    // The REST answer is the resource's status, which the operator writes from the same event: a
    // moment after the webhook has it (CI saw STARTING there once).
    const seenAt = Date.now();
    await release.waitForStatus('rest-sandbox', 'WORKING', 30_000);
    console.log(`e2e-node: the REST answer said WORKING ${seconds(Date.now() - seenAt)} after the webhook`);
    expect(hooks('rest-sandbox', 'session.status', (p) => p.status === 'SCAN_QR_CODE')).toHaveLength(qrs);
    const sent = await release.api('POST', '/api/sendText', { session: 'rest-sandbox', chatId: '15551234567@c.us', text: 'after the kill' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
  });
});

describe('a SANDBOX session with kubectl apply -f examples/sandbox-session.yaml', () => {
  it('gets a locked-down engine pod and reaches WORKING; the time from kubectl apply to WORKING is printed', async () => {
    expect(example('sandbox-session.yaml')).toContain('name: demo');
    const applied = Date.now();
    await must(release.kubectl(['apply', '-f', `${repoRoot}/examples/sandbox-session.yaml`]), 'kubectl apply');
    await release.waitForStatus('demo', 'SCAN_QR_CODE');
    const qr = Date.now();
    expect((await release.api('POST', '/api/demo/sandbox/simulate', { kind: 'scan' })).status).toBe(201);
    await release.waitForStatus('demo', 'WORKING');
    const working = Date.now();
    const pod = (await release.enginePod('demo'))!;
    const created = Date.parse(pod.metadata.creationTimestamp as string);
    const running = Date.parse(pod.status.containerStatuses[0].state.running.startedAt as string);
    console.log(
      `e2e-node: kubectl apply -> SCAN_QR_CODE ${seconds(qr - applied)}, -> WORKING ${seconds(working - applied)} ` +
        `(pod created ${seconds(created - applied)} after the apply, container running ${seconds(running - created)} after that; the scan is one API call)`,
    );
    await expectLockedDown('demo');
    const resource = await release.json('msess', 'demo');
    expect(resource.status.status).toBe('WORKING');
    expect(resource.status.conditions.find((c: Manifest) => c.type === 'Ready')?.status).toBe('True');
  });
});

describe('a NOWEB session through the REST API, against the fake WhatsApp server on the host', () => {
  it('pairs by QR and reaches WORKING; a text comes in and one goes out, both on the webhook', async () => {
    const created = await release.api('POST', '/api/sessions', { name: 'rest-noweb', engine: 'NOWEB', config: { webhooks: webhooks() } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await release.waitForStatus('rest-noweb', 'SCAN_QR_CODE');
    await expectLockedDown('rest-noweb');
    const qr = await release.api('GET', '/api/rest-noweb/auth/qr?format=raw');
    expect(qr.status).toBe(200);
    phone = await fake.scanQr(qr.body.value as string, { pushName: 'Node' });
    await release.waitForStatus('rest-noweb', 'WORKING');
    expect((await release.api('GET', '/api/sessions/rest-noweb/me')).body).toEqual({ id: phone.contactId, pushName: 'Node' });

    phone.text('15557770009', 'hello through the bridge', { pushName: 'Ada' });
    await waitFor(
      () => hooks('rest-noweb', 'message', (p) => p.body === 'hello through the bridge').length > 0,
      'the incoming text on the webhook',
      60_000,
    );
    const sent = await release.api('POST', '/api/sendText', { session: 'rest-noweb', chatId: '15557770009@c.us', text: 'and back' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    await waitFor(() => hooks('rest-noweb', 'message.ack', (p) => p.id === sent.body.id && p.ackName === 'SERVER').length > 0, 'SERVER ack', 60_000);
  });

  it('comes back WORKING without a new QR after its engine container is killed (crictl stop)', async () => {
    const qrs = hooks('rest-noweb', 'session.status', (p) => p.status === 'SCAN_QR_CODE').length;
    const statuses = hooks('rest-noweb', 'session.status').length;
    const killed = Date.now();
    await must(cluster.crictl(['stop', '--timeout', '0', await release.engineContainerId('rest-noweb')]), 'crictl stop');
    await waitFor(
      () =>
        hooks('rest-noweb', 'session.status')
          .slice(statuses)
          .some((h) => h.payload.status === 'WORKING'),
      'WORKING on the webhook again',
      180_000,
    );
    console.log(`e2e-node: NOWEB engine container killed: WORKING again after ${seconds(Date.now() - killed)}`);
    expect(hooks('rest-noweb', 'session.status', (p) => p.status === 'SCAN_QR_CODE')).toHaveLength(qrs);
    expect(phone.isConnected).toBe(true);
    phone.text('15557770009', 'after the kill', { pushName: 'Ada' });
    await waitFor(() => hooks('rest-noweb', 'message', (p) => p.body === 'after the kill').length > 0, 'a text after the kill', 60_000);
  });
});
