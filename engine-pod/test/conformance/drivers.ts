import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineName, MeInfo, MessageRecord } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import {
  DEFAULT_NOWEB_OPTIONS,
  type EngineFactory,
  EngineHost,
  FileAuthStateStore,
  gowsEngineFactory,
  type HostedEvent,
  type InvalidEvent,
  NowebEngine,
  SandboxEngine,
  webjsEngineFactory,
  wppEngineFactory,
} from '../../src/index.js';
import { type FakePhone, FakeWaServer } from '../fake-wa/index.js';
import { ACK, type FakeWebPhone, FakeWhatsAppWeb } from '../fake-web/index.js';
import { buildGows } from '../gows/driver.js';

const silent = { info() {}, warn() {}, error() {} };

/**
 * What a story needs to play the other side of a session, whatever the engine: pair it, make a
 * contact write, make a sent message arrive. Each engine has its own way (SANDBOX's simulator,
 * NOWEB's fake WhatsApp Web server); the stories do not know which they drive.
 */
export interface ConformanceDriver {
  readonly engine: EngineName;
  /** A host with a real file auth store in a temp dir, publishing into `events`, the events it drops as invalid into `dropped`. Not started. */
  host(events: HostedEvent[], dropped: InvalidEvent[]): EngineHost;
  /** The host is showing a QR code: the account scans it. Resolves with the account. */
  scan(host: EngineHost, qr: string): Promise<MeInfo>;
  /** A contact (`<number>@c.us`) writes to the account; resolves with the message's own id. */
  incomingText(host: EngineHost, from: string, body: string): Promise<string>;
  /** The recipient's phone got a message this account sent (DEVICE). */
  delivered(record: MessageRecord): Promise<void>;
  /** A contact comes online, types, records audio or goes offline (last seen at `lastSeen`, Unix seconds), as the servers push it. */
  presence(host: EngineHost, contact: string, kind: PresenceKind, lastSeen?: number): Promise<void>;
  close(): Promise<void>;
}

/** A contact's presence as the servers send it: online, offline, or a chat state. */
export type PresenceKind = 'available' | 'unavailable' | 'composing' | 'recording';

/** The same as the spec's presence (2.7), which SANDBOX's simulator takes. */
const SPEC_PRESENCE = { available: 'online', unavailable: 'offline', composing: 'typing', recording: 'recording' } as const;

abstract class DriverBase implements ConformanceDriver {
  abstract readonly engine: EngineName;
  private readonly dirs: string[] = [];
  protected abstract factory(): EngineFactory;

  host(events: HostedEvent[], dropped: InvalidEvent[]): EngineHost {
    const authDir = mkdtempSync(join(tmpdir(), `sb-conformance-${this.engine.toLowerCase()}-`));
    this.dirs.push(authDir);
    return new EngineHost({
      session: `conformance-${this.engine.toLowerCase()}`,
      engine: this.engine,
      factory: this.factory(),
      authState: new FileAuthStateStore(authDir),
      metadata: { story: 'conformance' },
      environment: { tier: 'CORE', version: 'test' },
      publish: (event) => events.push(event),
      onInvalidEvent: (invalid) => dropped.push(invalid),
      log: silent,
    });
  }

  abstract scan(host: EngineHost, qr: string): Promise<MeInfo>;
  abstract incomingText(host: EngineHost, from: string, body: string): Promise<string>;
  abstract delivered(record: MessageRecord): Promise<void>;
  abstract presence(host: EngineHost, contact: string, kind: PresenceKind, lastSeen?: number): Promise<void>;

  async close(): Promise<void> {
    for (const dir of this.dirs) await rm(dir, { recursive: true, force: true });
  }
}

/** SANDBOX: its simulator is the other side; it acknowledges sends by itself. */
export class SandboxDriver extends DriverBase {
  readonly engine = 'SANDBOX' as const;

  protected factory(): EngineFactory {
    return (context) => new SandboxEngine(context, { qrRenewMs: 60_000, ackDelaysMs: { server: 5, device: 20 } });
  }

  async scan(host: EngineHost): Promise<MeInfo> {
    const { me } = (await host.execute({
      op: 'sandbox.simulate',
      args: { kind: 'scan', me: { id: '15550009999@c.us', pushName: 'Conformance' } },
    })) as { me: MeInfo };
    return me;
  }

  async incomingText(host: EngineHost, from: string, body: string): Promise<string> {
    const { id } = (await host.execute({ op: 'sandbox.simulate', args: { kind: 'message', from, body } })) as { id: string };
    return id.split('_').at(-1)!;
  }

  async delivered(): Promise<void> {}

  async presence(host: EngineHost, contact: string, kind: PresenceKind, lastSeen?: number): Promise<void> {
    await host.execute({
      op: 'sandbox.simulate',
      args: { kind: 'presence', chatId: contact, presence: SPEC_PRESENCE[kind], lastSeen: lastSeen ?? null },
    });
  }
}

/** NOWEB on the fake WhatsApp Web server: a phone scans, contacts write, receipts come back. */
export class NowebDriver extends DriverBase {
  readonly engine = 'NOWEB' as const;
  private phone: FakePhone | null = null;

  private constructor(private readonly fake: FakeWaServer) {
    super();
  }

  static async start(): Promise<NowebDriver> {
    return new NowebDriver(await FakeWaServer.start());
  }

  protected factory(): EngineFactory {
    const options = { ...DEFAULT_NOWEB_OPTIONS, waUrl: this.fake.url, reconnectDelayMs: () => 50 };
    return (context) => new NowebEngine(context, options);
  }

  async scan(host: EngineHost, qr: string): Promise<MeInfo> {
    this.phone = await this.fake.scanQr(qr, { pushName: 'Conformance' });
    await waitFor(() => host.me?.pushName === 'Conformance', 'the push name');
    return { id: this.phone.contactId, pushName: 'Conformance' };
  }

