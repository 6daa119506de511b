import { waitFor } from '@switchboard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { CommandError } from '../../src/index.js';
import { LIBRARY_VERSIONS } from '../library-versions.js';
import { expectValidEnvelopes, tick, webjsSession } from './harness.js';
import { ME } from './library-shapes.js';

const sessions: ReturnType<typeof webjsSession>[] = [];
function session() {
  const created = webjsSession();
  sessions.push(created);
  return created;
}
afterEach(() => {
  for (const { events, dropped } of sessions.splice(0)) expectValidEnvelopes(events, dropped);
});

describe('WEBJS session.status (spec part 3)', () => {
  it('is SCAN_QR_CODE again for each new QR code, and auth.qr answers the latest one', async () => {
    const s = session();
    await s.host.start();
    s.client.fire('qr', '2@first');
    s.client.fire('qr', '2@second');
    expect(s.statuses()).toEqual(['STARTING', 'SCAN_QR_CODE', 'SCAN_QR_CODE']);
    expect(await s.host.execute({ op: 'auth.qr' })).toEqual({ value: '2@second' });
    expect(s.client.calls).toEqual(['initialize']);
  });

  it('is STARTING once the QR is scanned, and WORKING with me from client.info on ready', async () => {
    const s = session();
    await s.host.start();
    s.client.fire('qr', '2@first');
    s.client.pair();
    expect(s.statuses()).toEqual(['STARTING', 'SCAN_QR_CODE', 'STARTING', 'WORKING']);
    const me = { id: ME, pushName: 'Switchboard Test' };
    expect(s.host.me).toEqual(me);
    expect(s.named('session.status').at(-1)!.me).toEqual(me);
    expect(await s.host.execute({ op: 'me' })).toEqual(me);
  });

  it("reports its versions once the page has loaded (none before): the installed whatsapp-web.js and the page's version, read once", async () => {
    const s = session();
    s.client.webVersion = '2.3000.1234567890';
    await s.host.start();
    expect(s.host.versions).toBeNull();
    expect(s.client.webVersionReads).toBe(0);
    s.client.fire('qr', '2@first');
    await waitFor(() => s.host.versions, 'the versions');
    expect(s.host.versions).toEqual({ library: LIBRARY_VERSIONS.WEBJS, client: '2.3000.1234567890' });
    s.client.fire('qr', '2@second');
    s.client.pair();
    expect(s.client.webVersionReads).toBe(1);
    expect(s.named('session.status').at(-1)!.payload).toMatchObject({
      status: 'WORKING',
      versions: { library: LIBRARY_VERSIONS.WEBJS, client: '2.3000.1234567890' },
    });
  });

  it('a page that cannot say its version: the session goes on without versions, and the reason is logged', async () => {
    const s = session();
    s.client.webVersion = new Error('Evaluation failed: window.Debug is undefined');
    await s.host.start();
    s.client.fire('qr', '2@first');
    await waitFor(() => s.warnings.find((w) => w.msg === 'WEBJS could not read the WhatsApp Web version'), 'the warning');
    s.client.pair();
    expect(s.statuses()).toEqual(['STARTING', 'SCAN_QR_CODE', 'STARTING', 'WORKING']);
    expect(s.host.versions).toBeNull();
    expect(s.named('session.status').at(-1)!.payload.versions).toBeUndefined();
  });

  it('is WORKING at once when a restored login needs no QR code', async () => {
    const s = session();
    await s.host.start();
    s.client.pair();
    expect(s.statuses()).toEqual(['STARTING', 'WORKING']);
  });

  it('is FAILED on auth_failure, with the account forgotten', async () => {
    const s = session();
    await s.working();
    s.client.fire('auth_failure', 'the saved login was not accepted');
    expect(s.statuses()).toEqual(['FAILED']);
    expect(s.host.me).toBeNull();
    expect(s.named('session.status')[0]!.me).toBeUndefined();
  });

  it('is FAILED on disconnect; account and saved login stay on a lost connection, and go on LOGOUT', async () => {
    const saved = { 'webjs-profile': { manifest: { generation: 'g1', savedAt: 1, files: [] } } };
    const conflict = session();
    await conflict.working();
    await conflict.authState.set(saved);
    conflict.client.fire('disconnected', 'CONFLICT');
    await tick();
    expect(conflict.statuses()).toEqual(['FAILED']);
    expect(conflict.host.me).not.toBeNull();
    expect(await conflict.authState.get('webjs-profile', ['manifest'])).not.toEqual({});

    const unlinked = session();
    await unlinked.working();
    await unlinked.authState.set(saved);
    unlinked.client.fire('disconnected', 'LOGOUT');
    // The library keeps the browser after a logout from the phone and shows a new QR code.
    unlinked.client.fire('qr', '2@again');
    expect(unlinked.statuses()).toEqual(['FAILED', 'SCAN_QR_CODE']);
    expect(unlinked.host.me).toBeNull();
    const manifest = () => unlinked.authState.get('webjs-profile', ['manifest']);
    await waitFor(async () => Object.keys(await manifest()).length === 0, 'the saved login to be cleared');
  });

  it('is FAILED when the web client cannot start', async () => {
    const s = session();
    s.client.initializeError = new Error('Failed to launch the browser process');
    await s.host.start();
    await tick();
    expect(s.statuses()).toEqual(['STARTING', 'FAILED']);
  });

  it('stop destroys the client, is STOPPED, and ignores what the client says afterwards', async () => {
    const s = session();
    await s.working();
    await s.host.stop();
    s.client.fire('qr', '2@late');
    s.client.fire('message', {} as never);
    expect(s.statuses()).toEqual(['STOPPED']);
    expect(s.client.calls).toEqual(['initialize', 'destroy']);
  });

  it('logout unlinks a logged-in device and clears the saved login', async () => {
    const s = session();
    await s.working();
    await s.authState.set({ 'webjs-profile': { manifest: { generation: 'g1', savedAt: 1, files: [] } } });
    await s.host.logout();
    expect(s.client.calls).toContain('logout');
    expect(await s.authState.get('webjs-profile', ['manifest'])).toEqual({});
    expect(s.host.me).toBeNull();
  });

  it('logout before pairing closes the browser without unlinking', async () => {
    const s = session();
    await s.host.start();
    s.client.fire('qr', '2@first');
    await s.host.logout();
    expect(s.client.calls).toEqual(['initialize', 'destroy']);
  });
});

