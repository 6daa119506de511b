import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventName } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll } from 'vitest';
import {
  EngineHost,
  type EngineFactory,
  type EngineHostOptions,
  FileAuthStateStore,
  type HostedEvent,
  webjsEngineFactory,
  wppEngineFactory,
} from '../../src/index.js';
import type { WebjsOptions } from '../../src/engines/webjs/client-factory.js';
import { type FakeWebPhone, FakeWhatsAppWeb } from '../fake-web/index.js';
import type { FakeWebAccount } from '../fake-web/phone.js';

const silent = { info() {}, warn() {}, error() {} };

/** A browser engine session paired by QR code on a fake WhatsApp Web of its own: one Chromium per browser test file. */
export interface PairedWebjs {
  readonly host: EngineHost;
  /** The account's phone: what the servers were told, and the other side of every chat. */
  readonly phone: FakeWebPhone;
  /** The fake WhatsApp Web the session runs on. */
  readonly fake: FakeWhatsAppWeb;
  /** Stops the engine and the fake, and removes the session's folders. */
  close(): Promise<void>;
}

/**
 * Starts a WEBJS engine host for `session` (profiles and auth state in folders of their own) on a
 * new fake WhatsApp Web, scans its QR code as `account` and waits for WORKING. Every event the host
 * publishes goes to `publish`; `media`, where the host keeps received files.
 */
export function pairedWebjs(
  session: string,
  account: FakeWebAccount,
  publish: (event: HostedEvent) => void = () => {},
  media?: EngineHostOptions['media'],
): Promise<PairedWebjs> {
  return pairedBrowserEngine('WEBJS', webjsEngineFactory, session, account, publish, media);
}

/** The same for WPP: WPPConnect and its wa-js on the same fake page. */
export function pairedWpp(
  session: string,
  account: FakeWebAccount,
  publish: (event: HostedEvent) => void = () => {},
  media?: EngineHostOptions['media'],
): Promise<PairedWebjs> {
  return pairedBrowserEngine('WPP', wppEngineFactory, session, account, publish, media);
}

/** One of the two above: how a test that runs for both browser engines starts its session. */
export type PairBrowserEngine = typeof pairedWpp;

/** What a browser test file works with: its paired session, once `beforeAll` has made it, and every event it published. */
export interface PairedSuite {
  readonly host: EngineHost;
  readonly phone: FakeWebPhone;
  readonly fake: FakeWhatsAppWeb;
  /** Every event the host published, in order. */
  readonly events: HostedEvent[];
  /** The payloads of the events named `name`, in order. */
  readonly payloads: (name: EventName) => HostedEvent['envelope']['payload'][];
  /** Runs a command on the host; `T` is what the test expects back. */
  readonly run: <T = unknown>(command: Parameters<EngineHost['execute']>[0]) => Promise<T>;
}

/**
 * Pairs a session with `pair` (pairedWebjs or pairedWpp) in `beforeAll` of the calling describe
 * block and closes it in its `afterAll`: the setup every browser test file shared. Its members are
 * read in the tests, after `beforeAll` ran.
 */
export function pairedSuite(pair: PairBrowserEngine, session: string, account: FakeWebAccount, media?: EngineHostOptions['media']): PairedSuite {
  const events: HostedEvent[] = [];
  let paired: PairedWebjs | undefined;
  const started = (): PairedWebjs => {
    if (!paired) throw new Error(`the ${session} session is not paired yet: read it in a test or a later beforeAll`);
    return paired;
  };
  // Pairing waits up to 30 s for the QR code and 30 s for WORKING: more than vitest's default hook time.
  beforeAll(async () => {
    paired = await pair(session, account, (event) => events.push(event), media);
  }, 60_000);
  afterAll(() => paired?.close());
  return {
    get host() {
      return started().host;
    },
    get phone() {
      return started().phone;
    },
    get fake() {
      return started().fake;
    },
    events,
    payloads: (name) => events.filter((e) => e.envelope.event === name).map((e) => e.envelope.payload),
    run: <T>(command: Parameters<EngineHost['execute']>[0]) => started().host.execute(command) as Promise<T>,
  };
}

async function pairedBrowserEngine(
  engine: 'WEBJS' | 'WPP',
  factoryOf: (options: WebjsOptions) => EngineFactory,
  session: string,
  account: FakeWebAccount,
  publish: (event: HostedEvent) => void,
  media?: EngineHostOptions['media'],
): Promise<PairedWebjs> {
  const dirs = ['profiles', 'auth'].map((name) => mkdtempSync(join(tmpdir(), `sb-${engine.toLowerCase()}-${name}-`)));
  const fake = await FakeWhatsAppWeb.start();
  const host = new EngineHost({
    session,
    engine,
    factory: factoryOf(fake.webjsOptions(dirs[0]!)),
    authState: new FileAuthStateStore(dirs[1]!),
    metadata: {},
    environment: { tier: 'CORE', version: 'test' },
    publish,
    log: silent,
    ...(media ? { media } : {}),
  });
  const close = async () => {
    await host.stop();
    await fake.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  };
  try {
    await host.start();
    await waitFor(() => host.status === 'SCAN_QR_CODE', `${engine} to show a QR code`, 30_000);
    const phone = await fake.scanQr(((await host.execute({ op: 'auth.qr' })) as { value: string }).value, account);
    await waitFor(() => host.status === 'WORKING', `${engine} to be WORKING`, 30_000);
    return { host, phone, fake, close };
  } catch (error) {
    await close();
    throw error;
  }
}
