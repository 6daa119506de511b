import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type FakePhone, FakeWaServer } from '../../engine-pod/test/fake-wa/index.js';
import { buildGows } from '../../engine-pod/test/gows/driver.js';
import { type ContractGateway, mode, restarted, startGateway, waitForStatus } from './harness.js';

/**
 * A GOWS session through the REST surface, against the fake WhatsApp server, which a phone of the
 * test pairs by QR code. Local mode, as `make run` serves it: the gateway runs the Go engine
 * (switchboard-gows) as the session's child process. Cluster mode: the engine pod is the Go
 * engine's own (`switchboard-gows nats`), whose environment the suite's setup fixed before this
 * file runs, so the fake starts on the port and with the certificate root the setup gave them
 * (test/e2e/support/contract-cluster-setup.ts).
 */
const CONTACT = '15551113333';
let fake: FakeWaServer;
let gw: ContractGateway;
let phone: FakePhone;

describe(`a GOWS session over the REST surface (${mode} mode)`, () => {
  beforeAll(async () => {
    const cluster = mode === 'cluster' ? inject('gowsFake') : undefined;
    const [server, binary] = await Promise.all([FakeWaServer.start({ signal: true, port: cluster?.port, certRoot: cluster?.certRoot }), buildGows()]);
    fake = server;
    process.env.SWITCHBOARD_GOWS_BIN = binary;
    process.env.SWITCHBOARD_GOWS_WS_URL = fake.url;
    process.env.SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY = fake.certRootPublicKey;
    gw = await startGateway();
  }, 180_000);
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
    delete process.env.SWITCHBOARD_GOWS_BIN;
    delete process.env.SWITCHBOARD_GOWS_WS_URL;
    delete process.env.SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY;
  });

  it('pairs by QR code: SCAN_QR_CODE with a raw QR value, then WORKING with me', async () => {
    expect((await gw.api('POST', '/api/sessions', { name: 'gows', engine: 'GOWS' })).status).toBe(201);
    await waitForStatus(gw, 'gows', 'SCAN_QR_CODE');
    const qr = await gw.api('GET', '/api/gows/auth/qr?format=raw');
    expect(qr.status).toBe(200);
    phone = await fake.scanQr(qr.body.value as string, { phone: '15550004444', pushName: 'Grace' });
    await waitForStatus(gw, 'gows', 'WORKING');
    const me = await gw.api('GET', '/api/sessions/gows/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: '15550004444@c.us' });
    expect((await gw.api('GET', '/api/sessions/gows')).body).toMatchObject({ name: 'gows', engine: 'GOWS', status: 'WORKING' });
  });

  it("sends text: 201 with the message record, which the contact's phone reads", async () => {
    fake.contact(CONTACT, '245120000004444');
    const res = await gw.api('POST', '/api/sendText', { session: 'gows', chatId: `${CONTACT}@c.us`, text: 'hello from GOWS' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ fromMe: true, to: `${CONTACT}@c.us`, body: 'hello from GOWS', source: 'api' });
    expect(await phone.read(String(res.body.id).split('_')[2]!)).toMatchObject({ conversation: 'hello from GOWS' });
  });

  it('what the Go engine does not do answers 422 NOT_SUPPORTED from the catalog, in WORKING too', async () => {
    // whatsmeow has no passkey pairing.
    const res = await gw.api('GET', '/api/gows/auth/passkey/challenge');
    expect(res.status).toBe(422);
    expect(res.body.message).toBe("engine GOWS does not support passkey pairing (session 'gows')");
  });

  it('a restart resumes the pairing from the saved auth state: WORKING again, no QR code', async () => {
    await restarted(gw, 'gows');
    // Cluster mode: the session record follows the new pod's events a moment later.
    await waitForStatus(gw, 'gows', 'WORKING');
    expect((await gw.api('GET', '/api/sessions/gows')).body).toMatchObject({ status: 'WORKING' });
    expect((await gw.api('GET', '/api/gows/auth/qr?format=raw')).status).toBe(422);
  });
});
