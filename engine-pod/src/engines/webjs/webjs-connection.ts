import type { MeInfo, RequestCodeRequest, SessionStatus } from '@switchboard/protocol';
import { CommandError } from '../../command-error.js';
import { notSupported } from '../../command-rules.js';
import type { EngineContext } from '../../engine.js';
import type { MediaFile } from '../../media/media-store.js';
import { libraryVersion } from '../library-version.js';
import { ApiSendGate } from './api-send-gate.js';
import { chromiumExited } from './chromium-exit.js';
import { groupInfo, groupUpdate, members, notificationData, participantsPayload } from './group-mapping.js';
import { ackPayload, editedPayload, messageRecord, pollVotePayload, reactionPayload, revokedPayload } from './message-mapping.js';
import { OwnEchoes } from './own-echo.js';
import { WebjsReceivedMedia } from './received-media.js';
import type { WebjsCall, WebjsClientEvents, WebjsClientLike, WebjsEventName, WebjsGroupNotification, WebjsMessage } from './webjs-client.js';
import { recordId, wid } from './webjs-ids.js';

/** How each client event's arguments are named in `engine.event`; also the events listened to. */
const EVENT_ARGS: Record<WebjsEventName, readonly string[]> = {
  qr: ['qr'],
  code: ['code'],
  authenticated: ['session'],
  auth_failure: ['message'],
  ready: [],
  disconnected: ['reason'],
  change_state: ['state'],
  loading_screen: ['percent', 'message'],
  message: ['message'],
  message_create: ['message'],
  message_ciphertext: ['message'],
  message_ack: ['message', 'ack'],
  message_reaction: ['reaction'],
  message_edit: ['message', 'newBody', 'prevBody'],
  message_revoke_everyone: ['message', 'revokedMessage'],
  message_revoke_me: ['message'],
  group_join: ['notification'],
  group_leave: ['notification'],
  group_admin_changed: ['notification'],
  group_update: ['notification'],
  call: ['call'],
  vote_update: ['vote'],
  chat_archived: ['chat', 'archived', 'before'],
};

/** Client events the page sends only once WhatsApp Web has loaded in it: its version is there to read. */
const PAGE_LOADED = new Set<WebjsEventName>(['qr', 'code', 'authenticated', 'ready']);

/** Disconnect reasons after which the login is gone, not just the connection. */
const LOGIN_LOST = new Set(['LOGOUT', 'UNPAIRED', 'UNPAIRED_IDLE']);

type Handlers = { [E in WebjsEventName]?: (...args: WebjsClientEvents[E]) => void | Promise<void> };

/** What the connection hands the engine's areas: a call that rang (the calls area answers it). */
export interface WebjsConnectionHooks {
  callReceived(call: WebjsCall): void;
}

/**
 * WEBJS's connection lifecycle: the whatsapp-web.js client and its browser, pairing (QR code or
 * phone code), WORKING once the page is ready, the browser's loss, stop and logout, and the
 * client's events mapped to the normalized events of spec 6.2 through pure functions
 * (`message-mapping.ts`, `group-mapping.ts`); every client event also goes out untranslated as
 * `engine.event`. The operations (webjs-engine.ts and the area files) reach the client through it.
 */
export class WebjsConnection {
  private client: WebjsClientLike | null = null;
  private stopped = false;
  private status: SessionStatus = 'STARTING';
  private qrValue: string | null = null;
  private account: MeInfo | null = null;
  /** Whether this start's versions were read from the page (or are being). */
  private versionsRead = false;
  /** What an API send made is answered by the send and emitted in order (api-send-gate.ts). */
  readonly gate = new ApiSendGate();
  /** What an API action made is emitted by that action, not as a client event (own-echo.ts). */
  readonly echoes = new OwnEchoes();
  private readonly receivedMedia: WebjsReceivedMedia;

  constructor(
    private readonly context: EngineContext,
    private readonly createClient: () => Promise<WebjsClientLike>,
    private readonly hooks: WebjsConnectionHooks,
  ) {
    this.receivedMedia = new WebjsReceivedMedia(context);
  }

