import { readdir } from 'node:fs/promises';
import { waitFor } from '@switchboard/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CommandError } from '../../src/index.js';
import { FakeWaServer } from '../fake-wa/index.js';
import { NowebSession, type NowebSessionOptions } from './harness.js';

let fake: FakeWaServer;
const sessions: NowebSession[] = [];
const session = (options: NowebSessionOptions = {}) => {
  const made = new NowebSession(fake, options);
  sessions.push(made);
  return made;
};

beforeAll(async () => {
  fake = await FakeWaServer.start();
});
afterEach(async () => {
  const done = sessions.splice(0);
  for (const s of done) await s.host.stop();
  for (const s of done) {
    expect(s.invalid).toEqual([]);
    await s.close();
  }
});
afterAll(async () => {
  expect(fake.unknown).toEqual([]);
  await fake.close();
});

const statuses = (s: NowebSession) => s.payloads<{ status: string }>('session.status').map((p) => p.status);

describe('NOWEB pairing (spec part 3, 4.1)', () => {
  it('shows a QR code, and after the phone scans it restarts (515) and becomes WORKING with me', async () => {
    const s = session();
    await s.host.start();
    const qr = await s.qr();
    expect(qr).toMatch(/^https:\/\/wa\.me\/settings\/linked_devices#/);
    const phone = await fake.scanQr(qr, { pushName: 'Ada Lovelace' });
    await s.waitForStatus('WORKING');
    expect(statuses(s)).toEqual(['STARTING', 'SCAN_QR_CODE', 'WORKING']);
    const me = await s.host.execute({ op: 'me' });
    expect(me).toMatchObject({ id: phone.contactId });
    await s.waitForEvent('engine.event', () => s.host.me?.pushName === 'Ada Lovelace');
    expect(s.host.me).toEqual({ id: phone.contactId, pushName: 'Ada Lovelace' });
    const working = s.envelopes('session.status').at(-1)!;
    expect(working.me?.id).toBe(phone.contactId);
  });

  it('pairs through a fake server listening on the address it is given (a real node reaches the host at its bridge address)', async () => {
    // Another loopback address stands in for the bridge one: tests dial nothing else.
    const other = await FakeWaServer.start({ host: '127.0.0.2' });
    try {
      expect(other.url).toMatch(/^ws:\/\/127\.0\.0\.2:\d+\/ws\/chat$/);
      const s = new NowebSession(other);
      try {
        await s.pair();
        expect(s.host.status).toBe('WORKING');
      } finally {
        await s.host.stop();
        await s.close();
      }
    } finally {
      await other.close();
    }
  });

  it('starts again without a QR code from the same auth store, and gets what arrived meanwhile', async () => {
    const first = session();
    const phone = await first.pair({ pushName: 'Grace' });
    await first.host.stop();
    const id = phone.text('15557770009', 'while you were away');
    const again = session({ authDir: first.authDir });
    await again.host.start();
    await again.waitForStatus('WORKING');
    const message = await again.waitForEvent('message', (p) => p.body === 'while you were away');
    expect(message.payload.id).toBe(`false_15557770009@c.us_${id}`);
    expect(statuses(again)).toEqual(['STARTING', 'WORKING']);
    expect(again.host.me).toEqual({ id: phone.contactId, pushName: 'Grace' });
    expect(again.envelopes('session.status').at(-1)!.me).toEqual({ id: phone.contactId, pushName: 'Grace' });
  });

  it('announces every new QR code with SCAN_QR_CODE, also after the codes of one connection ran out', async () => {
    const s = session({ engine: { qrTimeoutMs: 40 } });
    await s.host.start();
    const seen = new Set<string>();
    await waitFor(
      async () => {
        seen.add(await s.qr());
        return seen.size >= 8;
      },
      'eight QR codes',
      15_000,
    );
    expect(statuses(s).filter((status) => status === 'SCAN_QR_CODE').length).toBeGreaterThanOrEqual(8);
    expect(statuses(s)).not.toContain('WORKING');
  });

  it('keeps its auth state as Baileys lays it out: creds under creds/creds, each key by type and id, BufferJSON', async () => {
    const s = session();
    const phone = await s.pair();
    const { creds } = await s.store.get<Record<string, unknown>>('creds', ['creds']);
    expect(creds).toMatchObject({
      me: { id: `${phone.phone}:${phone.companion!.device}@s.whatsapp.net`, lid: `${phone.lid}:${phone.companion!.device}@lid` },
      noiseKey: { private: { type: 'Buffer', data: expect.any(String) }, public: { type: 'Buffer', data: expect.any(String) } },
      advSecretKey: expect.any(String),
      registered: false,
    });
    const { 1: preKey } = await s.store.get<Record<string, unknown>>('pre-key', ['1']);
    expect(preKey).toEqual({ private: { type: 'Buffer', data: expect.any(String) }, public: { type: 'Buffer', data: expect.any(String) } });
    expect(phone.preKeysOnServer).toBe(812);
  });

  it('pairs by phone code: requestCode answers ABCD-EFGH, the phone enters it', async () => {
    const s = session();
    await s.host.start();
    await s.waitForStatus('SCAN_QR_CODE');
    const number = '15557770001';
    const { code } = (await s.host.execute({ op: 'auth.requestCode', args: { phoneNumber: number } })) as { code: string };
    expect(code).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    await fake.enterPairingCode(number, code);
    await s.waitForStatus('WORKING');
    expect(s.host.me?.id).toBe(`${number}@c.us`);
  });

  it('answers 422 NOT_SUPPORTED naming NOWEB for registration by SMS or voice', async () => {
    const s = session();
    await s.host.start();
    await s.waitForStatus('SCAN_QR_CODE');
    const error = await s.host.execute({ op: 'auth.requestCode', args: { phoneNumber: '15557770002', method: 'sms' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommandError);
    expect((error as CommandError).code).toBe('NOT_SUPPORTED');
    expect((error as CommandError).message).toContain('NOWEB');
  });

  it('answers 422 NOT_SUPPORTED naming NOWEB for the SANDBOX simulator', async () => {
    const s = session();
    await s.host.start();
    const error = await s.host.execute({ op: 'sandbox.simulate', args: { kind: 'scan' } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'NOT_SUPPORTED', message: expect.stringContaining('NOWEB') });
  });

  it('logout unlinks the device and clears the auth store; the next start shows a QR code', async () => {
    const s = session();
    const phone = await s.pair();
    expect((await readdir(s.authDir)).length).toBeGreaterThan(1);
    await s.host.logout();
    await expect(readdir(s.authDir)).rejects.toThrow();
    expect(phone.companion).toBeNull();
    expect(s.host.me).toBeNull();
    await s.host.stop();
    await s.host.start();
    expect(await s.qr()).toMatch(/^https:/);
  });

  it('reconnects by itself after the network drops: STARTING, then WORKING again', async () => {
    const s = session();
    const phone = await s.pair();
    const before = s.events.length;
    phone.dropConnection();
    await s.waitForEvent('session.status', (p) => p.status === 'STARTING', before);
    await s.waitForEvent('session.status', (p) => p.status === 'WORKING', before);
    expect(phone.isConnected).toBe(true);
  });

  it('reconnects a connection that was WORKING even when a single failed connection attempt is allowed: the lost one was no failed attempt', async () => {
    const s = session({ engine: { connectAttempts: 1 } });
    const phone = await s.pair();
    const before = s.events.length;
    phone.dropConnection();
    await s.waitForEvent('session.status', (p) => p.status === 'STARTING', before);
    await s.waitForEvent('session.status', (p) => p.status === 'WORKING', before);
    expect(s.events.slice(before).filter(({ envelope }) => envelope.event === 'session.status' && envelope.payload.status === 'FAILED')).toEqual([]);
  });

  it('the fake server silenced then resumed answers on the same connection: what it held back comes at the next login', async () => {
    // The default silence timeout (60 s) is far beyond this test: the engine keeps the connection.
    const s = session();
    const phone = await s.pair();
    const connection = phone.connection;
    phone.silence();
    phone.text('15551230001', 'held back while silent', { pushName: 'Alice' });
    phone.resume();
    phone.text('15551230001', 'after the resume', { pushName: 'Alice' });
    await s.waitForEvent('message', (p) => p.body === 'after the resume');
    expect(phone.connection).toBe(connection);
    expect(s.events.some(({ envelope }) => envelope.event === 'message' && envelope.payload.body === 'held back while silent')).toBe(false);
    phone.dropConnection();
    await s.waitForEvent('message', (p) => p.body === 'held back while silent');
  });

  it('becomes FAILED and forgets its credentials when the phone unlinks it', async () => {
    const s = session();
    const phone = await s.pair();
    phone.removeCompanion();
    await s.waitForStatus('FAILED');
    await expect(readdir(s.authDir)).rejects.toThrow();
    expect(s.host.me).toBeNull();
  });
});
