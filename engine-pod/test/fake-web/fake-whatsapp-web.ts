import { execFileSync } from 'node:child_process';
import { createHash, createPublicKey, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type WebSocket, WebSocketServer } from 'ws';
import { DEFAULT_WEBJS_OPTIONS, type WebjsOptions } from '../../src/engines/webjs/client-factory.js';
import { FakeWebPhone, type FakeWebAccount } from './phone.js';

/** The WhatsApp Web version the fake serves (the library asks for `<version>.html`). */
export const FAKE_WEB_VERSION = '2.3000.1017054665';

/**
 * What Chromium needs to run the fake: the page runs on web.whatsapp.com's origin, a public one,
 * and Chromium's Local Network Access checks refuse a public page's connections to a loopback or
 * private address, which is where the backend is.
 */
const FAKE_WEB_BROWSER_FLAGS: readonly string[] = ['--disable-features=LocalNetworkAccessChecks'];

/**
 * A certificate for `address` and the base64 SHA-256 of its public key, which Chromium's
 * `--ignore-certificate-errors-spki-list` trusts alone. Node makes keys but not certificates:
 * openssl (Debian's, on every machine here) signs it.
 */
function selfSignedCertificate(address: string): { key: string; cert: string; spki: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sb-fake-web-tls-'));
  try {
    const san = isIP(address) ? `IP:${address}` : `DNS:${address}`;
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2'].concat([
        '-subj',
        '/CN=fake-whatsapp-web',
        '-addext',
        `subjectAltName=${san}`,
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ]),
      { stdio: 'ignore' },
    );
    const key = readFileSync(join(dir, 'key.pem'), 'utf8');
    const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    const der = createPublicKey(cert).export({ type: 'spki', format: 'der' });
    return { key, cert, spki: createHash('sha256').update(der).digest('base64') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const PAGE_DIR = fileURLToPath(new URL('./page/', import.meta.url));

export interface FakeWhatsAppWebOptions {
  /** Where the backend listens (default 127.0.0.1; a Chromium on another host needs a trusted origin, README). */
  readonly host?: string;
  /** How often an unpaired page gets a new QR ref (default 20 s, as WhatsApp Web; 0: never). */
  readonly refEveryMs?: number;
  /**
   * The page's backend on `wss://` with a certificate of its own (Chromium trusts its key alone,
   * `browserFlags`): a page on https may open plain `ws://` only to loopback, so a Chromium in a
   * pod, reaching the backend at the host's address, needs this.
   */
  readonly tls?: boolean;
}

/** One page connected to the backend: a browser running the fake. */
interface PageLink {
  readonly socket: WebSocket;
  ref: string | null;
  phone: FakeWebPhone | null;
  codeFor: string | null;
}

type PageMessage = { type: string; rid?: number; [key: string]: unknown };

/**
 * A fake WhatsApp Web for the browser engines: it serves the page that Chromium loads in place of
 * web.whatsapp.com (the engine fetches it as its web version, `versionUrl`), and it is that
 * page's backend: each page opens a WebSocket back to it. The test plays the phone through it:
 * scans the QR code the library read from the page, types a pairing code, writes from contacts,
 * sends receipts, unlinks the device; and reads what the page did (sends, read receipts).
 * The libraries run unmodified; only WhatsApp Web is ours (page/, README.md).
 */
export class FakeWhatsAppWeb {
  readonly version = FAKE_WEB_VERSION;
  private readonly pages = new Set<PageLink>();
  /** Every paired device's token, to its phone (a token that is gone was unlinked). */
  private readonly logins = new Map<string, FakeWebPhone>();
  private readonly phones = new Map<string, FakeWebPhone>();
  private readonly codes = new Map<string, { page: PageLink; phoneNumber: string }>();
  private readonly timer: NodeJS.Timeout | null;

  private constructor(
    private readonly servers: readonly Server[],
    private readonly sockets: WebSocketServer,
    readonly url: string,
    /** Where the page opens its WebSocket (`ws://`, or `wss://` with `tls`). */
    readonly backendUrl: string,
    /** The Chromium flags this fake needs, beyond the engine's. */
    readonly browserFlags: readonly string[],
    refEveryMs: number,
  ) {
    sockets.on('connection', (socket) => this.connect(socket));
    this.timer = refEveryMs > 0 ? setInterval(() => this.rotateRefs(), refEveryMs) : null;
  }

  static async start(options: FakeWhatsAppWebOptions = {}): Promise<FakeWhatsAppWeb> {
    let fake: FakeWhatsAppWeb | null = null;
    const server = createServer((request, response) => {
      if (request.url === `/web/${FAKE_WEB_VERSION}.html` && fake) {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(fake.html());
        return;
      }
      response.writeHead(404).end();
    });
    const host = options.host ?? '127.0.0.1';
    const listen = async (listener: Server): Promise<AddressInfo> => {
      await new Promise<void>((resolve) => listener.listen(0, host, resolve));
      return listener.address() as AddressInfo;
    };
    const { address, port } = await listen(server);
    const url = `http://${address}:${port}`;
    let sockets: WebSocketServer;
    if (options.tls) {
      const { key, cert, spki } = selfSignedCertificate(address);
      const secure = createHttpsServer({ key, cert });
      sockets = new WebSocketServer({ server: secure, path: '/page' });
      const tlsPort = (await listen(secure)).port;
      const flags = [...FAKE_WEB_BROWSER_FLAGS, `--ignore-certificate-errors-spki-list=${spki}`];
      fake = new FakeWhatsAppWeb([server, secure], sockets, url, `wss://${address}:${tlsPort}/page`, flags, options.refEveryMs ?? 20_000);
    } else {
      sockets = new WebSocketServer({ server, path: '/page' });
      fake = new FakeWhatsAppWeb([server], sockets, url, `ws://${address}:${port}/page`, FAKE_WEB_BROWSER_FLAGS, options.refEveryMs ?? 20_000);
    }
    return fake;
  }

  /** The web version cache URL the engine is given (SWITCHBOARD_WEBJS_WEB_VERSION_URL). */
  get versionUrl(): string {
    return `${this.url}/web/{version}.html`;
  }

  /**
   * What a browser engine pod (WEBJS, WPP) is given to run on this fake, as the engine reads it
   * from its environment: the page as the pinned web version, and the Chromium flags it needs.
   */
  engineEnv(): Record<string, string> {
    return {
      SWITCHBOARD_WEBJS_WEB_VERSION: this.version,
      SWITCHBOARD_WEBJS_WEB_VERSION_URL: this.versionUrl,
      SWITCHBOARD_CHROMIUM_EXTRA_FLAGS: this.browserFlags.join(' '),
    };
  }

  /** The WEBJS engine's options for this fake: its page as the pinned web version, the flags it needs, profiles in `dataDir`. */
  webjsOptions(dataDir: string): WebjsOptions {
    return {
      ...DEFAULT_WEBJS_OPTIONS,
      dataDir,
      browserFlags: [...DEFAULT_WEBJS_OPTIONS.browserFlags, ...this.browserFlags],
      webVersion: { version: this.version, url: this.versionUrl },
    };
  }

  /** The page: its scripts, in file order, after the backend's address and the version. */
  html(): string {
    const scripts = readdirSync(PAGE_DIR)
      .filter((file) => file.endsWith('.js'))
      .sort()
      .map((file) => `// ---- ${file}\n${readFileSync(PAGE_DIR + file, 'utf8')}`)
      .join('\n');
    const config = { backend: this.backendUrl, version: this.version };
    return `<!doctype html><html><head><meta charset="utf-8"><title>WhatsApp</title><script>window.__FAKE_WEB__ = ${JSON.stringify(config)};\n${scripts}</script></head><body><div id="app"></div></body></html>`;
  }

  /** The phone of a number: the account it plays (one per number). */
  phone(account: FakeWebAccount): FakeWebPhone {
    let phone = this.phones.get(account.id);
    if (!phone) {
      phone = new FakeWebPhone(account, (message) => this.toPagesOf(phone!, message));
      this.phones.set(account.id, phone);
    }
    return phone;
  }

  /** The refs of the pages showing a QR code now. */
  refs(): string[] {
    return [...this.pages].flatMap((page) => (page.ref && !page.phone ? [page.ref] : []));
  }

  /** The phone scans a QR code (`ref,noiseKey,identityKey,advSecret,platform`): the page showing that ref is paired. */
  async scanQr(qr: string, account: FakeWebAccount = { id: '15550001111@c.us', pushName: 'Fake Web' }): Promise<FakeWebPhone> {
    const ref = qr.split(',')[0];
    const page = [...this.pages].find((candidate) => candidate.ref === ref && !candidate.phone);
    if (!page) throw new Error(`no page shows the QR ref ${ref} (showing: ${this.refs().join(', ') || 'none'})`);
    return this.pair(page, this.phone(account));
  }

  /** The phone types the pairing code a page asked for (auth.requestCode): that page is paired. */
  async enterCode(code: string, account?: FakeWebAccount): Promise<FakeWebPhone> {
    // The phone takes the code with or without the dash WhatsApp shows in it.
    code = code.replace('-', '');
    const request = this.codes.get(code);
    if (!request) throw new Error(`no page asked for the code ${code}`);
    this.codes.delete(code);
    return this.pair(request.page, this.phone(account ?? { id: `${request.phoneNumber}@c.us`, pushName: 'Fake Web' }));
  }

  /** The pairing codes pages asked for, with the number each named. */
  codeRequests(): { code: string; phoneNumber: string }[] {
    return [...this.codes].map(([code, { phoneNumber }]) => ({ code, phoneNumber }));
  }

  /** The phone unlinks every device of its account (Linked devices, Log out). */
  unlink(phone: FakeWebPhone): void {
    for (const [token, owner] of this.logins) if (owner === phone) this.logins.delete(token);
    for (const page of this.pages) {
      if (page.phone !== phone) continue;
      page.phone = null;
      this.send(page, { type: 'unlinked' });
    }
  }

  /** Pages connected now, and how many of them are signed in. */
  connected(): { pages: number; signedIn: number } {
    const pages = [...this.pages];
    return { pages: pages.length, signedIn: pages.filter((page) => page.phone).length };
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    for (const page of this.pages) page.socket.terminate();
    await new Promise<void>((resolve) => this.sockets.close(() => resolve()));
    for (const server of this.servers) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private pair(page: PageLink, phone: FakeWebPhone): FakeWebPhone {
    const token = randomBytes(16).toString('hex');
    this.logins.set(token, phone);
    page.phone = phone;
    page.ref = null;
    this.send(page, { type: 'signed-in', token, me: phone.account });
    return phone;
  }

  private connect(socket: WebSocket): void {
    const page: PageLink = { socket, ref: null, phone: null, codeFor: null };
    this.pages.add(page);
    socket.on('close', () => this.pages.delete(page));
    // The page sends text frames, which ws hands over as one Buffer.
    socket.on('message', (data: Buffer) => {
      let message: PageMessage;
      try {
        message = JSON.parse(data.toString('utf8')) as PageMessage;
      } catch {
        return;
      }
      try {
        const result = this.handle(page, message);
        if (message.rid !== undefined) this.send(page, { type: 'reply', rid: message.rid, result: result ?? null });
      } catch (error) {
        if (message.rid !== undefined) this.send(page, { type: 'reply', rid: message.rid, error: (error as Error).message });
      }
    });
  }

  private handle(page: PageLink, message: PageMessage): unknown {
    switch (message.type) {
      case 'hello': {
        const phone = typeof message.token === 'string' ? this.logins.get(message.token) : undefined;
        if (phone) {
          page.phone = phone;
          this.send(page, { type: 'signed-in', token: message.token, me: phone.account });
        } else this.showQr(page);
        return undefined;
      }
      case 'refresh-qr':
        if (!page.phone) this.showQr(page);
        return undefined;
      case 'request-code': {
        const code = randomBytes(4).toString('hex').toUpperCase();
        this.codes.set(code, { page, phoneNumber: String(message.phoneNumber) });
        return code;
      }
      case 'logout':
        if (page.phone) {
          for (const [token, owner] of this.logins) if (owner === page.phone) this.logins.delete(token);
          page.phone.loggedOut = true;
        }
        page.phone = null;
        return undefined;
      default: {
        if (!page.phone) throw new Error(`${message.type}: the page is not signed in`);
        return page.phone.fromPage(message);
      }
    }
  }

  private showQr(page: PageLink): void {
    page.ref = `2@${randomBytes(24).toString('base64')}`;
    this.send(page, { type: 'unpaired', ref: page.ref });
  }

  private rotateRefs(): void {
    for (const page of this.pages) {
      if (page.phone || !page.ref) continue;
      page.ref = `2@${randomBytes(24).toString('base64')}`;
      this.send(page, { type: 'ref', ref: page.ref });
    }
  }

  private toPagesOf(phone: FakeWebPhone, message: Record<string, unknown>): number {
    let reached = 0;
    for (const page of this.pages) {
      if (page.phone !== phone) continue;
      this.send(page, message);
      reached++;
    }
    return reached;
  }

  private send(page: PageLink, message: Record<string, unknown>): void {
    page.socket.send(JSON.stringify(message));
  }
}