  /** Returns once the browser is being launched; the login goes on in the background. */
  async start(): Promise<void> {
    const client = await this.createClient();
    if (this.stopped) return;
    this.client = client;
    for (const event of Object.keys(EVENT_ARGS) as WebjsEventName[]) {
      client.on(event, (...args: unknown[]) => this.dispatch(client, event, args));
    }
    void client.initialize().then(
      async () => {
        // A stop during the launch found no browser to close yet.
        if (this.stopped) await client.destroy().catch(() => {});
        else this.watchBrowser(client);
      },
      (error: unknown) => {
        if (!this.stopped) this.fail('the web client could not start', error);
        return client.destroy().catch(() => {});
      },
    );
  }

  /**
   * whatsapp-web.js never notices its browser going away: the session would stay WORKING with
   * nothing behind it. A Chromium that exits (crash, OOM kill) or a page whose renderer crashes
   * makes it FAILED, saying which; before `initialize` resolves, such a loss rejects it instead.
   */
  private watchBrowser(client: WebjsClientLike): void {
    const lost = (reason: string, error: unknown) => {
      if (this.stopped || client !== this.client || this.status === 'FAILED') return;
      this.fail(reason, error);
      void client.destroy().catch(() => {});
    };
    const browser = client.pupBrowser;
    browser?.once('disconnected', () => lost('the browser closed', new Error('Chromium exited or closed its connection')));
    client.pupPage?.once('error', (error) => lost('the browser page crashed', error));
    if (browser && !browser.connected) lost('the browser closed', new Error('Chromium exited before the web client started'));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.gate.close();
    this.qrValue = null;
    // A browser that is gone already is stopped all the same.
    await this.client?.destroy().catch((error: unknown) => {
      this.context.log.warn({ session: this.context.session, err: error }, 'WEBJS could not close the browser');
    });
    await chromiumExited(this.client?.pupBrowser?.process?.());
  }

  /** Unlinks the device when logged in, then forgets the saved login. */
  async logout(): Promise<void> {
    const client = this.client;
    const loggedIn = this.status === 'WORKING';
    this.stopped = true;
    this.gate.close();
    try {
      if (client && loggedIn) await client.logout();
      else await client?.destroy();
    } catch (error) {
      this.context.log.warn({ session: this.context.session, err: error }, 'WEBJS could not unlink the device');
    }
    await chromiumExited(client?.pupBrowser?.process?.());
    await this.context.authState.clear();
    this.account = null;
    this.context.setMe(null);
  }

  qr(): string {
    if (!this.qrValue) throw new CommandError('WRONG_STATUS', 'no QR code is waiting to be scanned');
    return this.qrValue;
  }

  async requestCode(request: RequestCodeRequest): Promise<{ code: string }> {
    if (request.method) throw this.notSupported(`pairing by ${request.method} (WhatsApp Web pairs by a code shown on the phone)`);
    const client = this.liveClient();
    const code = await client.requestPairingCode(request.phoneNumber, true).catch(this.engineError('request a pairing code'));
    return { code: code.length === 8 ? `${code.slice(0, 4)}-${code.slice(4)}` : code };
  }

  /** The account's push name as the last change or the page knows it. */
  pushName(): string {
    return this.account?.pushName ?? this.client?.info?.pushname ?? '';
  }

  /** The account renamed itself: `me` follows. */
  renamed(name: string): void {
    if (!this.account) return;
    this.account = { ...this.account, pushName: name };
    this.context.setMe(this.account);
  }

