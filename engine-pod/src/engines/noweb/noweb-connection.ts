import { describeRefusal } from '@switchboard/kube/pod';
import { type MeInfo, type RequestCodeRequest, silenceReason } from '@switchboard/protocol';
import makeWASocket, { type BaileysEventMap, DisconnectReason } from '@whiskeysockets/baileys';
import { CommandError, reasonOf } from '../../command-error.js';
import { currentQr, refuseNumberRegistration } from '../../capabilities/pairing.js';
import type { EngineContext } from '../../engine.js';
import { blockedAddressOf } from '../../outbound/guarded-lookup.js';
import { BaileysAuthState } from './auth-state.js';
import { nowebVersions, presentedClientVersion, waVersion } from './client-version.js';
import { formatPairingCode, toContactId } from './jids.js';
import type { NowebLabels } from './labels.js';
import type { Account } from './outgoing.js';
import type { MediaUpload } from './outgoing-content.js';
import { CLIENT_VERSION_VARIABLE, type NowebOptions } from './options.js';
import { keepRetryCacheOutOfTransactions } from './retry-cache-context.js';
import { keepAliveIntervalFor, SilenceWatch } from './silence-watch.js';
import { socketSettings } from './socket-settings.js';

export type WASocket = ReturnType<typeof makeWASocket>;

/** How long WORKING waits for the push name of a just-paired account (see NowebEngine.opened). */
const PUSH_NAME_WAIT_MS = 1_500;

/** Closes after which reconnecting cannot help: the device was unlinked, replaced or refused, or its client version retired. */
/** The library's reasons are an enum; the status code we read from its error is a number. */
const LOGGED_OUT: number = DisconnectReason.loggedOut;
/** The service's connect failure for a client version it has retired ("client outdated"). */
const CLIENT_OUTDATED = 405;
/** The message of the error Baileys ends a socket with when its keep-alive pings got no answer. */
const KEEP_ALIVE_LOST = 'Connection was lost';
const FINAL: ReadonlySet<number> = new Set([
  CLIENT_OUTDATED,
  DisconnectReason.loggedOut,
  DisconnectReason.forbidden,
  DisconnectReason.multideviceMismatch,
  DisconnectReason.connectionReplaced,
]);

/** What the connection hands the engine: each batch of the library's events, and the label book it keeps with the auth state. */
export interface NowebConnectionHooks {
  /** A batch of the library's events, as it comes (the contacts book reads them here). */
  observe(events: Partial<BaileysEventMap>): void;
  /** The same batch, translated into the interface's events one batch at a time, in order. */
  translate(events: Partial<BaileysEventMap>): Promise<void>;
  /** The labels, kept with the auth state: the library keeps none. */
  readonly labels: Pick<NowebLabels, 'restore' | 'stored' | 'forget'>;
}

/**
 * NOWEB's connection lifecycle: the Baileys socket and its credentials, pairing (QR code or
 * phone code), WORKING once the account is known, reconnects (at once when the server asks for a
 * restart, with backoff after a drop), the closes after which reconnecting cannot help, stop and
 * logout. The operations (noweb-engine.ts and the area files) reach the account through it.
 */
export class NowebConnection {
  private auth: BaileysAuthState | null = null;
  private socket: WASocket | null = null;
  private qrValue: string | null = null;
  /** The WhatsApp Web version this start presents, fixed for its connection attempts. */
  private clientVersion = '';
  private working = false;
  private stopped = false;
  private attempts = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  /** Set while WORKING waits for the account's push name (see `opened`). */
  private workingTimer: NodeJS.Timeout | null = null;
  private queue: Promise<void> = Promise.resolve();
  /** Set when the session's labels must be fetched again once connected (startLabelBook). */
  private labelsToFetch = false;
  /** Watches the open connection for silence (silence-watch.ts); null while not open. */
  private silenceWatch: SilenceWatch | null = null;
  /** The socket this engine ended because it went silent: its close is reported as such. */
  private silenced: WASocket | null = null;

  constructor(
    private readonly context: EngineContext,
    private readonly options: NowebOptions,
    private readonly hooks: NowebConnectionHooks,
  ) {}

