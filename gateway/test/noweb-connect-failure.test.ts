import { closedPort, waitFor, WsClient } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startGateway, type TestGateway } from './support/gateway.js';

/**
 * Issue 12 item 9 through the API: a NOWEB session whose server refuses every connection is
 * FAILED after SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS tries, says why in session.status, and
 * POST .../start and .../restart try again.
 */
let gw: TestGateway;
let ws: WsClient;

beforeAll(async () => {
  // The gateway's engine catalog reads these when the gateway is built; nothing listens on the port.
  process.env.SWITCHBOARD_NOWEB_WS_URL = `ws://127.0.0.1:${String((await closedPort()).port)}/ws/chat`;
  process.env.SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS = '2';
  gw = await startGateway();
  ws = await WsClient.connect(gw.url, `x-api-key=${ADMIN_KEY}&session=refused&events=session.status`);
});

afterAll(async () => {
  ws?.close();
  await gw?.close();
  delete process.env.SWITCHBOARD_NOWEB_WS_URL;
  delete process.env.SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS;
});

const status = async () => (await gw.api('GET', '/api/sessions/refused')).body.status as string;
const failures = () => ws.events('session.status').filter((e) => e.payload.status === 'FAILED');

describe('NOWEB session whose server refuses the connection', () => {
  it('is FAILED after the configured attempts, with the reason in session.status', async () => {
    const created = await gw.api('POST', '/api/sessions', { name: 'refused', engine: 'NOWEB' });
    expect(created.status).toBe(201);
    await waitFor(async () => (await status()) === 'FAILED', 'FAILED', 15_000);
    const [failed] = await waitFor(() => (failures().length ? failures() : undefined), 'session.status FAILED on /ws');
    expect(failed!.payload.reason).toMatch(/^could not connect to ws:\/\/127\.0\.0\.1:\d+\/ws\/chat in 2 attempts in a row/);
    expect(failed!.payload.statuses.map((p: { status: string }) => p.status)).toEqual(['STARTING', 'FAILED']);
  });

  it('tries again on POST .../start and on .../restart, and fails again the same way', async () => {
    for (const action of ['start', 'restart']) {
      const before = failures().length;
      const res = await gw.api('POST', `/api/sessions/refused/${action}`);
      expect(res.status).toBe(201);
      expect(res.body.status).toBe('STARTING');
      await waitFor(() => failures().length > before, `FAILED again after ${action}`, 15_000);
    }
  });
});