  private readonly handlers: Handlers = {
    qr: (qr) => {
      this.qrValue = qr;
      this.setStatus('SCAN_QR_CODE');
    },
    // The QR was scanned; history syncs before `ready`, and nothing can be sent until then.
    authenticated: () => {
      this.qrValue = null;
      if (this.status === 'SCAN_QR_CODE') this.setStatus('STARTING');
    },
    ready: () => {
      const info = this.client?.info;
      this.account = info ? { id: wid(info.wid), pushName: info.pushname ?? '' } : null;
      this.context.setMe(this.account);
      this.qrValue = null;
      if (this.status !== 'WORKING') this.setStatus('WORKING');
    },
    auth_failure: (message) => {
      this.context.log.warn({ session: this.context.session, reason: message }, 'WEBJS login failed');
      this.forgetAccount();
      this.setStatus('FAILED', `WhatsApp Web refused the login: ${String(message)}`);
    },
    // The library closes the browser after a disconnect, except on LOGOUT, where it shows a new QR.
    disconnected: async (reason) => {
      this.context.log.warn({ session: this.context.session, reason }, 'WEBJS disconnected');
      this.qrValue = null;
      this.setStatus('FAILED', LOGIN_LOST.has(reason) ? `the device was unlinked (${reason})` : `WhatsApp Web disconnected (${reason})`);
      if (!LOGIN_LOST.has(reason)) return;
      this.forgetAccount();
      // The saved login is void: the next start shows a QR code instead of failing once more.
      await this.context.authState.clear();
    },
    change_state: (state) => this.context.emit('state.change', { state }),
    message: (message) => this.received(message),
    // The library emits `message_create` before `message` for a received message; both events go
    // out from `message`, `message` first, as every engine sends them.
    message_create: (message) => {
      if (!message.id.fromMe) return;
      this.gate.created(recordId(message.id), () => this.context.emit('message.any', messageRecord(message, 'app')));
    },
    message_ciphertext: (message) => this.context.emit('message.waiting', messageRecord(message, 'app')),
    message_ack: (message, ack) => {
      const deliver = () => this.context.emit('message.ack', ackPayload(message, ack, this.meId()));
      if (message.id.fromMe) this.gate.updated(recordId(message.id), deliver);
      else deliver();
    },
    message_reaction: (reaction) => this.context.emit('message.reaction', reactionPayload(reaction, this.meId())),
    message_edit: (message, newBody) => this.context.emit('message.edited', editedPayload(message, newBody)),
    message_revoke_everyone: (message, before) => this.context.emit('message.revoked', revokedPayload(message, before)),
    group_join: async (notification) => {
      this.context.emit('group.join', notificationData(notification));
      this.context.emit('group.v2.participants', participantsPayload(notification, 'join'));
      if (this.involvesMe(notification)) await this.announceJoin(notification);
    },
    group_leave: (notification) => {
      this.context.emit('group.leave', notificationData(notification));
      this.context.emit('group.v2.participants', participantsPayload(notification, 'leave'));
      if (this.involvesMe(notification)) {
        const { timestamp } = notification;
        this.context.emit('group.v2.leave', { group: { id: notification.chatId }, timestamp, _data: notificationData(notification) });
      }
    },
    group_admin_changed: (notification) => {
      const type = notification.type === 'demote' ? 'demote' : 'promote';
      this.context.emit('group.v2.participants', participantsPayload(notification, type));
    },
    group_update: (notification) => {
      const { timestamp } = notification;
      this.context.emit('group.v2.update', { group: groupUpdate(notification), timestamp, _data: notificationData(notification) });
    },
    call: (call) => {
      if (!call.fromMe) this.hooks.callReceived(call);
    },
    vote_update: (vote) => this.context.emit('poll.vote', pollVotePayload(vote, this.meId())),
    chat_archived: (chat, archived) => this.context.emit('chat.archive', { id: wid(chat.id), timestamp: Date.now() / 1000, archived }),
  };

  private dispatch(client: WebjsClientLike, event: WebjsEventName, args: unknown[]): void {
    if (this.stopped || client !== this.client) return;
    if (PAGE_LOADED.has(event)) this.readVersions(client);
    const names = EVENT_ARGS[event];
    this.context.emit('engine.event', { event, data: Object.fromEntries(names.map((name, i) => [name, jsonSafe(args[i])])) });
    // What an API action made is answered and emitted by that action (own-echo.ts).
    if (this.echoes.offer(event, args)) return;
    const handler = this.handlers[event] as ((...args: unknown[]) => void | Promise<void>) | undefined;
    const report = (error: unknown) =>
      this.context.log.error({ session: this.context.session, event, err: error }, 'WEBJS could not map a client event');
    try {
      void Promise.resolve(handler?.(...args)).catch(report);
    } catch (error) {
      report(error);
    }
  }

