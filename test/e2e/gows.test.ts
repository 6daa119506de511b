// Cluster mode end to end for GOWS: the operator's engine pod is the Go engine's own image,
// `switchboard-gows nats` (the node agent runs the binary for it), with the per-session NATS
// credentials the operator mints, on the fake WhatsApp server; its auth state is in NATS KV, so a
// replaced pod resumes the pairing.
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePhone, FakeWaServer } from '../../engine-pod/test/fake-wa/index.js';
import { buildGows } from '../../engine-pod/test/gows/driver.js';
import { rawQr, waitForStatus } from '../contract/harness.js';
import { type ClusterEnvironment, type GatewayProcess, fakeServersEnv, startClusterWithGateway } from './support/cluster-environment.js';

const CONTACT = '15551117777';
let fake: FakeWaServer;
let env: ClusterEnvironment;
let gw: GatewayProcess;
let phone: FakePhone;

beforeAll(async () => {
  const [server, binary] = await Promise.all([FakeWaServer.start({ signal: true }), buildGows()]);
  fake = server;
  ({ env, gw } = await startClusterWithGateway({
    namespace: 'switchboard-e2e-gows',
    engineEnv: { SWITCHBOARD_GOWS_BIN: binary, ...fakeServersEnv({ gows: fake }) },
  }));
}, 300_000);

afterAll(async () => {
  await env?.stop();
  await fake?.close();
});

describe('a GOWS session in cluster mode', () => {
  it('pairs by QR code through /api, reaches WORKING and sends a text the contact reads', async () => {
    expect((await gw.api('POST', '/api/sessions', { name: 'gopher', engine: 'GOWS' })).status).toBe(201);
    const qr = await rawQr(gw, 'gopher', 60_000);
    phone = await fake.scanQr(qr, { phone: '15550007777', pushName: 'Gopher' });
    await waitForStatus(gw, 'gopher', 'WORKING', 30_000);
    // The pod is the Go binary, not the Node engine pod: its log lines are the Go engine's.
    expect(env.podLogs('gopher')).toMatch(/"level":"info","msg":"session lease acquired"/);
    fake.contact(CONTACT, '245120000007777');
    const sent = await gw.api('POST', '/api/sendText', { session: 'gopher', chatId: `${CONTACT}@c.us`, text: 'hello from a GOWS pod' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect(await phone.read(String(sent.body.id).split('_')[2]!)).toMatchObject({ conversation: 'hello from a GOWS pod' });
  });

  it('receives: a message from the contact reaches the history the gateway serves, beside the one sent', async () => {
    const inbound = phone.text(CONTACT, 'hello back, gopher', { pushName: 'Contact' });
    const history = async () =>
      (await gw.api('GET', `/api/gopher/chats/${CONTACT}@c.us/messages?sortOrder=asc&limit=100`)).body as unknown as { id: string; body: string }[];
    await waitFor(
      async () => (await history()).some((m) => m.id === `false_${CONTACT}@c.us_${inbound}`),
      'the received message in the history',
      30_000,
    );
    expect((await history()).map((m) => m.body)).toEqual(['hello from a GOWS pod', 'hello back, gopher']);
  });

  it('a deleted engine pod is replaced and resumes from the auth state in NATS KV: WORKING again without a QR code', async () => {
    const [old] = await env.enginePods('gopher');
    await env.cp.kubectl(['delete', 'pod', old!.name, '-n', env.namespace, '--wait=false']);
    await waitFor(async () => (await env.enginePods('gopher')).some((pod) => pod.uid !== old!.uid && pod.ready), 'a new ready engine pod', 60_000);
    await waitForStatus(gw, 'gopher', 'WORKING', 30_000);
    expect((await gw.api('GET', '/api/sessions/gopher/me')).body).toMatchObject({ id: '15550007777@c.us' });
    // Only the first pod ever showed a QR code.
    expect(env.podLogs('gopher').match(/"msg":"session SCAN_QR_CODE"/g)).toHaveLength(1);
    const sent = await gw.api('POST', '/api/sendText', { session: 'gopher', chatId: `${CONTACT}@c.us`, text: 'from the replacement' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect(await phone.read(String(sent.body.id).split('_')[2]!)).toMatchObject({ conversation: 'from the replacement' });
  });
});