  async start(): Promise<void> {
    this.clientVersion = presentedClientVersion(this.context.settings, this.options.clientVersion);
    this.context.setVersions(nowebVersions(this.clientVersion));
    this.auth = await BaileysAuthState.load(this.context.authState);
    const labels = await this.auth.labels();
    this.hooks.labels.restore(labels);
    if (labels === undefined) await this.startLabelBook(this.auth);
    if (!this.stopped) this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.disconnect();
    await this.queue;
    await this.auth?.flush();
  }

  async logout(): Promise<void> {
    this.stopped = true;
    const socket = this.socket;
    if (socket && this.working) {
      // Unlinks the device on the phone's side too; the socket then closes itself.
      await socket.logout().catch((error: unknown) => this.context.log.warn({ session: this.context.session, err: error }, 'NOWEB logout'));
    }
    await this.disconnect();
    await this.queue;
    if (this.auth) await this.auth.clear();
    else await this.context.authState.clear();
    this.hooks.labels.forget();
    this.context.setMe(null);
  }

  qr(): string {
    return currentQr(this.context.session, this.qrValue);
  }

  async requestCode(request: RequestCodeRequest): Promise<{ code: string }> {
    refuseNumberRegistration('NOWEB', this.context.session, request);
    const code = await this.requireSocket()
      .requestPairingCode(request.phoneNumber)
      .catch((error: unknown) => {
        throw new CommandError('ENGINE_ERROR', `NOWEB could not ask for a pairing code: ${reasonOf(error)}`);
      });
    return { code: formatPairingCode(code) };
  }

  /** The socket while connected, or null (a received file downloads through it if it can). */
  currentSocket(): WASocket | null {
    return this.socket;
  }

  /** The account's phone-number jid, once paired. */
  meJid(): string | undefined {
    return this.auth?.creds.me?.id;
  }

  /** The account's own addresses: its phone-number jid, then its LID. */
  meJids(): string[] {
    return [this.auth?.creds.me?.id, this.auth?.creds.me?.lid].filter((jid): jid is string => !!jid);
  }

  /** Settles once every event batch received so far is translated. */
  translated(): Promise<void> {
    return this.queue;
  }

  /** Keeps the label book with the auth state; a failure is logged, the book kept in memory. */
  saveLabels(labels: Parameters<BaileysAuthState['saveLabels']>[0]): void {
    void this.auth?.saveLabels(labels).catch((error: unknown) => {
      this.context.log.error({ session: this.context.session, err: error }, 'NOWEB could not save its labels');
    });
  }

  private connect(): void {
    const auth = this.auth!;
    const socket = makeWASocket({
      auth: auth.state,
      waWebSocketUrl: this.options.waUrl,
      logger: this.options.logger,
      ...socketSettings(this.context.settings, this.options),
      keepAliveIntervalMs: keepAliveIntervalFor(this.options.silenceTimeoutMs),
      version: waVersion(this.clientVersion),
      ...(this.options.qrTimeoutMs ? { qrTimeout: this.options.qrTimeoutMs } : {}),
    });
    keepRetryCacheOutOfTransactions(socket);
    this.socket = socket;
    socket.ev.process((events) => {
      if (this.socket !== socket) return;
      if (events['creds.update']) this.credsUpdated();
      if (events['connection.update']) this.connectionUpdated(socket, events['connection.update']);
      this.hooks.observe(events);
      this.queue = this.queue
        .then(() => this.hooks.translate(events))
        .catch((error: unknown) => {
          this.context.log.error({ session: this.context.session, err: error }, 'NOWEB event translation failed');
        });
    });
  }

  private credsUpdated(): void {
    void this.auth?.saveCreds().catch((error: unknown) => {
      this.context.log.error({ session: this.context.session, err: error }, 'NOWEB could not save its credentials');
    });
    const me = this.me();
    if (this.working && me) this.context.setMe(me);
    if (this.workingTimer && me?.pushName) this.announceWorking();
  }