describe('WEBJS pairing by code (spec 4.1)', () => {
  it('requests the code from the client and answers it as ABCD-EFGH', async () => {
    const s = session();
    await s.host.start();
    s.client.fire('qr', '2@first');
    const answer = await s.host.execute({ op: 'auth.requestCode', args: { phoneNumber: '15551234567' } });
    expect(answer).toEqual({ code: 'K7QW-2M9X' });
    expect(s.client.calls).toContain('requestPairingCode 15551234567');
    s.client.fire('code', 'K7QW2M9X');
    expect(s.payloads('engine.event').at(-1)).toEqual({ event: 'code', data: { code: 'K7QW2M9X' } });
  });
});

describe('WEBJS answers NOT_SUPPORTED, naming the engine, for what it cannot do', () => {
  const notSupported = async (run: Promise<unknown>) => {
    const error = (await run.catch((e: unknown) => e)) as CommandError;
    expect(error).toBeInstanceOf(CommandError);
    expect(error.code).toBe('NOT_SUPPORTED');
    expect(error.message).toContain('WEBJS');
  };

  it('a send with a pre-generated message id', async () => {
    const s = session();
    await s.working();
    await notSupported(s.host.execute({ op: 'send.text', args: { chatId: '15551234567@c.us', text: 'x', linkPreview: true, id: 'CLIENTID0001' } }));
    expect(s.client.calls).not.toContain('sendMessage 15551234567@c.us');
  });

  it('pairing by sms or voice', async () => {
    const s = session();
    await s.host.start();
    s.client.fire('qr', '2@first');
    await notSupported(s.host.execute({ op: 'auth.requestCode', args: { phoneNumber: '15551234567', method: 'sms' } }));
  });

  it('simulate, which only SANDBOX has', async () => {
    const s = session();
    await s.working();
    await notSupported(s.host.execute({ op: 'sandbox.simulate', args: { kind: 'scan' } }));
  });
});

describe('WEBJS send errors', () => {
  it('a chat the client cannot find is NOT_FOUND; a library failure is ENGINE_ERROR', async () => {
    const s = session();
    await s.working();
    s.client.sendResult = () => null;
    const missing = (await s.host
      .execute({ op: 'send.text', args: { chatId: '15559999999@c.us', text: 'x', linkPreview: true } })
      .catch((e: unknown) => e)) as CommandError;
    expect(missing.code).toBe('NOT_FOUND');
    s.client.sendResult = () => {
      throw new Error('Evaluation failed: chat is not ready');
    };
    const broken = (await s.host
      .execute({ op: 'send.text', args: { chatId: '15559999999@c.us', text: 'x', linkPreview: true } })
      .catch((e: unknown) => e)) as CommandError;
    expect(broken.code).toBe('ENGINE_ERROR');
    expect(broken.message).toContain('chat is not ready');
    expect(s.named('message.any')).toEqual([]);
  });
});
