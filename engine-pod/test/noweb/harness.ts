import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppConfig, type EngineSettings, type EventEnvelope, type EventName, parseEnvelope, type SessionStatus } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, expect } from 'vitest';
import { pino } from 'pino';
import {
  type AuthStateStore,
  DEFAULT_NOWEB_OPTIONS,
  EngineHost,
  type EngineHostOptions,
  FileAuthStateStore,
  type HostedEvent,
  type InvalidEvent,
  nowebEngineFactory,
  type NowebOptions,
} from '../../src/index.js';
import { type FakePhone, FakeWaServer, type PhoneOptions } from '../fake-wa/index.js';

/**
 * One NOWEB session as it runs for real: an `EngineHost` with a `FileAuthStateStore` in a temp
 * dir, its engine pointed at the fake server. Every published envelope is parsed against the
 * protocol schema of its own event; `invalid` collects the ones that do not parse, and the ones
 * the host dropped for not matching theirs.
 */
export interface NowebSessionOptions {
  /** The auth dir of a `FileAuthStateStore`: a session started again on the same dir is the same device. */
  readonly authDir?: string;
  /** Another store instead (cluster mode's NATS KV store, for one). */
  readonly store?: AuthStateStore;
  readonly engine?: Partial<NowebOptions>;
  readonly session?: string;
  /** The session's apps (spec 2.3). */
  readonly apps?: readonly AppConfig[];
  /** The session config's engine settings (proxy, ignore, client, noweb). */
  readonly settings?: EngineSettings;
  /** Where received files are kept; unset: none, and records have media null. */
  readonly media?: EngineHostOptions['media'];
}

export class NowebSession {
  readonly events: HostedEvent[] = [];
  /** What the host and engine logged at warn and error. */
  readonly logs: { level: 'warn' | 'error'; obj: Record<string, unknown>; msg?: string }[] = [];
  readonly invalid: ({ envelope: EventEnvelope; error: unknown } | InvalidEvent)[] = [];
  readonly authDir: string;
  readonly store: AuthStateStore;
  readonly host: EngineHost;
  readonly session: string;

  constructor(
    readonly fake: FakeWaServer,
    options: NowebSessionOptions = {},
  ) {
    this.session = options.session ?? 'noweb';
    this.authDir = options.authDir ?? mkdtempSync(join(tmpdir(), 'sb-noweb-'));
    this.store = options.store ?? new FileAuthStateStore(this.authDir);
    const engineOptions: NowebOptions = {
      ...DEFAULT_NOWEB_OPTIONS,
      waUrl: fake.url,
      reconnectDelayMs: () => 50,
      // NOWEB_LOG=debug (or trace) shows what Baileys does, for debugging a test.
      ...(process.env.NOWEB_LOG ? { logger: pino({ level: process.env.NOWEB_LOG }) } : {}),
      ...options.engine,
    };
    this.host = new EngineHost({
      session: this.session,
      engine: 'NOWEB',
      factory: nowebEngineFactory(engineOptions),
      authState: this.store,
      metadata: { suite: 'noweb' },
      apps: options.apps ?? [],
      settings: options.settings ?? {},
      ...(options.media ? { media: options.media } : {}),
      environment: { tier: 'CORE', version: 'test' },
      publish: (event) => {
        this.events.push(event);
        try {
          parseEnvelope(event.envelope);
        } catch (error) {
          this.invalid.push({ envelope: event.envelope, error });
        }
      },
      onInvalidEvent: (dropped) => this.invalid.push(dropped),
      log: {
        info() {},
        warn: (obj, msg) => this.logs.push({ level: 'warn', obj: obj as Record<string, unknown>, ...(msg === undefined ? {} : { msg }) }),
        error: (obj, msg) => this.logs.push({ level: 'error', obj: obj as Record<string, unknown>, ...(msg === undefined ? {} : { msg }) }),
      },
    });
  }

  envelopes(name: EventName): EventEnvelope[] {
    return this.events.filter((e) => e.envelope.event === name).map((e) => e.envelope);
  }

  payloads<T = Record<string, unknown>>(name: EventName): T[] {
    return this.envelopes(name).map((e) => e.payload as T);
  }

  /** The first envelope of `name` published after `since` events that matches. */
  waitForEvent(
    name: EventName,
    match: (payload: Record<string, unknown>) => boolean = () => true,
    since = 0,
    timeoutMs = 15_000,
  ): Promise<EventEnvelope> {
    return waitFor(
      () => this.events.slice(since).find((e) => e.envelope.event === name && match(e.envelope.payload))?.envelope,
      `${name} on ${this.session}`,
      timeoutMs,
    );
  }

  waitForStatus(status: SessionStatus, timeoutMs = 15_000): Promise<SessionStatus> {
    return waitFor(() => this.host.status === status && status, `${this.session} to be ${status}`, timeoutMs);
  }

  async qr(): Promise<string> {
    await this.waitForStatus('SCAN_QR_CODE');
    return waitFor(async () => ((await this.host.execute({ op: 'auth.qr' })) as { value: string }).value, 'a QR code', 15_000);
  }

  /**
   * Start, scan the QR code with a fresh phone, wait for WORKING and for the first history and app
   * state sync to be done. Until then Baileys holds events back, and a session stopped before it
   * holds them back for 20 s at its next start, waiting for a history sync the phone already sent.
   */
  async pair(phone: PhoneOptions = {}): Promise<FakePhone> {
    await this.host.start();
    const paired = await this.fake.scanQr(await this.qr(), phone);
    await this.waitForStatus('WORKING');
    await waitFor(
      async () => ((await this.store.get<{ accountSyncCounter?: number }>('creds', ['creds'])).creds?.accountSyncCounter ?? 0) > 0,
      'the first app state sync',
      15_000,
    );
    return paired;
  }

  /** Stop the host and forget the auth dir. */
  async close(): Promise<void> {
    await this.host.stop();
    await rm(this.authDir, { recursive: true, force: true });
  }
}

export interface PairedSession {
  readonly fake: FakeWaServer;
  readonly s: NowebSession;
  readonly phone: FakePhone;
}

/**
 * One fake server and one session paired with a phone, for the tests of a file: set up before
 * them; after them every envelope must have parsed and the fake must have known every node.
 * `options` may be worked out once the fake is up (to point the fake at a media host, say).
 */
export function pairedSessionForTests(options: NowebSessionOptions | ((fake: FakeWaServer) => Promise<NowebSessionOptions>) = {}): PairedSession {
  const paired: { fake?: FakeWaServer; s?: NowebSession; phone?: FakePhone } = {};
  beforeAll(async () => {
    paired.fake = await FakeWaServer.start();
    paired.s = new NowebSession(paired.fake, typeof options === 'function' ? await options(paired.fake) : options);
    paired.phone = await paired.s.pair({ pushName: 'Me' });
  });
  afterAll(async () => {
    await paired.s?.close();
    expect(paired.s?.invalid).toEqual([]);
    expect(paired.fake?.unknown).toEqual([]);
    await paired.fake?.close();
  });
  return paired as PairedSession;
}

/** The contact every NOWEB test talks to, so the tests agree on one number. */
export const ALICE = '15551230001';