  private connectionUpdated(socket: WASocket, update: BaileysEventMap['connection.update']): void {
    if (update.qr) {
      // A QR code means the server is reachable: when the codes run out, reconnect without backoff.
      this.attempts = 0;
      this.qrValue = update.qr;
      this.context.setStatus('SCAN_QR_CODE');
    }
    if (update.connection === 'open') {
      this.attempts = 0;
      this.qrValue = null;
      this.working = true;
      this.watchSilence(socket);
      this.opened();
    }
    if (update.connection === 'close') this.closed(socket, update.lastDisconnect?.error);
  }

  /**
   * A session without a label book: a new device learns every label in its first app state sync,
   * so its book starts empty now. One paired before the engine kept a book (its labels already
   * synced, never to come again) fetches the labels' collection once more from the start, once connected.
   */
  private async startLabelBook(auth: BaileysAuthState): Promise<void> {
    if (!auth.isPaired) {
      await auth.saveLabels(this.hooks.labels.stored());
      return;
    }
    this.labelsToFetch = true;
    await auth.state.keys.set({ 'app-state-sync-version': { regular: null } });
  }

  private fetchLabels(socket: WASocket): void {
    this.labelsToFetch = false;
    void socket
      .resyncAppState(['regular'], false)
      .then(async () => {
        await this.queue;
        await this.auth?.saveLabels(this.hooks.labels.stored());
      })
      .catch((error: unknown) => {
        // Tried again at the next start: the book is still not kept.
        this.context.log.warn({ session: this.context.session, err: error }, 'NOWEB could not fetch its labels');
      });
  }

  /**
   * Right after a pairing the push name comes in the phone's first sync, often just after the
   * connection opens. WORKING waits for it a moment, so that its session.status names the account
   * (`me.pushName`), and goes ahead without it after PUSH_NAME_WAIT_MS.
   */
  private opened(): void {
    if (this.labelsToFetch && this.socket) this.fetchLabels(this.socket);
    const me = this.me();
    this.context.setMe(me);
    if (me?.pushName) this.announceWorking();
    else this.workingTimer = setTimeout(() => this.announceWorking(), PUSH_NAME_WAIT_MS);
  }

  private watchSilence(socket: WASocket): void {
    this.silenceWatch?.stop();
    this.silenceWatch = new SilenceWatch(socket, this.options.silenceTimeoutMs, (silentForMs) => {
      if (this.socket !== socket || this.stopped) return;
      this.silenced = socket;
      void socket.end(new Error(`nothing received for ${silentForMs} ms`));
    });
  }

  private announceWorking(): void {
    this.clearWorkingTimer();
    if (this.working && !this.stopped) this.context.setStatus('WORKING');
  }

  private clearWorkingTimer(): void {
    if (this.workingTimer) clearTimeout(this.workingTimer);
    this.workingTimer = null;
  }

