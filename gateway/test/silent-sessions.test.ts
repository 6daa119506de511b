import { sample, waitFor, WebhookReceiver, WsClient } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePhone, FakeWaServer } from '../../engine-pod/test/fake-wa/index.js';
import { buildGows } from '../../engine-pod/test/gows/driver.js';
import { silencedAndReconnected } from '../../test/contract/silent-connection.js';
import { ADMIN_KEY, startGateway, type TestGateway } from './support/gateway.js';

/**
 * Issue 31 §3 in local mode: a WORKING session whose connection goes silent (the fake server keeps
 * the socket open and answers nothing, pings included) is noticed by its engine, reported as
 * STARTING with a `silent:` reason, and reconnected to WORKING with its pairing (no new QR); a
 * message after it arrives. The gateway's per-session metrics count it. The timeout is small here
 * (SWITCHBOARD_SILENCE_TIMEOUT_MS); the tests wait on events, not on time.
 */
const TIMEOUT_MS = 2_000;
const ALICE = '15551230001';

let noweb: FakeWaServer;
let gows: FakeWaServer;
let receiver: WebhookReceiver;
let gw: TestGateway;

beforeAll(async () => {
  const [nowebFake, gowsFake, binary, hooks] = await Promise.all([
    FakeWaServer.start(),
    FakeWaServer.start({ signal: true }),
    buildGows(),
    new WebhookReceiver().start(),
  ]);
  noweb = nowebFake;
  gows = gowsFake;
  receiver = hooks;
  // The gateway's engine catalog reads these when it is built.
  Object.assign(process.env, {
    SWITCHBOARD_SILENCE_TIMEOUT_MS: String(TIMEOUT_MS),
    SWITCHBOARD_NOWEB_WS_URL: noweb.url,
    SWITCHBOARD_GOWS_BIN: binary,
    SWITCHBOARD_GOWS_WS_URL: gows.url,
    SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY: gows.certRootPublicKey,
  });
  gw = await startGateway();
}, 180_000);

afterAll(async () => {
  await gw?.close();
  for (const variable of [
    'SWITCHBOARD_SILENCE_TIMEOUT_MS',
    'SWITCHBOARD_NOWEB_WS_URL',
    'SWITCHBOARD_GOWS_BIN',
    'SWITCHBOARD_GOWS_WS_URL',
    'SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY',
  ]) {
    delete process.env[variable];
  }
  await receiver?.stop();
  await noweb?.close();
  await gows?.close();
});

const statuses = (session: string, status: string) => receiver.sessionEvents(session, 'session.status', (p) => p.status === status);
const scrape = async () => (await fetch(`${gw.url}/metrics`, { headers: { 'x-api-key': ADMIN_KEY } })).text();

describe.each([
  { engine: 'NOWEB' as const, fake: () => noweb },
  { engine: 'GOWS' as const, fake: () => gows },
])('$engine: a connection gone silent', ({ engine, fake }) => {
  const session = `${engine.toLowerCase()}-silent`;
  let phone: FakePhone;

  it('pairs and works', async () => {
    const created = await gw.api('POST', '/api/sessions', { name: session, engine, config: { webhooks: [{ url: receiver.url, events: ['*'] }] } });
    expect(created.status).toBe(201);
    await waitFor(() => statuses(session, 'SCAN_QR_CODE')[0], `${session} SCAN_QR_CODE`, 30_000);
    const qr = await gw.api('GET', `/api/${session}/auth/qr?format=raw`);
    expect(qr.status).toBe(200);
    phone = await fake().scanQr(qr.body.value as string, { pushName: 'Ada' });
    await waitFor(() => statuses(session, 'WORKING')[0], `${session} WORKING`, 30_000);
  });

  it('is reported STARTING (silent), reconnected WORKING without a new QR, and receives a message after it', async () => {
    const ws = await WsClient.connect(gw.url, `x-api-key=${ADMIN_KEY}&session=${session}&events=*`);
    await silencedAndReconnected(receiver, session, phone, { timeoutMs: TIMEOUT_MS, waitMs: 30_000 });
    expect((await gw.api('GET', `/api/sessions/${session}`)).body.status).toBe('WORKING');

    phone.text(ALICE, `after the silence (${engine})`, { pushName: 'Alice' });
    const message = await waitFor(
      () => receiver.sessionEvents(session, 'message', (p) => p.body === `after the silence (${engine})`)[0],
      'the message on the webhook',
      30_000,
    );
    await waitFor(() => ws.events('message').length > 0, 'the message on /ws');
    ws.close();

    // The gateway's per-session metrics saw the silence, the reconnect, and the deliveries.
    const text = await waitFor(async () => {
      const scraped = await scrape();
      return (
        sample(scraped, 'switchboard_event_lag_seconds_count', { session, channel: 'webhook' }) >=
          receiver.received.filter((hook) => hook.body.session === session).length && scraped
      );
    }, 'the deliveries counted');
    const of = (name: string, labels: Record<string, string> = {}) => sample(text, name, { session, ...labels });
    expect(of('switchboard_session_silences_total')).toBe(1);
    expect(of('switchboard_session_reconnects_total')).toBe(1);
    expect(of('switchboard_session_status', { status: 'WORKING' })).toBe(1);
    expect(of('switchboard_session_status', { status: 'STARTING' })).toBe(0);
    expect(of('switchboard_session_last_event_timestamp_seconds')).toBeGreaterThanOrEqual(message.timestamp / 1000);
    expect(of('switchboard_event_lag_seconds_count', { channel: 'ws' })).toBeGreaterThanOrEqual(1);
  });
});
