import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileAuthStateStore } from '../../src/index.js';
import { FakeWaServer } from '../fake-wa/index.js';
import { buildGows, GowsDriver } from './driver.js';

let fake: FakeWaServer;
let binary: string;
const drivers: GowsDriver[] = [];

beforeAll(async () => {
  [fake, binary] = await Promise.all([FakeWaServer.start({ signal: true }), buildGows()]);
}, 180_000);

afterAll(async () => {
  for (const driver of drivers) driver.kill();
  await fake?.close();
});

/** What the session's auth-state folder holds (clearing removes the folder). */
const authFiles = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

function startGows(authDir: string): GowsDriver {
  const driver = new GowsDriver(
    binary,
    { SWITCHBOARD_SESSION: 'gows', SWITCHBOARD_GOWS_WS_URL: fake.url, SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY: fake.certRootPublicKey },
    new FileAuthStateStore(authDir),
  );
  drivers.push(driver);
  return driver;
}

describe('GOWS engine (switchboard-gows) against the fake WhatsApp server', () => {
  it('pairs by QR, reaches WORKING, receives and sends, and resumes after a restart without a new QR', async () => {
    const authDir = mkdtempSync(join(tmpdir(), 'sb-gows-'));
    const gows = startGows(authDir);
    await gows.request('start', { session: 'gows', settings: {} });
    await gows.status('SCAN_QR_CODE');
    const qr = await gows.request<string>('qr');
    const phone = await fake.scanQr(qr, { phone: '15550001111', pushName: 'Ada' });
    await gows.status('WORKING');
    const me = await gows.waitFor((n) => n.method === 'me' && (n.params.me as { pushName?: string } | null)?.pushName === 'Ada');
    expect(me.params.me).toEqual({ id: '15550001111@c.us', pushName: 'Ada' });

    fake.contact('15551230001', '245120000000001');
    const inboundId = phone.text('15551230001', 'hello from Bob', { pushName: 'Bob' });
    const inbound = await gows.event('message', (p) => p.body === 'hello from Bob');
    expect(inbound).toMatchObject({
      id: `false_15551230001@c.us_${inboundId}`,
      from: '15551230001@c.us',
      to: '15550001111@c.us',
      fromMe: false,
      source: 'app',
      participant: null,
      hasMedia: false,
      media: null,
      ack: 2,
      ackName: 'DEVICE',
      replyTo: null,
      _data: { key: { remoteJid: '15551230001@s.whatsapp.net', remoteJidAlt: '245120000000001@lid', fromMe: false, id: inboundId }, pushName: 'Bob' },
    });
    await gows.event('message.any', (p) => p.id === inbound.id);
    const second = phone.text('15551230001', 'second from Bob');
    await gows.event('message', (p) => p.id === `false_15551230001@c.us_${second}`);

    const since = gows.notifications.length;
    const sent = await gows.request<Record<string, unknown>>('sendText', { chatId: '15551230001@c.us', text: 'hi Bob' });
    expect(sent).toMatchObject({
      from: '15550001111@c.us',
      to: '15551230001@c.us',
      fromMe: true,
      source: 'api',
      body: 'hi Bob',
      ack: 0,
      ackName: 'PENDING',
    });
    await gows.event('message.ack', (p) => p.id === sent.id && p.ackName === 'SERVER', since);
    const messageId = String(sent.id).split('_')[2]!;
    expect(await phone.read(messageId)).toMatchObject({ conversation: 'hi Bob' });

    // A new process on the same auth state logs in without a QR code.
    expect(await gows.close()).toBe(0);
    const again = startGows(authDir);
    await again.request('start', { session: 'gows', settings: {} });
    await again.status('WORKING');
    expect(again.notifications.some((n) => n.method === 'status' && n.params.status === 'SCAN_QR_CODE')).toBe(false);
    const third = phone.text('15551230001', 'after the restart');
    await again.event('message', (p) => p.id === `false_15551230001@c.us_${third}`);
    expect(gows.log.some((line) => line.level === 'warn' && String(line.msg).includes('SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY'))).toBe(true);
  });

  it('pairs by phone code: the code the engine gets is the one typed on the phone, then WORKING', async () => {
    const gows = startGows(mkdtempSync(join(tmpdir(), 'sb-gows-')));
    await gows.request('start', { session: 'gows', settings: {} });
    await gows.status('SCAN_QR_CODE');
    const { code } = await gows.request<{ code: string }>('requestCode', { phoneNumber: '15550004444' });
    expect(code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    await fake.enterPairingCode('15550004444', code);
    await gows.status('WORKING');
    const me = await gows.waitFor((n) => n.method === 'me' && (n.params.me as { id?: string } | null)?.id === '15550004444@c.us');
    expect(me.params.me).toMatchObject({ id: '15550004444@c.us' });
  });

  it('refuses a code by sms or voice (NOT_SUPPORTED) and a QR outside SCAN_QR_CODE (WRONG_STATUS)', async () => {
    const gows = startGows(mkdtempSync(join(tmpdir(), 'sb-gows-')));
    await expect(gows.request('qr')).rejects.toMatchObject({ code: 'WRONG_STATUS' });
    await expect(gows.request('requestCode', { phoneNumber: '15550005555', method: 'sms' })).rejects.toMatchObject({ code: 'NOT_SUPPORTED' });
    await expect(gows.request('noSuchMethod')).rejects.toThrow(/method not found/);
  });

  it('logout unlinks the device on the server and purges the auth state: the next start shows a QR code', async () => {
    const authDir = mkdtempSync(join(tmpdir(), 'sb-gows-'));
    const gows = startGows(authDir);
    await gows.request('start', { session: 'gows', settings: {} });
    await gows.status('SCAN_QR_CODE');
    const phone = await fake.scanQr(await gows.request<string>('qr'), { phone: '15550006666' });
    await gows.status('WORKING');
    expect(authFiles(authDir).length).toBeGreaterThan(0);
    await gows.request('logout');
    expect(authFiles(authDir)).toEqual([]);
    expect(gows.notifications.at(-1)).toEqual({ method: 'me', params: { me: null } });
    await waitFor(() => phone.companion === null, 'the companion removed on the server', 10_000);
    expect(await gows.close()).toBe(0);

    const again = startGows(authDir);
    await again.request('start', { session: 'gows', settings: {} });
    await again.status('SCAN_QR_CODE');
    await again.close();
  });

  it('a device the phone unlinks is FAILED, forgets the account and its auth state', async () => {
    const authDir = mkdtempSync(join(tmpdir(), 'sb-gows-'));
    const gows = startGows(authDir);
    await gows.request('start', { session: 'gows', settings: {} });
    await gows.status('SCAN_QR_CODE');
    const phone = await fake.scanQr(await gows.request<string>('qr'), { phone: '15550007777' });
    await gows.status('WORKING');
    const since = gows.notifications.length;
    phone.removeCompanion();
    const failed = await gows.status('FAILED', since);
    expect(String(failed.params.reason)).toMatch(/logged out/);
    await gows.waitFor((n) => n.method === 'me' && n.params.me === null, since);
    await waitFor(() => authFiles(authDir).length === 0, 'the auth state purged', 10_000);
    await gows.close();
  });
});
