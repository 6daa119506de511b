import { closedPort } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContractGateway, mode, startGateway, waitForStatus } from './harness.js';

/**
 * Issue 12 item 9: a FAILED session says why in the session info, not only in its session.status
 * event. NOWEB against a loopback port nothing listens on fails after one attempt, and WEBJS's
 * chromium behind a proxy nothing listens on cannot load its page: local mode reads that from the
 * environment here, cluster mode's engine pods get it from the test environment.
 */
let gw: ContractGateway;
beforeAll(async () => {
  if (mode === 'local') {
    process.env.SWITCHBOARD_NOWEB_WS_URL = `ws://127.0.0.1:${String((await closedPort()).port)}/ws/chat`;
    process.env.SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS = '1';
    // A proxy nothing listens on keeps WEBJS's chromium off WhatsApp Web; cluster mode's engine pods get the same.
    process.env.SWITCHBOARD_CHROMIUM_EXTRA_FLAGS = `--proxy-server=127.0.0.1:${String((await closedPort()).port)}`;
  }
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
  delete process.env.SWITCHBOARD_NOWEB_WS_URL;
  delete process.env.SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS;
  delete process.env.SWITCHBOARD_CHROMIUM_EXTRA_FLAGS;
});

const REASON = /^could not connect to ws:\/\/127\.0\.0\.1:\d+\/ws\/chat in 1 attempts in a row/;

describe('a FAILED session says why in its session info (issue 12, item 9)', () => {
  it('GET /api/sessions/{session} and GET /api/sessions carry the reason while FAILED, and drop it after', async () => {
    expect((await gw.api('POST', '/api/sessions', { name: 'unreachable', engine: 'NOWEB' })).status).toBe(201);
    await waitForStatus(gw, 'unreachable', 'FAILED', 30_000);

    const one = await gw.api('GET', '/api/sessions/unreachable');
    expect(one.status).toBe(200);
    expect(one.body.reason).toMatch(REASON);
    const list = await gw.api('GET', '/api/sessions?all=true');
    expect(list.status).toBe(200);
    const listed = (list.body as { name: string; reason?: string }[]).find((s) => s.name === 'unreachable');
    expect(listed?.reason).toMatch(REASON);

    expect((await gw.api('POST', '/api/sessions/unreachable/stop')).status).toBe(201);
    await waitForStatus(gw, 'unreachable', 'STOPPED', 30_000);
    const stopped = await gw.api('GET', '/api/sessions/unreachable');
    expect(stopped.body).not.toHaveProperty('reason');
  });

  it("a WEBJS session whose page cannot load is FAILED with the browser's error, not a generic one", async () => {
    expect((await gw.api('POST', '/api/sessions', { name: 'webjs-offline', engine: 'WEBJS' })).status).toBe(201);
    await waitForStatus(gw, 'webjs-offline', 'FAILED', 60_000);

    const one = await gw.api('GET', '/api/sessions/webjs-offline');
    expect(one.status).toBe(200);
    expect(one.body.reason).toBe('the web client could not start: net::ERR_PROXY_CONNECTION_FAILED at https://web.whatsapp.com/');
  });
});
