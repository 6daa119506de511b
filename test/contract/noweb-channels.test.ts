import { afterAll, beforeAll, describe, expect, inject } from 'vitest';
import { FakeWaServer } from '../../engine-pod/test/fake-wa/index.js';
import { channelCasesOnEngine } from './channel-cases.js';
import { type ContractGateway, mode, startGateway, waitForStatus } from './harness.js';

/**
 * Channels (newsletters) on a NOWEB session over the REST surface (issue 16), against the fake
 * WhatsApp server's channels (engine-pod/test/fake-wa/newsletters.ts), which a phone of the test
 * pairs by QR code; channels.test.ts covers the same routes on SANDBOX, and its directory search,
 * which NOWEB refuses. Cluster mode: NOWEB engine pods dial the port the suite's setup fixed
 * (test/e2e/support/contract-cluster-setup.ts), where this file starts its fake.
 */
const S = 'noweb-channels';
let fake: FakeWaServer;
let gw: ContractGateway;

describe(`channels on a NOWEB session over the REST surface (${mode} mode)`, () => {
  beforeAll(async () => {
    const port = mode === 'cluster' ? inject('nowebFake').port : undefined;
    fake = await FakeWaServer.start({ port });
    if (mode === 'local') process.env.SWITCHBOARD_NOWEB_WS_URL = fake.url;
    gw = await startGateway();
    expect((await gw.api('POST', '/api/sessions', { name: S, engine: 'NOWEB' })).status).toBe(201);
    await waitForStatus(gw, S, 'SCAN_QR_CODE', 30_000);
    const qr = await gw.api('GET', `/api/${S}/auth/qr?format=raw`);
    await fake.scanQr(qr.body.value as string, { phone: '15550006666', pushName: 'Nora' });
    await waitForStatus(gw, S, 'WORKING', 30_000);
  }, 180_000);
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
    delete process.env.SWITCHBOARD_NOWEB_WS_URL;
  });

  channelCasesOnEngine('NOWEB', () => ({ gw, fake, session: S, phone: '15550006666' }));
});
