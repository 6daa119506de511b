import type { MeInfo, MessageRecord, RequestCodeRequest, SessionStatus } from '@switchboard/protocol';
import { join } from 'node:path';
import type { MediaFile } from '../../media/media-store.js';
import { CommandError } from '../../command-error.js';
import { notSupported } from '../../command-rules.js';
import type { EngineContext } from '../../engine.js';
import type { WebjsOptions } from '../webjs/client-factory.js';
import { ApiSendGate } from '../webjs/api-send-gate.js';
import { chromiumExited } from '../webjs/chromium-exit.js';
import { libraryVersion } from '../library-version.js';
import { ProfileSnapshots } from '../webjs/profile-snapshot.js';
import { WppReceivedMedia } from './wpp-media.js';
import { isChatMessage, type WppMessage, wppAckPayload, wppMessageRecord } from './wpp-messages.js';
import { type BrowserGlobals, createWppClient, type PageStorage, type WppCallbacks, type WppClientLike, type WppSocketState } from './wpp-client.js';

/** Socket states after which the device is no longer paired. */
const UNPAIRED = new Set<WppSocketState>(['UNPAIRED', 'UNPAIRED_IDLE']);

export type CreateWppClient = (
  options: WebjsOptions,
  profileDir: string,
  callbacks: WppCallbacks,
  storage: PageStorage | null,
) => Promise<WppClientLike>;

/** Where the copy of WhatsApp Web's Local Storage is kept in the auth-state store, beside the profile. */
const PAGE_STORAGE = { type: 'wpp-page-storage', id: 'web.whatsapp.com' } as const;
/** How long WORKING waits for WPPConnect's page listeners after sign-in (seconds on a loaded machine; none on an idle one). */
const LISTENERS_WAIT_MS = 30_000;

/**
 * WPP's connection lifecycle: WPPConnect's client and its browser, pairing by QR code, WORKING
 * once the page is signed in, the browser profile kept in the auth-state store (so a restart,
 * here or in another pod, resumes without a QR code), the phone unlinking the device, the
 * browser's loss, stop and logout; and the client's message events mapped to spec 6.2's
 * (wpp-messages.ts). The operations (wpp-engine.ts) reach the client through it.
 */
export class WppConnection {
  private client: WppClientLike | null = null;
  private status: SessionStatus = 'STARTING';
  private qrValue: string | null = null;
  private stopped = false;
  private account: MeInfo | null = null;
  private readonly snapshots: ProfileSnapshots;
  private saveTimer: NodeJS.Timeout | null = null;
  private saving: Promise<void> = Promise.resolve();
  /** What an API send made is answered by the send and emitted in order (webjs/api-send-gate.ts). */
  readonly gate = new ApiSendGate();
  private readonly receivedMedia: WppReceivedMedia;
  /** The operations' own listeners (wpp-chatting.ts...), put on each client as it is made. */
  private readonly attachments: ((client: WppClientLike) => void)[] = [];

  constructor(
    readonly context: EngineContext,
    private readonly options: WebjsOptions,
    private readonly createClient: CreateWppClient = createWppClient,
  ) {
    this.snapshots = new ProfileSnapshots(context.authState, join(options.dataDir, context.session));
    this.receivedMedia = new WppReceivedMedia(context);
  }

  /** Returns once WhatsApp Web is loaded in the browser; the login goes on in the background. */
  async start(): Promise<void> {
    await this.snapshots.restore();
    const storage = (await this.context.authState.get<{ items: PageStorage }>(PAGE_STORAGE.type, [PAGE_STORAGE.id]))[PAGE_STORAGE.id];
    const client = await this.createClient(
      this.options,
      this.snapshots.dir,
      { qr: (code) => this.showQr(code), log: this.context.log },
      storage?.items ?? null,
    );
    if (this.stopped) {
      await this.closeBrowser(client);
      return;
    }
    this.client = client;
    this.watchBrowser(client);
    client.onStateChange((state) => this.stateChanged(client, state));
    client.onAnyMessage((message) => this.messageSeen(client, message));
    client.onAck((message) => this.ackSeen(client, message));
    for (const listen of this.attachments) listen(client);
    // A restored profile signs in without a state change worth waiting for: look once the page is up.
    void client.waitForPageLoad().then(
      () => {
        void this.readVersions(client);
        return this.signedInCheck(client);
      },
      (error: unknown) => this.fail(client, 'WhatsApp Web did not load', error),
    );
  }

