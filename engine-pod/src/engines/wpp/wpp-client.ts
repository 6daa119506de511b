import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { type WebjsOptions, webjsLaunchOptions } from '../webjs/client-factory.js';
import type { EngineLog } from '../../engine.js';
import { type Winston, wppLogger } from './wpp-log.js';
import type { WppCallsClient } from './wpp-calls.js';
import type { WppChannelsClient } from './wpp-channels.js';
import type { WppChatsClient } from './wpp-chats.js';
import type { WppChattingClient } from './wpp-chatting.js';
import type { WppContactsClient } from './wpp-contacts.js';
import type { WppEventMessagesClient } from './wpp-event-messages.js';
import type { WppGroupsClient } from './wpp-groups.js';
import type { WppLabelsClient } from './wpp-labels.js';
import type { WppMediaClient } from './wpp-media.js';
import type { WppProfileClient } from './wpp-profile.js';
import type { WppPresenceClient } from './wpp-presence.js';
import type { WppMessage } from './wpp-messages.js';
import type { WppSendOptions } from './wpp-send-options.js';

/** WPPConnect's socket states (`WPP.whatsapp.Socket.state`) that matter here. */
export type WppSocketState = 'OPENING' | 'PAIRING' | 'UNPAIRED' | 'UNPAIRED_IDLE' | 'CONNECTED' | 'TIMEOUT' | 'CONFLICT' | (string & {});

/** The slice of puppeteer's Page the engine reads. */
export interface WppPage {
  evaluate<T>(fn: () => T | Promise<T>): Promise<T>;
  evaluate<T, A>(fn: (arg: A) => T | Promise<T>, arg: A): Promise<T>;
  browser(): WppBrowser;
  isClosed(): boolean;
  screenshot(options: { type: 'png' }): Promise<Uint8Array>;
}

export interface WppBrowser {
  close(): Promise<void>;
  process(): import('node:child_process').ChildProcess | null;
  once(event: 'disconnected', listener: () => void): unknown;
  readonly connected: boolean;
}

/** The slice of WPPConnect's `Whatsapp` client the engine uses. */
export interface WppClientLike
  extends
    WppChattingClient,
    WppMediaClient,
    WppChatsClient,
    WppContactsClient,
    WppProfileClient,
    WppLabelsClient,
    WppGroupsClient,
    WppCallsClient,
    WppChannelsClient,
    WppPresenceClient,
    WppEventMessagesClient {
  readonly page: WppPage;
  onStateChange(callback: (state: WppSocketState) => void): unknown;
  waitForPageLoad(): Promise<void>;
  /** The WhatsApp Web version the page runs (`window.Debug.VERSION`, through WAPI), once it has loaded. */
  getWAVersion(): Promise<string>;
  getWid(): Promise<string | undefined>;
  /** Every new message of the account's chats, its own included (sent here or on the phone). */
  onAnyMessage(callback: (message: WppMessage) => void): { dispose(): void };
  /** An own message's ack advanced: the message in its new state. */
  onAck(callback: (message: WppMessage) => void): unknown;
  sendText(to: string, content: string, options?: WppSendOptions): Promise<WppMessage>;
  sendLocation(to: string, options: WppLocationOptions): Promise<{ id: string; ack: number }>;
  getMessageById(id: string): Promise<WppMessage>;
  sendSeen(chatId: string): Promise<unknown>;
  startTyping(chatId: string): Promise<unknown>;
  stopTyping(chatId: string): Promise<unknown>;
  logout(): Promise<boolean>;
  close(): Promise<boolean>;
}

export interface WppLocationOptions {
  readonly lat: number;
  readonly lng: number;
  readonly name?: string;
  readonly messageId?: string;
}

/** What the client reports before `create` resolves: the QR code's text as WhatsApp Web draws it; and WPPConnect's log. */
export interface WppCallbacks {
  qr(code: string): void;
  readonly log: EngineLog;
}

/** WhatsApp Web's Local Storage, as saved with the session's login (page-storage.ts). */
export type PageStorage = Readonly<Record<string, string>>;

/** The libraries, loaded on first use: a gateway without WPP sessions never loads them. */
interface WppModules {
  readonly create: (options: Record<string, unknown>) => Promise<WppClientLike>;
  readonly launch: (options: Record<string, unknown>) => Promise<WppLaunchedBrowser>;
  readonly winston: Winston;
}

interface WppLaunchedBrowser extends WppBrowser {
  pages(): Promise<WppLaunchedPage[]>;
  newPage(): Promise<WppLaunchedPage>;
}

