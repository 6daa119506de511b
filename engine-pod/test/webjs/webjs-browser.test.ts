// WEBJS end to end through Debian's chromium: whatsapp-web.js, unmodified, on the fake WhatsApp
// Web page (engine-pod/test/fake-web/). What the conformance stories share with the other engines
// is there; this file has what is WEBJS's own: the saved browser profile, phone-code pairing,
// an unlink from the phone, and received messages of every kind.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventName, SessionStatus } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EngineHost, FileAuthStateStore, type HostedEvent, webjsEngineFactory } from '../../src/index.js';
import { LIBRARY_VERSIONS } from '../library-versions.js';
import { memoryMediaStore } from '../support/memory-media-store.js';
import { type FakeWebPhone, FakeWhatsAppWeb } from '../fake-web/index.js';

const silent = { info() {}, warn() {}, error() {} };
const ME = { id: '15550003333@c.us', pushName: 'Browser Tests' };

/** A process's command line as one string: Chromium rewrites its children's into one, spaces and all. */
const commandLine = (pid: string) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return ''; // gone since the listing
  }
};
/** A process's parent, from /proc/<pid>/stat (after the command name, which may hold spaces). */
const parentOf = (pid: string) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]!;
  } catch {
    return ''; // gone since the listing
  }
};
/**
 * The Chromium of the profiles under `dataDir`: its browser process (the one given the profile,
 * no `--type`), or the renderers below it (the headless shell gives them no profile flag).
 */