  /**
   * What this session runs (its `versions`): WPPConnect's package version and the WhatsApp Web
   * version of the page, read once it has loaded, at each start. The status events before it go
   * out without them; a page that cannot say is only logged.
   */
  private async readVersions(client: WppClientLike): Promise<void> {
    try {
      const version = await client.getWAVersion();
      if (!this.isCurrent(client)) return;
      const library = { name: '@wppconnect-team/wppconnect', version: libraryVersion('@wppconnect-team/wppconnect') };
      this.context.setVersions({ library, client: version });
    } catch (error) {
      this.context.log.warn({ session: this.context.session, err: error }, 'WPP could not read the WhatsApp Web version');
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.gate.close();
    this.qrValue = null;
    this.stopSaving();
    const client = this.client;
    const signedIn = client !== null && this.working();
    // Chromium writes Local Storage to disk seconds late: what the page holds now is copied first.
    if (signedIn) await this.copyPageStorage(client);
    await this.closeBrowser(client);
    // Chromium writes the rest of the profile on its way out: saved once it is gone.
    if (signedIn) await this.save();
    else await this.saving;
  }

  /** Unlinks the device when signed in, then forgets the saved login. */
  async logout(): Promise<void> {
    const client = this.client;
    const signedIn = this.status === 'WORKING';
    this.stopped = true;
    this.gate.close();
    this.stopSaving();
    if (client && signedIn) {
      await client.logout().catch((error: unknown) => {
        this.context.log.warn({ session: this.context.session, err: error }, 'WPP could not unlink the device');
      });
    }
    await this.closeBrowser(client);
    await this.saving;
    await this.snapshots.forget();
    this.account = null;
    this.context.setMe(null);
  }

  /**
   * Pairing by a code typed on the phone, asked of wa-js in the page (WPPConnect itself starts
   * that flow only at launch, from its `phoneNumber` option). The code is shown as WhatsApp does.
   */
  async requestCode(request: RequestCodeRequest): Promise<{ code: string }> {
    if (request.method)
      throw notSupported(this.context.session, 'WPP', `pairing by ${request.method} (WhatsApp Web pairs by a code shown on the phone)`);
    const client = this.client;
    if (!client || this.status !== 'SCAN_QR_CODE')
      throw new CommandError('WRONG_STATUS', 'a pairing code is asked for while the session shows a QR code');
    const code = await client.page
      .evaluate((phone) => (globalThis as unknown as WppPageGlobals).WPP.conn.genLinkDeviceCodeForPhoneNumber(phone), request.phoneNumber)
      .catch((error: unknown) => {
        throw new CommandError(
          'ENGINE_ERROR',
          `WhatsApp Web could not make a pairing code: ${error instanceof Error ? error.message : String(error)}`,
        );
      });
    return { code: code.length === 8 ? `${code.slice(0, 4)}-${code.slice(4)}` : code };
  }

  qr(): string {
    if (!this.qrValue) throw new CommandError('WRONG_STATUS', 'no QR code is waiting to be scanned');
    return this.qrValue;
  }

  /** A message came in, or the account sent one (here or on its phone). */
  private messageSeen(client: WppClientLike, message: WppMessage): void {
    if (this.stopped || client !== this.client || !isChatMessage(message)) return;
    const me = this.meId();
    const record = wppMessageRecord(message, 'app', me);
    if (record.fromMe) {
      this.gate.created(record.id, () => this.context.emit('message.any', record));
      return;
    }
    void this.received(client, message, record);
  }

  /** A received message: `message`, then `message.any`, with its file once it is kept (wpp-media.ts). */
  private async received(client: WppClientLike, message: WppMessage, record: MessageRecord): Promise<void> {
    const full = record.hasMedia ? { ...record, media: await this.receivedMedia.of(client, message) } : record;
    if (this.stopped || client !== this.client) return;
    this.context.emit('message', full);
    this.context.emit('message.any', full);
  }

  private ackSeen(client: WppClientLike, message: WppMessage): void {
    if (this.stopped || client !== this.client || !isChatMessage(message)) return;
    const payload = wppAckPayload(message, this.meId());
    if (payload.fromMe) this.gate.updated(payload.id, () => this.context.emit('message.ack', payload));
    else this.context.emit('message.ack', payload);
  }

  /** `listen` is called with each client made from now on, to put its listeners on it. */
  attach(listen: (client: WppClientLike) => void): void {
    this.attachments.push(listen);
  }

  /** Whether an event from `client` is still to be reported: it is this running session's. */
  isCurrent(client: unknown): boolean {
    return !this.stopped && client === this.client;
  }

  /** What the page shows now: the QR code while it waits for a scan, the chats once WORKING. */
  async screenshot(): Promise<MediaFile> {
    const page = this.client && !this.stopped ? this.client.page : null;
    if (!page) throw new CommandError('WRONG_STATUS', `session '${this.context.session}' has no browser page yet; try again in a moment`);
    const png = await page.screenshot({ type: 'png' }).catch((error: unknown) => {
      throw new CommandError('ENGINE_ERROR', `Chromium could not take a screenshot: ${error instanceof Error ? error.message : String(error)}`);
    });
    return { mimetype: 'image/png', filename: 'screenshot.png', data: Buffer.from(png) };
  }

  /** The client of a WORKING session, for an operation; WRONG_STATUS otherwise. */
  workingClient(): WppClientLike {
    if (!this.client || !this.working()) throw new CommandError('WRONG_STATUS', 'the session is not WORKING');
    return this.client;
  }

  /** The account's own id (empty before pairing). */
  meId(): string {
    return this.account?.id ?? '';
  }

  /** The account's own name, as `me` reports it. */
  pushName(): string {
    return this.account?.pushName ?? '';
  }

  /** The account took a new name (profile.setName): `me` says it. */
  renamed(pushName: string): void {
    if (!this.account) return;
    this.account = { ...this.account, pushName };
    this.context.setMe(this.account);
  }

  private showQr(code: string): void {
    if (this.stopped || code === this.qrValue) return;
    this.qrValue = code;
    this.setStatus('SCAN_QR_CODE');
  }

  private stateChanged(client: WppClientLike, state: WppSocketState): void {
    if (this.stopped || client !== this.client) return;
    if (state === 'CONNECTED') void this.signedInCheck(client);
    else if (UNPAIRED.has(state) && this.status === 'WORKING') void this.unlinked(state);
  }

  /** The page is signed in: the account it is signed in as, then WORKING. */
  private async signedInCheck(client: WppClientLike): Promise<void> {
    if (this.stopped || this.status === 'WORKING') return;
    const signedIn = await client.page.evaluate(() => (globalThis as unknown as WppPageGlobals).WPP.conn.isRegistered()).catch(() => false);
    if (!signedIn || this.stopped || this.working()) return;
    const id = await client.getWid().catch(() => undefined);
    // A stop, or another check, may have come while the page answered.
    if (!id || this.stopped || this.working()) return;
    const pushName = await client.page.evaluate(() => (globalThis as unknown as WppPageGlobals).WPP.whatsapp.Conn.pushname ?? '').catch(() => '');
    // WORKING promises the session's events: not before WPPConnect's listeners are in the page.
    if (!(await this.pageListenersReady(client)) || this.stopped || this.working()) return;
    this.qrValue = null;
    this.account = { id, pushName };
    this.context.setMe(this.account);
    this.setStatus('WORKING');
    await this.copyPageStorage(client);
    this.saveTimer = setTimeout(() => this.savePeriodically(), this.options.profileSave.firstAfterMs);
  }

  /**
   * Whether WPPConnect has put its listeners in the page (calls, messages, acks, presence...).
   * It does that after the page is signed in, without waiting for it to be done: it first exposes
   * each callback to the page, one round trip each, then registers them all in one evaluation
   * that marks each `exposed` (listener.layer.js, `afterPageScriptInjected`). A call or message
   * in between reached nobody: on a busy machine, a call right after WORKING was never reported.
   * False when the page closed first; after LISTENERS_WAIT_MS, true with a warning.
   */
  private async pageListenersReady(client: WppClientLike): Promise<boolean> {
    const deadline = Date.now() + LISTENERS_WAIT_MS;
    while (!this.stopped) {
      const ready = await client.page
        .evaluate(() => (globalThis as unknown as { onAnyMessage?: { exposed?: boolean } }).onAnyMessage?.exposed === true)
        .catch(() => null);
      if (ready === null) return false;
      if (ready) return true;
      if (Date.now() > deadline) {
        this.context.log.warn(
          { session: this.context.session, waitedMs: LISTENERS_WAIT_MS },
          "WPP: WPPConnect's page listeners were not in place after sign-in; WORKING now, events until then may be missed",
        );
        return true;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return false;
  }

  /** The phone unlinked this device: the saved login is void, and the next start shows a QR code. */
  private async unlinked(state: WppSocketState): Promise<void> {
    this.stopSaving();
    this.account = null;
    this.context.setMe(null);
    this.setStatus('FAILED', `the device was unlinked (${state})`);
    await this.saving;
    await this.context.authState.clear();
  }

  /** A Chromium that exits (crash, OOM kill) makes the session FAILED, saying so. */
  private watchBrowser(client: WppClientLike): void {
    const browser = client.page.browser();
    browser.once('disconnected', () => this.fail(client, 'the browser closed', new Error('Chromium exited or closed its connection')));
  }

  private fail(client: WppClientLike, reason: string, error: unknown): void {
    if (this.stopped || client !== this.client || this.status === 'FAILED') return;
    this.context.log.warn({ session: this.context.session, err: error }, `WPP: ${reason}`);
    this.stopSaving();
    this.qrValue = null;
    this.setStatus('FAILED', `${reason}: ${error instanceof Error ? error.message : String(error)}`);
  }

  /** Closes the browser and waits for Chromium's process to be gone (webjs/chromium-exit.ts). */
  private async closeBrowser(client: WppClientLike | null): Promise<void> {
    if (!client) return;
    const chromium = client.page.browser().process();
    await client.close().catch(() => false);
    await chromiumExited(chromium);
  }

  private working(): boolean {
    return this.status === 'WORKING';
  }

  private setStatus(status: SessionStatus, reason?: string): void {
    this.status = status;
    this.context.setStatus(status, reason);
  }

  /**
   * Keeps a copy of the page's Local Storage with the login, one write at a time with the profile's
   * (an unlink or logout clears the store after the last of them), and only while signed in.
   */
  private copyPageStorage(client: WppClientLike): Promise<void> {
    this.saving = this.saving.then(async () => {
      if (!this.working()) return;
      const items = await client.page
        .evaluate(() => {
          const { location, localStorage } = globalThis as unknown as BrowserGlobals;
          return location.origin === 'https://web.whatsapp.com' ? Object.fromEntries(Object.entries(localStorage)) : null;
        })
        .catch(() => null);
      if (items && this.working()) await this.context.authState.set({ [PAGE_STORAGE.type]: { [PAGE_STORAGE.id]: { items } } });
    });
    return this.saving;
  }

  private savePeriodically(): void {
    const client = this.client;
    void (client ? this.copyPageStorage(client) : Promise.resolve())
      .then(() => this.save())
      .finally(() => {
        if (this.status === 'WORKING' && !this.stopped) this.saveTimer = setTimeout(() => this.savePeriodically(), this.options.profileSave.everyMs);
      });
  }

  /** One save at a time; a failed save is logged and the previous snapshot stays. */
  private save(): Promise<void> {
    this.saving = this.saving.then(() =>
      this.snapshots.save().catch((error: unknown) => {
        this.context.log.warn({ session: this.context.session, err: error }, 'could not save the WPP login');
      }),
    );
    return this.saving;
  }

  private stopSaving(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = null;
  }
}

/** What the engine reads of wa-js in the page (`window.WPP`). */
interface WppPageGlobals {
  WPP: {
    conn: { isRegistered(): boolean; genLinkDeviceCodeForPhoneNumber(phone: string): Promise<string> };
    whatsapp: { Conn: { pushname?: string } };
  };
}
