import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FakeWaServer } from '../../engine-pod/test/fake-wa/index.js';
import { channelCasesOnEngine } from './channel-cases.js';
import { FakeMediaServer } from '../../engine-pod/test/fake-wa/media-server.js';
import { buildGows } from '../../engine-pod/test/gows/driver.js';
import { ADMIN_KEY, type ContractGateway, mode, startGateway, waitForStatus } from './harness.js';

/**
 * Channels (newsletters) on a GOWS session over the REST surface (issue 16), as noweb-channels.test.ts
 * does them on NOWEB, against the fake WhatsApp server's channels (engine-pod/test/fake-wa/newsletters.ts).
 * Local mode: the gateway runs the Go engine as a child process; cluster mode: its own engine pod
 * (`switchboard-gows nats`), with the fake on the port and certificate root the suite's setup fixed
 * (test/e2e/support/contract-cluster-setup.ts). The directory search has no query in whatsmeow: 422.
 */
const S = 'gows-channels';
let fake: FakeWaServer;
let gw: ContractGateway;
/** Local mode only: the fake media host (the engine child trusts its certificate); cluster pods have none. */
let media: FakeMediaServer | undefined;

describe(`channels on a GOWS session over the REST surface (${mode} mode)`, () => {
  beforeAll(async () => {
    const cluster = mode === 'cluster' ? inject('gowsFake') : undefined;
    const [server, binary] = await Promise.all([FakeWaServer.start({ signal: true, port: cluster?.port, certRoot: cluster?.certRoot }), buildGows()]);
    fake = server;
    process.env.SWITCHBOARD_GOWS_BIN = binary;
    process.env.SWITCHBOARD_GOWS_WS_URL = fake.url;
    process.env.SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY = fake.certRootPublicKey;
    if (mode === 'local') {
      media = await FakeMediaServer.start();
      fake.serveMedia(media);
      const ca = join(mkdtempSync(join(tmpdir(), 'sb-gows-channels-')), 'media-ca.pem');
      writeFileSync(ca, media.certificate);
      process.env.SWITCHBOARD_GOWS_MEDIA_CA = ca;
    }
    gw = await startGateway();
    expect((await gw.api('POST', '/api/sessions', { name: S, engine: 'GOWS' })).status).toBe(201);
    await waitForStatus(gw, S, 'SCAN_QR_CODE', 30_000);
    const qr = await gw.api('GET', `/api/${S}/auth/qr?format=raw`);
    await fake.scanQr(qr.body.value as string, { phone: '15550007777', pushName: 'Ida' });
    await waitForStatus(gw, S, 'WORKING', 30_000);
  }, 180_000);
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
    await media?.close();
    delete process.env.SWITCHBOARD_GOWS_MEDIA_CA;
    delete process.env.SWITCHBOARD_GOWS_BIN;
    delete process.env.SWITCHBOARD_GOWS_WS_URL;
    delete process.env.SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY;
  });

  channelCasesOnEngine('GOWS', () => ({ gw, fake, session: S, phone: '15550007777' }));

  it.runIf(mode === 'local')(
    "preview with downloadMedia=true: a post's image is kept and downloads from the gateway with the same bytes",
    async () => {
      const other = fake.newsletters.add({ name: 'Harbour Files' });
      const bytes = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(20_000)]);
      fake.newsletters.post(other.id, { imageMessage: { ...media!.servePlain(bytes), mimetype: 'image/png', caption: 'Dawn' } });
      const res = await gw.api('GET', `/api/${S}/channels/${other.id}/messages/preview?downloadMedia=true`);
      expect(res.body).toMatchObject([{ message: { body: 'Dawn', hasMedia: true, media: { mimetype: 'image/png', filename: null } } }]);
      const file = await fetch(gw.url + new URL(res.body[0].message.media.url as string).pathname, { headers: { 'x-api-key': ADMIN_KEY } });
      expect(file.status).toBe(200);
      expect(Buffer.from(await file.arrayBuffer()).equals(bytes)).toBe(true);
    },
  );
});