  /**
   * What this session runs (its `versions`): whatsapp-web.js's package version and the WhatsApp
   * Web version of the page (`window.Debug.VERSION`), read once the page has loaded, at each start.
   * The status events before it go out without them; a page that cannot say is only logged.
   */
  private readVersions(client: WebjsClientLike): void {
    if (this.versionsRead) return;
    this.versionsRead = true;
    void client.getWWebVersion().then(
      (version) => {
        if (this.stopped || client !== this.client) return;
        this.context.setVersions({ library: { name: 'whatsapp-web.js', version: libraryVersion('whatsapp-web.js') }, client: version });
      },
      (error: unknown) => this.context.log.warn({ session: this.context.session, err: error }, 'WEBJS could not read the WhatsApp Web version'),
    );
  }

  /**
   * A received message's `message` or `message.any`; one with a file waits for it to be kept
   * (received-media.ts), so that the record's `media.url` serves it when the events go out.
   */
  /** A received message: `message`, then `message.any`, with its file once it is stored. */
  private async received(message: WebjsMessage): Promise<void> {
    const record = messageRecord(message, 'app');
    const full = record.hasMedia ? { ...record, media: await this.receivedMedia.of(message) } : record;
    this.context.emit('message', full);
    this.context.emit('message.any', full);
  }

  /** You joined: the whole group, read from the client, since you may not have seen it before. */
  private async announceJoin(notification: WebjsGroupNotification): Promise<void> {
    const chat = await this.liveClient().getChatById(notification.chatId);
    const { timestamp } = notification;
    this.context.emit('group.v2.join', { group: groupInfo(chat), timestamp, _data: notificationData(notification) });
  }

  private involvesMe(notification: WebjsGroupNotification): boolean {
    return members(notification).includes(this.meId());
  }

  meId(): string {
    return this.account?.id ?? wid(this.client?.info?.wid) ?? '';
  }

  private setStatus(status: SessionStatus, reason?: string): void {
    this.status = status;
    this.context.setStatus(status, reason);
  }

  /** FAILED with the cause, where a client reads it (the status event, the session's `reason`). */
  private fail(reason: string, error: unknown): void {
    this.context.log.error({ session: this.context.session, err: error }, `WEBJS: ${reason}`);
    this.qrValue = null;
    const cause = error instanceof Error ? error.message : String(error);
    this.setStatus('FAILED', `${reason}: ${cause}`);
  }

  private forgetAccount(): void {
    this.qrValue = null;
    this.account = null;
    this.context.setMe(null);
  }

  /** What the page shows now: the QR code while it waits for a scan, the chats once WORKING. */
  async screenshot(): Promise<MediaFile> {
    const page = this.liveClient().pupPage;
    if (!page)
      throw new CommandError(
        'WRONG_STATUS',
        `session '${this.context.session}' has no browser page yet (status ${this.status}); try again in a moment`,
      );
    const png = await page.screenshot({ type: 'png' }).catch(this.engineError('take a screenshot'));
    return { mimetype: 'image/png', filename: 'screenshot.png', data: Buffer.from(png) };
  }

  liveClient(): WebjsClientLike {
    if (!this.client || this.stopped) {
      throw new CommandError('WRONG_STATUS', `session '${this.context.session}' has no running WEBJS client`);
    }
    return this.client;
  }

  notSupported(what: string): CommandError {
    return notSupported(this.context.session, 'WEBJS', what);
  }

  /** Library failures become ENGINE_ERROR with what was being done; our own errors pass. */
  engineError(doing: string): (error: unknown) => never {
    return (error) => {
      if (error instanceof CommandError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      throw new CommandError('ENGINE_ERROR', `WEBJS could not ${doing}: ${message}`, { session: this.context.session });
    };
  }
}

/** `engine.event` data must survive JSON: the library's structures do, minus their client (WPP's too). */
export function jsonSafe(value: unknown): unknown {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as unknown;
  } catch {
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- what JSON cannot hold (a cycle, a BigInt) is kept as its string form, best effort like the rest of engine.event
    return String(value);
  }
}
