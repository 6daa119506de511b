import { waitFor, WsClient } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type ContractGateway, waitForStatus } from './harness.js';

let gw: ContractGateway;
beforeAll(async () => {
  gw = await startGateway({ qrRenewMs: 150 });
});
afterAll(async () => {
  await gw.close();
});

async function scanning(name: string): Promise<void> {
  await gw.api('POST', '/api/sessions', { name });
  await waitFor(async () => (await gw.api('GET', `/api/sessions/${name}`)).body.status === 'SCAN_QR_CODE', 'SCAN_QR_CODE');
}

describe('4.1 pairing: QR code', () => {
  it('format=image gives a PNG', async () => {
    await scanning('qr1');
    const res = await fetch(`${gw.url}/api/qr1/auth/qr?format=image`, { headers: { 'x-api-key': 'test-admin-key-0123456789' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  });

  it('format defaults to image', async () => {
    const res = await fetch(`${gw.url}/api/qr1/auth/qr`, { headers: { 'x-api-key': 'test-admin-key-0123456789' } });
    expect(res.headers.get('content-type')).toBe('image/png');
  });

  it('format=image with Accept: application/json gives base64 {mimetype, data}', async () => {
    const res = await fetch(`${gw.url}/api/qr1/auth/qr?format=image`, {
      headers: { 'x-api-key': 'test-admin-key-0123456789', accept: 'application/json' },
    });
    const body = (await res.json()) as { mimetype: string; data: string };
    expect(body.mimetype).toBe('image/png');
    expect(Buffer.from(body.data, 'base64').subarray(1, 4).toString()).toBe('PNG');
  });

  it('format=raw gives the QR value as JSON', async () => {
    const res = await gw.api('GET', '/api/qr1/auth/qr?format=raw');
    expect(res.status).toBe(200);
    expect(res.body.value).toMatch(/^2@[^,]+,[^,]+,[^,]+,[^,]+$/);
  });

  it('rejects an unknown format with 400', async () => {
    const res = await gw.api('GET', '/api/qr1/auth/qr?format=svg');
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('querystring.format');
  });

  it('renews the QR and announces each renewal with a session.status event', async () => {
    const ws = await WsClient.connect(gw.url, 'x-api-key=test-admin-key-0123456789&session=qr1&events=session.status');
    const first = (await gw.api('GET', '/api/qr1/auth/qr?format=raw')).body.value;
    // Cluster mode renews at the engine pods' period (QR_RENEW_MS of the e2e environment), not 150 ms.
    await waitFor(() => ws.events('session.status').length >= 2, 'two renewals', 10_000);
    const second = (await gw.api('GET', '/api/qr1/auth/qr?format=raw')).body.value;
    expect(second).not.toBe(first);
    expect(ws.events('session.status').every((e) => e.payload.status === 'SCAN_QR_CODE')).toBe(true);
    ws.close();
  });

  it('answers 422 with session, status and expected when there is no QR to scan', async () => {
    await gw.api('POST', '/api/qr1/sandbox/simulate', { kind: 'scan' });
    const res = await gw.api('GET', '/api/qr1/auth/qr?format=raw');
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual({ session: 'qr1', status: 'WORKING', expected: ['SCAN_QR_CODE'] });
  });

  it('answers 422 for a stopped session and 404 for an unknown one', async () => {
    await gw.api('POST', '/api/sessions', { name: 'qr-stopped', start: false });
    expect((await gw.api('GET', '/api/qr-stopped/auth/qr?format=raw')).status).toBe(422);
    expect((await gw.api('GET', '/api/ghost/auth/qr?format=raw')).status).toBe(404);
  });
});

describe('4.1 pairing: phone code', () => {
  it('request-code returns a code; the simulated phone then pairs as that number', async () => {
    await scanning('code1');
    const res = await gw.api('POST', '/api/code1/auth/request-code', { phoneNumber: '+12132132130' });
    expect(res.status).toBe(201);
    expect(res.body.code).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    await gw.api('POST', '/api/code1/sandbox/simulate', { kind: 'scan' });
    await waitForStatus(gw, 'code1', 'WORKING');
    expect((await gw.api('GET', '/api/sessions/code1/me')).body.id).toBe('12132132130@c.us');
  });

  it('validates the phone number and method', async () => {
    await scanning('code2');
    const bad = await gw.api('POST', '/api/code2/auth/request-code', { phoneNumber: 'call me', method: 'pigeon' });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['body.method', 'body.phoneNumber']);
  });
});

describe('SANDBOX simulate: scan', () => {
  it('pairs with the given account', async () => {
    await scanning('scan1');
    const me = { id: '4915112345678@c.us', pushName: 'Ada' };
    const res = await gw.api('POST', '/api/scan1/sandbox/simulate', { kind: 'scan', me });
    expect(res.status).toBe(201);
    await waitForStatus(gw, 'scan1', 'WORKING');
    const info = await gw.api('GET', '/api/sessions/scan1');
    expect(info.body).toMatchObject({ status: 'WORKING', me });
  });

  it('rejects an unknown kind with 400 naming kind', async () => {
    const res = await gw.api('POST', '/api/scan1/sandbox/simulate', { kind: 'teleport' });
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('body.kind');
  });
});