const chromiumOf = (dataDir: string, type: 'browser' | 'renderer') => {
  const pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  const browsers = pids.filter((pid) => commandLine(pid).includes(`--user-data-dir=${dataDir}`) && !commandLine(pid).includes('--type='));
  if (type === 'browser') return browsers.map(Number);
  const below = (pid: string): boolean => pid !== '' && pid !== '1' && (browsers.includes(pid) || below(parentOf(pid)));
  return pids.filter((pid) => commandLine(pid).includes('--type=renderer') && below(parentOf(pid))).map(Number);
};

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
      factory: webjsEngineFactory(fake.webjsOptions(dataDir)),
      authState: new FileAuthStateStore(authDir),
      metadata: {},
      environment: { tier: 'CORE', version: 'test' },
      publish: (event) => events.push(event),
      log: silent,
    });
    hosts.push(created);
    return created;
  }
  const statusOf = (h: EngineHost, status: SessionStatus, ms = 30_000) => waitFor(() => h.status === status, `WEBJS to be ${status}`, ms);
  const named = (events: HostedEvent[], name: EventName) => events.filter((e) => e.envelope.event === name).map((e) => e.envelope.payload);

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
    const qr = (await first.execute({ op: 'auth.qr' })) as { value: string };
    await fake.scanQr(qr.value, ME);
    await statusOf(first, 'WORKING');
    await first.stop();

    const events: HostedEvent[] = [];
    const second = host(authDir, tempDir('profiles'), events);
    await second.start();
    await statusOf(second, 'WORKING');
    expect(named(events, 'session.status').map((p) => p.status)).not.toContain('SCAN_QR_CODE');
    expect(second.me).toMatchObject({ id: ME.id });
    // Read again at this start, from the page it loaded.
    await waitFor(() => second.versions, 'the versions of the restored session');
    expect(second.versions).toEqual({ library: LIBRARY_VERSIONS.WEBJS, client: fake.version });
  });

  it('reports what it runs once the page has loaded: the installed whatsapp-web.js and the WhatsApp Web version the page presents', async () => {
    const events: HostedEvent[] = [];
    const h = host(tempDir('auth'), tempDir('profiles'), events);
    expect(h.versions).toBeNull();
    await h.start();
    await statusOf(h, 'SCAN_QR_CODE');
    await waitFor(() => h.versions, 'the versions');
    expect(h.versions).toEqual({ library: LIBRARY_VERSIONS.WEBJS, client: fake.version });
    await fake.scanQr(((await h.execute({ op: 'auth.qr' })) as { value: string }).value, { id: '15550006666@c.us', pushName: 'Versions' });
    await statusOf(h, 'WORKING');
    // The status events carry them once known.
    expect(named(events, 'session.status').at(-1)).toMatchObject({
      status: 'WORKING',
      versions: { library: LIBRARY_VERSIONS.WEBJS, client: fake.version },
    });
  });

  it('pairs by a phone code: the code the page asked for, typed on the phone, makes it WORKING', async () => {
    const h = host(tempDir('auth'), tempDir('profiles'));
    await h.start();
    await statusOf(h, 'SCAN_QR_CODE');
    const { code } = (await h.execute({ op: 'auth.requestCode', args: { phoneNumber: '15550004444' } })) as { code: string };
    expect(fake.codeRequests()).toContainEqual({ code: code.replace('-', ''), phoneNumber: '15550004444' });
    await fake.enterCode(code, { id: '15550004444@c.us', pushName: 'Coded' });
    await statusOf(h, 'WORKING');
    expect(h.me).toEqual({ id: '15550004444@c.us', pushName: 'Coded' });
  });

  it('unlinked on the phone: FAILED saying so, the login forgotten, and the next start shows a QR code', async () => {
    const authDir = tempDir('auth');
    const dataDir = tempDir('profiles');
    const events: HostedEvent[] = [];
    const h = host(authDir, dataDir, events);
    await h.start();
    await statusOf(h, 'SCAN_QR_CODE');
    const phone = await fake.scanQr(((await h.execute({ op: 'auth.qr' })) as { value: string }).value, { id: '15550005555@c.us', pushName: 'Gone' });
    await statusOf(h, 'WORKING');
    fake.unlink(phone);
    await statusOf(h, 'FAILED');
    expect(h.failureReason).toBe('the device was unlinked (UNPAIRED)');
    expect(h.me).toBeNull();
    await h.stop();
    // The next start empties this profile dir and launches into it: no Chromium of it is left.
    expect(chromiumOf(dataDir, 'browser')).toEqual([]);
    const again = host(authDir, dataDir);
    await again.start();
    await statusOf(again, 'SCAN_QR_CODE');
    // Two Chromium launches one after the other: 20 s was too little on a loaded 2-core machine.
  }, 60_000);

  describe('a browser that goes away, which the library does not notice: FAILED saying which', () => {
    for (const [type, reason] of [
      ['browser', 'the browser closed: Chromium exited or closed its connection'],
      ['renderer', /^the browser page crashed: /],
    ] as const) {
      it(`its ${type} process killed while WORKING`, async () => {
        const dataDir = tempDir('profiles');
        const events: HostedEvent[] = [];
        const h = host(tempDir('auth'), dataDir, events);
        await h.start();
        await statusOf(h, 'SCAN_QR_CODE');
        await fake.scanQr(((await h.execute({ op: 'auth.qr' })) as { value: string }).value, { id: '15550006666@c.us', pushName: 'Crash' });
        await statusOf(h, 'WORKING');
        const pids = chromiumOf(dataDir, type);
        expect(pids.length, `${type} processes`).toBeGreaterThan(0);
        for (const pid of pids) process.kill(pid, 'SIGKILL');
        await statusOf(h, 'FAILED');
        expect(h.failureReason).toEqual(typeof reason === 'string' ? reason : expect.stringMatching(reason));
        expect(named(events, 'session.status').at(-1)).toMatchObject({ status: 'FAILED', reason: h.failureReason });
        // What is left of the browser is closed, as after any other failure.
        await waitFor(() => chromiumOf(dataDir, 'browser').length === 0, 'the browser to close', 10_000);
      });
    }
  });

  describe('received messages of every kind', () => {
    const CONTACT = '15551112222@c.us';
    let h: EngineHost;
    let phone: FakeWebPhone;
    const events: HostedEvent[] = [];
    const kept = memoryMediaStore();
    /** The `message` event of a message the contact sent, once it is out. */
    const receivedOne = async (id: string) => waitFor(() => named(events, 'message').find((p) => p.id === `false_${CONTACT}_${id}`), `message ${id}`);

    beforeAll(async () => {
      h = new EngineHost({
        session: 'kinds',
        engine: 'WEBJS',
        factory: webjsEngineFactory(fake.webjsOptions(tempDir('profiles'))),
        authState: new FileAuthStateStore(tempDir('auth')),
        metadata: {},
        environment: { tier: 'CORE', version: 'test' },
        publish: (event) => events.push(event),
        media: { store: kept.store, urlFor: kept.urlFor },
        log: silent,
      });
      await h.start();
      await statusOf(h, 'SCAN_QR_CODE');
      phone = await fake.scanQr(((await h.execute({ op: 'auth.qr' })) as { value: string }).value, { id: '15550006666@c.us', pushName: 'Kinds' });
      await statusOf(h, 'WORKING');
    });
    afterAll(async () => {
      await h?.stop();
    });

    it('a location: location with its name and address, an empty body', async () => {
      const id = phone.deliver(CONTACT, { type: 'location', lat: 48.8584, lng: 2.2945, loc: 'Tour Eiffel\nChamp de Mars' });
      const message = await receivedOne(id);
      expect(message).toMatchObject({ body: '', hasMedia: false });
      expect(message.location).toEqual({
        latitude: '48.8584',
        longitude: '2.2945',
        live: false,
        name: 'Tour Eiffel',
        address: 'Champ de Mars',
        description: 'Tour Eiffel\nChamp de Mars',
      });
    });

    it('a contact card: the vCard is the body and in vCards', async () => {
      const vcard = 'BEGIN:VCARD\nVERSION:3.0\nFN:Ada Lovelace\nTEL;type=CELL;waid=442079460000:+44 20 7946 0000\nEND:VCARD';
      const message = await receivedOne(phone.deliver(CONTACT, { type: 'vcard', body: vcard }));
      expect(message).toMatchObject({ body: vcard, vCards: [vcard] });
    });

    it('a reply names the message it quotes', async () => {
      const first = phone.text(CONTACT, 'the original');
      await receivedOne(first);
      const reply = phone.deliver(CONTACT, {
        type: 'chat',
        body: 'the answer',
        quotedMsg: { type: 'chat', body: 'the original' },
        quotedStanzaID: first,
        quotedParticipant: CONTACT,
      });
      expect((await receivedOne(reply)).replyTo).toMatchObject({ id: first, participant: CONTACT, body: 'the original', hasMedia: false });
    });

    it('a file is downloaded from its direct path and kept: media {url, mimetype, filename}', async () => {
      const data = Buffer.from('%PDF-1.4 a tiny document');
      const id = phone.media(CONTACT, { type: 'document', mimetype: 'application/pdf', data, filename: 'tiny.pdf', caption: 'the doc' });
      const message = await receivedOne(id);
      expect(message).toMatchObject({ hasMedia: true, body: 'the doc', media: { mimetype: 'application/pdf', filename: 'tiny.pdf' } });
      expect([...kept.files.values()].map((file) => file.data)).toContainEqual(data);
    });

    it("the contact's reaction, edit and revoke are message.reaction, message.edited and message.revoked", async () => {
      const target = phone.text(CONTACT, 'change me');
      await receivedOne(target);
      const serialized = `false_${CONTACT}_${target}`;
      phone.change('reaction', { id: `false_${CONTACT}_3EB0REACT1`, parent: serialized, sender: CONTACT, text: '👍' });
      await waitFor(
        () => named(events, 'message.reaction').find((p) => (p.reaction as { messageId: string }).messageId === serialized),
        'message.reaction',
      );
      phone.change('edit', { id: serialized, body: 'changed' });
      await waitFor(() => named(events, 'message.edited').find((p) => p.body === 'changed'), 'message.edited');
      phone.change('revoke', { id: serialized, by: CONTACT });
      await waitFor(() => named(events, 'message.revoked').length > 0, 'message.revoked');
    });
  });
});