  async incomingText(_host: EngineHost, from: string, body: string): Promise<string> {
    return this.requirePhone().text(from.replace('@c.us', ''), body);
  }

  async delivered(record: MessageRecord): Promise<void> {
    this.requirePhone().receipt(record.id.split('_').at(-1)!, record.to.replace('@c.us', ''));
  }

  async presence(_host: EngineHost, contact: string, kind: PresenceKind, lastSeen?: number): Promise<void> {
    this.requirePhone().presence(contact.replace('@c.us', ''), kind, lastSeen === undefined ? {} : { lastSeen });
  }

  override async close(): Promise<void> {
    await this.fake.close();
    await super.close();
  }

  private requirePhone(): FakePhone {
    if (!this.phone) throw new Error('no phone has scanned yet');
    return this.phone;
  }
}

/**
 * GOWS on the same fake server, as local mode runs it: the GowsEngine proxy over the real
 * `switchboard-gows` child. The fake encrypts direct messages with Signal (whatsmeow reads no
 * plaintext) and signs its certificate chain with a root key the engine is given.
 */
export class GowsDriver extends DriverBase {
  readonly engine = 'GOWS' as const;
  private phone: FakePhone | null = null;

  private constructor(
    private readonly fake: FakeWaServer,
    private readonly binary: string,
  ) {
    super();
  }

  static async start(): Promise<GowsDriver> {
    const [fake, binary] = await Promise.all([FakeWaServer.start({ signal: true }), buildGows()]);
    return new GowsDriver(fake, binary);
  }

  protected factory(): EngineFactory {
    return gowsEngineFactory({
      command: [this.binary, 'stdio'],
      wsUrl: this.fake.url,
      certRootPubkey: this.fake.certRootPublicKey,
      exitTimeoutMs: 10_000,
    });
  }

  async scan(host: EngineHost, qr: string): Promise<MeInfo> {
    this.phone = await this.fake.scanQr(qr, { pushName: 'Conformance' });
    await waitFor(() => host.me?.pushName === 'Conformance', 'the push name');
    return { id: this.phone.contactId, pushName: 'Conformance' };
  }

  async incomingText(_host: EngineHost, from: string, body: string): Promise<string> {
    const number = from.replace('@c.us', '');
    // As WhatsApp does now, the contact has a LID, which whatsmeow looks up.
    this.fake.contact(number, `2451${number}`);
    return this.requirePhone().text(number, body);
  }

  async delivered(record: MessageRecord): Promise<void> {
    this.requirePhone().receipt(record.id.split('_').at(-1)!, record.to.replace('@c.us', ''));
  }

  async presence(_host: EngineHost, contact: string, kind: PresenceKind, lastSeen?: number): Promise<void> {
    this.requirePhone().presence(contact.replace('@c.us', ''), kind, lastSeen === undefined ? {} : { lastSeen });
  }

  override async close(): Promise<void> {
    await this.fake.close();
    await super.close();
  }

  private requirePhone(): FakePhone {
    if (!this.phone) throw new Error('no phone has scanned yet');
    return this.phone;
  }
}

/**
 * The browser engines through Debian's chromium: the library (whatsapp-web.js for WEBJS,
 * WPPConnect and its wa-js for WPP), unmodified, loads the fake WhatsApp Web page (its web
 * version, fetched from the fake) and the test plays the phone through the fake's backend.
 */
export class WebjsDriver extends DriverBase {
  readonly engine: 'WEBJS' | 'WPP' = 'WEBJS';
  private phone: FakeWebPhone | null = null;
  private readonly dataDir = mkdtempSync(join(tmpdir(), 'sb-conformance-browser-'));

  protected constructor(private readonly fake: FakeWhatsAppWeb) {
    super();
  }

  static async start(): Promise<WebjsDriver> {
    return new WebjsDriver(await FakeWhatsAppWeb.start());
  }

  protected factory(): EngineFactory {
    return webjsEngineFactory(this.browserOptions());
  }

  protected browserOptions() {
    return this.fake.webjsOptions(this.dataDir);
  }

  async scan(host: EngineHost, qr: string): Promise<MeInfo> {
    this.phone = await this.fake.scanQr(qr, { id: '15550002222@c.us', pushName: 'Conformance' });
    await waitFor(() => host.me?.pushName === 'Conformance', 'the push name');
    return { id: this.phone.contactId, pushName: 'Conformance' };
  }

  async incomingText(_host: EngineHost, from: string, body: string): Promise<string> {
    return this.requirePhone().text(from, body);
  }

  async delivered(record: MessageRecord): Promise<void> {
    this.requirePhone().receipt(record.id.split('_').at(-1)!, ACK.DEVICE);
  }

  async presence(_host: EngineHost, contact: string, kind: PresenceKind, lastSeen?: number): Promise<void> {
    this.requirePhone().presences.presence(contact, kind, lastSeen === undefined ? {} : { lastSeen });
  }

  override async close(): Promise<void> {
    await this.fake.close();
    await rm(this.dataDir, { recursive: true, force: true });
    await super.close();
  }

  private requirePhone(): FakeWebPhone {
    if (!this.phone) throw new Error('no phone has scanned yet');
    return this.phone;
  }
}

/** WPP: WPPConnect and its wa-js on the same fake page, the phone played the same way. */
export class WppDriver extends WebjsDriver {
  override readonly engine = 'WPP' as const;

  static override async start(): Promise<WppDriver> {
    return new WppDriver(await FakeWhatsAppWeb.start());
  }

  protected override factory(): EngineFactory {
    return wppEngineFactory(this.browserOptions());
  }
}
