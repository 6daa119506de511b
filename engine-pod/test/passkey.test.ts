import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EngineCommand, SimulateRequest } from '@switchboard/protocol';
import { SoftAuthenticator } from '@switchboard/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CommandError, EngineHost, FileAuthStateStore, SandboxEngine } from '../src/index.js';
import { FakeWaServer } from './fake-wa/index.js';
import { NowebSession } from './noweb/harness.js';
import { webjsSession } from './webjs/harness.js';

const silent = { info() {}, warn() {}, error() {} };

const PASSKEY_OPS: EngineCommand[] = [
  { op: 'auth.passkey.challenge' },
  { op: 'auth.passkey.submit', args: new SoftAuthenticator().assert({ challenge: 'AAAA', rpId: 'web.whatsapp.com' }) },
  { op: 'auth.passkey.confirmation' },
  { op: 'auth.passkey.confirm' },
];

async function refusal(host: EngineHost, command: EngineCommand): Promise<CommandError> {
  const error = await host.execute(command).catch((e: unknown) => e);
  expect(error, command.op).toBeInstanceOf(CommandError);
  return error as CommandError;
}

describe('4.1 passkey pairing on engines without it: 422 naming the engine, in any status', () => {
  it('WEBJS, while SCAN_QR_CODE', async () => {
    const s = webjsSession();
    await s.host.start();
    s.client.fire('qr', '2@qr-one');
    expect(s.host.status).toBe('SCAN_QR_CODE');
    for (const command of PASSKEY_OPS) {
      const error = await refusal(s.host, command);
      expect(error.code).toBe('NOT_SUPPORTED');
      expect(error.message).toBe("engine WEBJS does not support passkey pairing (session 'webjs-1')");
      expect(error.details).toEqual({ session: 'webjs-1', engine: 'WEBJS' });
    }
    await s.host.stop();
  });

  describe('NOWEB, against the fake WhatsApp Web server', () => {
    let fake: FakeWaServer;
    let s: NowebSession;
    beforeAll(async () => {
      fake = await FakeWaServer.start();
      s = new NowebSession(fake);
    });
    afterAll(async () => {
      await s.close();
      await fake.close();
    });

    it('while SCAN_QR_CODE', async () => {
      await s.host.start();
      await s.qr();
      for (const command of PASSKEY_OPS) {
        const error = await refusal(s.host, command);
        expect(error.code).toBe('NOT_SUPPORTED');
        expect(error.details).toEqual({ session: 'noweb', engine: 'NOWEB' });
      }
    });
  });

  it('a stopped session of such an engine is refused from the engine catalog: no engine needs to run to know', async () => {
    const s = webjsSession();
    const error = await refusal(s.host, { op: 'auth.passkey.challenge' });
    expect(error.code).toBe('NOT_SUPPORTED');
    expect(error.message).toBe("engine WEBJS does not support passkey pairing (session 'webjs-1')");
    expect(error.details).toEqual({ session: 'webjs-1', engine: 'WEBJS' });
  });
});

describe('SANDBOX passkey challenge lifetime', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('an assertion over an expired challenge is a 400; the next GET gives a new challenge that pairs', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const host = new EngineHost({
      session: 'pk',
      engine: 'SANDBOX',
      factory: (context) => new SandboxEngine(context, { qrRenewMs: 60_000, ackDelaysMs: { server: 1, device: 2 } }),
      authState: new FileAuthStateStore(mkdtempSync(join(tmpdir(), 'sb-passkey-'))),
      metadata: {},
      environment: { tier: 'CORE', version: 'test' },
      publish: () => {},
      log: silent,
    });
    await host.start();
    const authenticator = new SoftAuthenticator();
    await host.execute({ op: 'sandbox.simulate', args: SimulateRequest.parse({ kind: 'passkey', credential: authenticator.credential }) });
    const first = (await host.execute({ op: 'auth.passkey.challenge' })) as { challenge: string; rpId: string; timeout: number };

    vi.setSystemTime(Date.now() + first.timeout);
    const expired = await refusal(host, { op: 'auth.passkey.submit', args: authenticator.assert(first) });
    expect(expired.code).toBe('INVALID');
    expect(expired.details).toEqual([{ path: 'body.response.clientDataJSON', reason: expect.stringContaining('expired') }]);
    expect(host.status).toBe('PASSKEY_REQUIRED');

    const second = (await host.execute({ op: 'auth.passkey.challenge' })) as typeof first;
    expect(second.challenge).not.toBe(first.challenge);
    await host.execute({ op: 'auth.passkey.submit', args: authenticator.assert(second) });
    expect(host.status).toBe('WORKING');
    await host.stop();
  });
});
