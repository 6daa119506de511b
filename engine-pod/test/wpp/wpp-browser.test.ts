// WPP end to end through Debian's chromium: WPPConnect and its wa-js, unmodified, on the fake
// WhatsApp Web page (engine-pod/test/fake-web/, the same page WEBJS runs on): QR pairing, the saved
// browser profile, logout, an unlink from the phone.
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventName, MessageRecord, SessionStatus } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EngineHost, FileAuthStateStore, type HostedEvent } from '../../src/index.js';
import { wppEngineFactory } from '../../src/engines/wpp/wpp-engine.js';
import { ACK, FakeWhatsAppWeb } from '../fake-web/index.js';
import { LIBRARY_VERSIONS } from '../library-versions.js';

const silent = { info() {}, warn() {}, error() {} };
const ME = { id: '15550007777@c.us', pushName: 'WPP Tests' };

describe('WPP through Chromium on the fake WhatsApp Web', () => {
  let fake: FakeWhatsAppWeb;
  const dirs: string[] = [];
  const hosts: EngineHost[] = [];
  const tempDir = (name: string) => {
    const dir = mkdtempSync(join(tmpdir(), `sb-wpp-${name}-`));
    dirs.push(dir);
    return dir;
  };

  /** A host whose browser profiles live in `dataDir` and whose saved login is in `authDir`. */
  function host(authDir: string, dataDir: string, events: HostedEvent[] = []): EngineHost {
    const created = new EngineHost({
      session: 'wpp',
      engine: 'WPP',
      factory: wppEngineFactory(fake.webjsOptions(dataDir)),
      authState: new FileAuthStateStore(authDir),
      metadata: {},
      environment: { tier: 'CORE', version: 'test' },
      publish: (event) => events.push(event),
      log: silent,
    });
    hosts.push(created);
    return created;
  }
  const statusOf = (h: EngineHost, status: SessionStatus, ms = 30_000) => waitFor(() => h.status === status, `WPP to be ${status}`, ms);
  const statuses = (events: HostedEvent[]) =>
    events.filter((e) => e.envelope.event === ('session.status' satisfies EventName)).map((e) => e.envelope.payload.status);
  const payloads = (events: HostedEvent[], name: EventName) => events.filter((e) => e.envelope.event === name).map((e) => e.envelope.payload);
  async function paired(h: EngineHost, account = ME) {
    await h.start();
    await statusOf(h, 'SCAN_QR_CODE');
    const qr = (await h.execute({ op: 'auth.qr' })) as { value: string };
    const phone = await fake.scanQr(qr.value, account);
    await statusOf(h, 'WORKING');
    return phone;
  }

  beforeAll(async () => {
    fake = await FakeWhatsAppWeb.start();
  });
  afterEach(async () => {
    for (const h of hosts.splice(0)) await h.stop().catch(() => {});
  });
  afterAll(async () => {
    await fake?.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('shows the QR code the page draws; scanned, the session is WORKING as the account that scanned it', async () => {
    const events: HostedEvent[] = [];
    const h = host(tempDir('auth'), tempDir('profiles'), events);
    await h.start();
    await statusOf(h, 'SCAN_QR_CODE');
    const qr = (await h.execute({ op: 'auth.qr' })) as { value: string };
    // The whole code WhatsApp Web encodes: ref, noise key, identity key, ADV secret.
    expect(qr.value.split(',')).toHaveLength(4);
    expect(fake.refs()).toContain(qr.value.split(',')[0]);
    // What it runs, read once the page has loaded: the installed WPPConnect, the page's WhatsApp Web version.
    await waitFor(() => h.versions, 'the versions');
    expect(h.versions).toEqual({ library: LIBRARY_VERSIONS.WPP, client: fake.version });
    await fake.scanQr(qr.value, ME);
    await statusOf(h, 'WORKING');
    expect(h.me).toEqual(ME);
    expect(statuses(events)).toEqual(['STARTING', 'SCAN_QR_CODE', 'WORKING']);
    expect(payloads(events, 'session.status').at(-1)).toMatchObject({ versions: { library: LIBRARY_VERSIONS.WPP, client: fake.version } });
    await expect(h.execute({ op: 'auth.qr' })).rejects.toMatchObject({ code: 'WRONG_STATUS' });
  });

  it('pairs by a phone code: the code the page asked for, typed on the phone, makes it WORKING', async () => {
    const h = host(tempDir('auth'), tempDir('profiles'));
    await h.start();
    await statusOf(h, 'SCAN_QR_CODE');
    const { code } = (await h.execute({ op: 'auth.requestCode', args: { phoneNumber: '15550004545' } })) as { code: string };
    expect(code).toMatch(/^[0-9A-F]{4}-[0-9A-F]{4}$/);
    expect(fake.codeRequests()).toContainEqual({ code: code.replace('-', ''), phoneNumber: '15550004545' });
    await fake.enterCode(code, { id: '15550004545@c.us', pushName: 'Coded' });
    await statusOf(h, 'WORKING');
    expect(h.me).toEqual({ id: '15550004545@c.us', pushName: 'Coded' });
  });

  it('a profile restored from the auth-state store alone (a new node, an empty disk) resumes without a QR code', async () => {
    const authDir = tempDir('auth');
    const first = host(authDir, tempDir('profiles'));
    // Stopped at once: Chromium writes Local Storage to disk seconds after the page, and not at all
    // when closed sooner; the login must come back all the same.
    await paired(first);
    await first.stop();

    const events: HostedEvent[] = [];
    const second = host(authDir, tempDir('profiles'), events);
    await second.start();
    await statusOf(second, 'WORKING');
    expect(statuses(events)).not.toContain('SCAN_QR_CODE');
    expect(second.me).toEqual(ME);
    // Read again at this start, from the page it loaded.
    await waitFor(() => second.versions, 'the versions of the restored session');
    expect(second.versions).toEqual({ library: LIBRARY_VERSIONS.WPP, client: fake.version });
  }, 60_000);

  it('logout unlinks the device on the servers and forgets the saved login: the next start shows a QR code', async () => {
    const authDir = tempDir('auth');
    const h = host(authDir, tempDir('profiles'));
    await paired(h, { id: '15550008888@c.us', pushName: 'Leaving' });
    expect(fake.connected().signedIn).toBeGreaterThan(0);
    await h.logout();
    expect(h.me).toBeNull();
    // The saved profile and the copy of the page's Local Storage are gone with the login.
    expect(existsSync(authDir) ? readdirSync(authDir) : []).toEqual([]);
    const again = host(authDir, tempDir('profiles'));
    await again.start();
    await statusOf(again, 'SCAN_QR_CODE');
  }, 60_000);

  it('unlinked on the phone: FAILED saying so, the login forgotten, and the next start shows a QR code', async () => {
    const authDir = tempDir('auth');
    const h = host(authDir, tempDir('profiles'));
    const phone = await paired(h, { id: '15550009999@c.us', pushName: 'Gone' });
    fake.unlink(phone);
    await statusOf(h, 'FAILED');
    expect(h.failureReason).toBe('the device was unlinked (UNPAIRED)');
    expect(h.me).toBeNull();
    await h.stop();
    const again = host(authDir, tempDir('profiles'));
    await again.start();
    await statusOf(again, 'SCAN_QR_CODE');
  }, 60_000);

  it('sends text: the record answered (api), message.any (api) once, then its acks up to READ as the phone reports them', async () => {
    const events: HostedEvent[] = [];
    const h = host(tempDir('auth'), tempDir('profiles'), events);
    const phone = await paired(h, { id: '15550006060@c.us', pushName: 'Sender' });
    const record = (await h.execute({
      op: 'send.text',
      args: { chatId: '15550001212@c.us', text: 'hello from WPP', linkPreview: true },
    })) as MessageRecord;
    expect(record).toMatchObject({ fromMe: true, source: 'api', from: '15550006060@c.us', to: '15550001212@c.us', body: 'hello from WPP' });
    expect(record.id).toMatch(/^true_15550001212@c\.us_\w+$/);
    expect(phone.sentTo('15550001212@c.us').map((m) => m.body)).toEqual(['hello from WPP']);
    phone.receipt(record.id.split('_').at(-1)!, ACK.READ);
    await waitFor(() => payloads(events, 'message.ack').some((p) => p.ack === ACK.READ), 'the READ ack');
    const any = payloads(events, 'message.any');
    expect(any.map((p) => [p.id, p.source])).toEqual([[record.id, 'api']]);
    const acks = payloads(events, 'message.ack');
    expect(acks.every((p) => p.id === record.id && p.from === '15550001212@c.us' && p.participant === null)).toBe(true);
    expect(acks.at(-1)).toMatchObject({ ack: ACK.READ, ackName: 'READ', fromMe: true });
    // Spec 6.2's order: the message before any ack of it.
    const order = events.map((e) => e.envelope.event).filter((name) => name === 'message.any' || name === 'message.ack');
    expect(order[0]).toBe('message.any');
  });

  it('receives text: message, then message.any, from the contact to the account (source app)', async () => {
    const events: HostedEvent[] = [];
    const h = host(tempDir('auth'), tempDir('profiles'), events);
    const phone = await paired(h, { id: '15550006161@c.us', pushName: 'Receiver' });
    const id = phone.text('15550002323@c.us', 'hi WPP');
    await waitFor(() => payloads(events, 'message.any').length > 0, 'message.any');
    const [message] = payloads(events, 'message');
    expect(message).toMatchObject({
      fromMe: false,
      source: 'app',
      from: '15550002323@c.us',
      to: '15550006161@c.us',
      body: 'hi WPP',
      participant: null,
    });
    expect(message!.id).toBe(`false_15550002323@c.us_${id}`);
    expect(payloads(events, 'message.any')).toEqual([message]);
    const names = events.map((e) => e.envelope.event);
    expect(names.indexOf('message')).toBeLessThan(names.indexOf('message.any'));
  });

  it('refuses what it does not do yet with NOT_SUPPORTED, naming the engine', async () => {
    const h = host(tempDir('auth'), tempDir('profiles'));
    await paired(h, { id: '15550006262@c.us', pushName: 'Not Yet' });
    // WhatsApp has no deleting of a group (its last admin leaves it): WPPConnect cannot either.
    await expect(h.execute({ op: 'group.delete', args: { id: '120363000000000001@g.us' } })).rejects.toMatchObject({
      code: 'NOT_SUPPORTED',
      details: { engine: 'WPP' },
    });
  });
});
