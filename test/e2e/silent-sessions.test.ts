// Issue 31 §3 in cluster mode: a WORKING session whose connection goes silent (the fake server
// keeps the socket open and answers nothing) is noticed by its engine pod, which logs it at warn,
// reports STARTING with a `silent:` reason (the webhook gets it) and reconnects to WORKING with its
// pairing; the resource's EngineConnected condition says so (reason ReconnectedAfterSilence), a
// message after it arrives, and the gateway's metrics count it. The timeout is small here; the test
// waits on events, not on time.
import { sample, waitFor, WebhookReceiver } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePhone, FakeWaServer } from '../../engine-pod/test/fake-wa/index.js';
import { buildGows } from '../../engine-pod/test/gows/driver.js';
import { rawQr, waitForStatus } from '../contract/harness.js';
import { silencedAndReconnected } from '../contract/silent-connection.js';
import { ADMIN_KEY, type ClusterEnvironment, type GatewayProcess, fakeServersEnv, startClusterWithGateway } from './support/cluster-environment.js';

const TIMEOUT_MS = 2_000;
const CONTACT = '15551119999';

let noweb: FakeWaServer;
let gows: FakeWaServer;
let receiver: WebhookReceiver;
let env: ClusterEnvironment;
let gw: GatewayProcess;

beforeAll(async () => {
  [noweb, gows, , receiver] = await Promise.all([
    FakeWaServer.start(),
    FakeWaServer.start({ signal: true }),
    buildGows(),
    new WebhookReceiver().start(),
  ]);
  ({ env, gw } = await startClusterWithGateway({
    namespace: 'switchboard-e2e-silent',
    engineEnv: {
      SWITCHBOARD_SILENCE_TIMEOUT_MS: String(TIMEOUT_MS),
      ...fakeServersEnv({ noweb, gows }),
    },
  }));
}, 300_000);

afterAll(async () => {
  await env?.stop();
  await receiver?.stop();
  await noweb?.close();
  await gows?.close();
});

describe.each([
  { engine: 'NOWEB' as const, fake: () => noweb },
  { engine: 'GOWS' as const, fake: () => gows },
])('$engine in cluster mode: a connection gone silent', ({ engine, fake }) => {
  const session = `${engine.toLowerCase()}-silent`;
  let phone: FakePhone;

  it('is reported (webhook, warn log, EngineConnected) and reconnected WORKING without a new QR; a message after it arrives', async () => {
    const created = await gw.api('POST', '/api/sessions', { name: session, engine, config: { webhooks: [{ url: receiver.url, events: ['*'] }] } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    phone = await fake().scanQr(await rawQr(gw, session, 60_000), { pushName: 'Quiet' });
    await waitForStatus(gw, session, 'WORKING', 60_000);
    await silencedAndReconnected(receiver, session, phone, { timeoutMs: TIMEOUT_MS, waitMs: 60_000 });
    expect(env.podLogs(session)).toMatch(/"level":("warn"|40).*went silent/);

    const condition = await waitFor(async () => {
      const { status } = await env.resource(session);
      const connected = (status?.conditions ?? []).find((c: { type: string }) => c.type === 'EngineConnected');
      return status?.status === 'WORKING' && connected?.reason === 'ReconnectedAfterSilence' && connected;
    }, `${session}'s EngineConnected condition after the silence`);
    expect(condition).toMatchObject({ status: 'True', reason: 'ReconnectedAfterSilence' });
    expect(condition.message).toMatch(/went silent at \d{4}-\d\d-\d\dT/);

    const text = `after the silence (${engine}, cluster)`;
    phone.text(CONTACT, text, { pushName: 'Contact' });
    await waitFor(() => receiver.sessionEvents(session, 'message', (p) => p.body === text)[0], 'the message on the webhook', 60_000);

    // The gateway counted it from the events it read off NATS; the status gauge reads the resource.
    const metrics = await (await fetch(`${gw.url}/metrics`, { headers: { 'x-api-key': ADMIN_KEY } })).text();
    expect(sample(metrics, 'switchboard_session_silences_total', { session })).toBe(1);
    expect(sample(metrics, 'switchboard_session_reconnects_total', { session })).toBe(1);
    expect(sample(metrics, 'switchboard_session_status', { session, status: 'WORKING' })).toBe(1);
  });
});