interface WppRequest {
  url(): string;
  respond(response: { status: number; contentType: string; body: string }): Promise<void>;
  continue(): Promise<void>;
}

interface WppLaunchedPage extends WppPage {
  setRequestInterception(on: boolean): Promise<void>;
  evaluateOnNewDocument<A>(fn: (arg: A) => void, arg: A): Promise<unknown>;
  on(event: 'request', listener: (request: WppRequest) => void): unknown;
}

let modules: Promise<WppModules> | null = null;

function loadModules(): Promise<WppModules> {
  modules ??= (async () => {
    const wppconnect = (await import('@wppconnect-team/wppconnect')) as unknown as { create: WppModules['create'] };
    // WPPConnect's own puppeteer and winston (its logger type), not ours: the versions it was built with.
    const fromWpp = createRequire(createRequire(import.meta.url).resolve('@wppconnect-team/wppconnect'));
    const puppeteer = fromWpp('puppeteer') as { launch: WppModules['launch'] };
    const winston = fromWpp('winston') as Winston;
    return { create: wppconnect.create, launch: puppeteer.launch.bind(puppeteer), winston };
  })();
  return modules;
}

/**
 * Launches our chromium (never a downloaded one) on the session's profile and hands its page to
 * WPPConnect, which loads WhatsApp Web in it and injects wa-js, unmodified. A pinned web version
 * (`options.webVersion`) is fetched here and answered for https://web.whatsapp.com/ by request
 * interception, as whatsapp-web.js's remote version cache does for WEBJS; anything else the page
 * asks for then fails, offline. Unpinned, the page is whatever web.whatsapp.com serves.
 */
export async function createWppClient(
  options: WebjsOptions,
  profileDir: string,
  callbacks: WppCallbacks,
  storage: PageStorage | null,
): Promise<WppClientLike> {
  await access(options.chromiumPath, constants.X_OK).catch(() => {
    throw new Error(
      `WPP needs chromium at ${options.chromiumPath}: install Debian's chromium-headless-shell (scripts/ensure-chromium.sh) or set SWITCHBOARD_CHROMIUM_PATH`,
    );
  });
  const { create, launch, winston } = await loadModules();
  const pinnedPage = options.webVersion ? await fetchPinnedPage(options.webVersion) : null;
  const browser = await launch({ ...webjsLaunchOptions(options), userDataDir: profileDir });
  try {
    const page = (await browser.pages())[0] ?? (await browser.newPage());
    if (storage) await page.evaluateOnNewDocument(seedPageStorage, storage);
    if (pinnedPage !== null) {
      await page.setRequestInterception(true);
      page.on('request', (request) => {
        if (request.url() === 'https://web.whatsapp.com/') void request.respond({ status: 200, contentType: 'text/html', body: pinnedPage });
        else void request.continue();
      });
    }
    return await create({
      session: 'switchboard',
      page,
      // Empty: no version of the library's own catalogue is forced on the page (ours is pinned above, or none).
      whatsappVersion: '',
      // `create` returns once the page is loaded; the login goes on and is watched by the engine.
      waitForLogin: false,
      autoClose: 0,
      deviceSyncTimeout: 0,
      disableWelcome: true,
      updatesLog: false,
      logQR: false,
      logger: wppLogger(winston, callbacks.log),
      catchQR: (_image: string, _ascii: string, _attempt: number, code: string) => callbacks.qr(code),
    });
  } catch (error) {
    await browser.close().catch(() => {});
    throw error;
  }
}

async function fetchPinnedPage(webVersion: NonNullable<WebjsOptions['webVersion']>): Promise<string> {
  const url = webVersion.url.replaceAll('{version}', webVersion.version);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`the pinned WhatsApp Web page ${url} answered ${response.status}`);
  return response.text();
}

/**
 * Runs in the page before WhatsApp Web's scripts: a Local Storage that Chromium lost (it writes it
 * to disk seconds after the page does, and not at all when closed sooner) is put back from the
 * copy saved with the login. A Local Storage that is there is left as it is: it is as new.
 */
function seedPageStorage(storage: PageStorage): void {
  const { location, localStorage } = globalThis as unknown as BrowserGlobals;
  if (location.origin !== 'https://web.whatsapp.com' || localStorage.length > 0) return;
  for (const [key, value] of Object.entries(storage)) localStorage.setItem(key, value);
}

/** What a function run in the page reads of it (this package is compiled without the DOM's types). */
export interface BrowserGlobals {
  readonly location: { readonly origin: string };
  readonly localStorage: { readonly length: number; setItem(key: string, value: string): void } & Record<string, string>;
}