  private closed(socket: WASocket, error: Error | undefined): void {
    if (this.socket !== socket) return;
    this.silenceWatch?.stop();
    this.silenceWatch = null;
    // Ended by the watch, or by Baileys' own keep-alive check (nothing received for its interval + 5 s).
    const silent = this.silenced === socket || error?.message === KEEP_ALIVE_LOST;
    this.silenced = null;
    this.clearWorkingTimer();
    this.socket = null;
    this.qrValue = null;
    const wasWorking = this.working;
    this.working = false;
    if (this.stopped) return;
    // Baileys keeps the websocket's own error in `data`. A proxy the outbound address policy
    // refuses stays refused: FAILED at once, no retry dials it either.
    const blocked = blockedAddressOf((error as { data?: unknown } | undefined)?.data ?? error);
    if (blocked) {
      this.context.log.warn({ session: this.context.session, err: error }, 'NOWEB proxy refused by the outbound address policy');
      this.attempts = 0;
      this.context.setStatus('FAILED', `blocked_address: the proxy ${describeRefusal(blocked)}`);
      return;
    }
    const code = (error as { output?: { statusCode?: number } } | undefined)?.output?.statusCode;
    if (code !== undefined && FINAL.has(code)) {
      this.context.log.warn({ session: this.context.session, code, err: error }, 'NOWEB connection ended for good');
      // Unlinked on the phone: the credentials are worthless, the next start shows a QR code.
      const forget = code === LOGGED_OUT ? this.auth!.clear() : Promise.resolve();
      void forget.then(() => {
        if (code === LOGGED_OUT) this.context.setMe(null);
        this.context.setStatus('FAILED', finalReason(code, this.clientVersion));
      });
      return;
    }
    if (code === DisconnectReason.restartRequired) {
      this.connect();
      return;
    }
    if (wasWorking && silent) {
      this.context.log.warn(
        { session: this.context.session, timeoutMs: this.options.silenceTimeoutMs, error: error?.message },
        'NOWEB connection went silent (open, nothing received); reconnecting',
      );
    }
    if (wasWorking) this.context.setStatus('STARTING', silent ? silenceReason(this.options.silenceTimeoutMs) : undefined);
    // A connection that worked until now is no failed attempt: only reconnects that fail count
    // toward connectAttempts (with one allowed, a lost or silent connection still reconnects).
    if (!wasWorking) this.attempts += 1;
    if (this.attempts >= this.options.connectAttempts) {
      const reason = `could not connect to ${this.options.waUrl} in ${this.attempts} attempts in a row (last: ${error?.message ?? 'closed'})`;
      this.context.log.warn({ session: this.context.session, attempts: this.attempts, err: error }, 'NOWEB gives up connecting');
      // Start or restart tries again, from the first attempt.
      this.attempts = 0;
      this.context.setStatus('FAILED', reason);
      return;
    }
    const delayMs = this.options.reconnectDelayMs(Math.max(1, this.attempts));
    // The message alone: an expected failure each time, a stack would only bury it.
    this.context.log.warn(
      {
        session: this.context.session,
        url: this.options.waUrl,
        attempt: this.attempts,
        of: this.options.connectAttempts,
        retryInMs: delayMs,
        error: error?.message ?? 'closed',
      },
      wasWorking ? 'NOWEB lost its connection; reconnecting' : 'NOWEB could not connect; trying again',
    );
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (!this.stopped) this.connect();
    }, delayMs);
  }

  private async disconnect(): Promise<void> {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.clearWorkingTimer();
    this.silenceWatch?.stop();
    this.silenceWatch = null;
    const socket = this.socket;
    this.socket = null;
    this.working = false;
    this.qrValue = null;
    if (socket) await socket.end(undefined);
  }

  /** The account as the interface shows it: `<number>@c.us` and its push name. */
  me(): MeInfo | null {
    const me = this.auth?.creds.me;
    if (!me?.id || !this.auth?.isPaired) return null;
    return { id: toContactId(me.id), pushName: me.name ?? me.notify ?? '' };
  }

  requireSocket(): WASocket {
    if (!this.socket) throw new CommandError('WRONG_STATUS', `session '${this.context.session}' is not connected`);
    return this.socket;
  }

  /** The socket and account while WORKING, for sending. */
  live(): Account {
    const me = this.me();
    const socket = this.socket;
    const creds = this.auth?.creds.me;
    if (!this.working || !me || !socket || !creds) {
      throw new CommandError('WRONG_STATUS', `session '${this.context.session}' is not connected; this needs WORKING`, {
        session: this.context.session,
        expected: ['WORKING'],
      });
    }
    return { socket, me, jid: creds.id, lid: creds.lid ?? null };
  }

  /** Files go to the media host the server names (`media_conn`), through the library's upload. */
  mediaUpload(): MediaUpload {
    return { session: this.context.session, upload: this.live().socket.waUploadToServer, logger: this.options.logger };
  }
}

/**
 * Why a close after which reconnecting cannot help failed the session. A retired client version
 * says which and what to change (GOWS says the same, engines/gows/internal/engine/versions.go).
 */
function finalReason(code: number, clientVersion: string): string {
  if (code === CLIENT_OUTDATED) {
    return `client_outdated: the service refused client version ${clientVersion} (405); set another with config.clientVersion or ${CLIENT_VERSION_VARIABLE}`;
  }
  return `the server ended the connection for good (${DisconnectReason[code] ?? code})`;
}
