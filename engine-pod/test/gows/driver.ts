import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { EVENT_PAYLOADS, type EventName } from '@switchboard/protocol';
import { expect } from 'vitest';
import { type AuthStateStore, FileAuthStateStore } from '../../src/index.js';
import { type FakePhone, FakeWaServer } from '../fake-wa/index.js';
import { FakeMediaServer } from '../fake-wa/media-server.js';

export const ENGINE_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../engines/gows');
const BINARY = join(ENGINE_DIR, 'bin/switchboard-gows');

/** Go from the machine (the toolchain the Makefile checks); the build is cached by Go. */
export function goBinary(): string {
  if (process.env.GO) return process.env.GO;
  return existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : 'go';
}

let built: Promise<string> | null = null;

/** Builds `switchboard-gows` (static, as the images ship it) once per test process. */
export function buildGows(): Promise<string> {
  built ??= promisify(execFile)(goBinary(), ['build', '-trimpath', '-o', BINARY, './cmd/switchboard-gows'], {
    cwd: ENGINE_DIR,
    env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=readonly' },
  }).then(() => BINARY);
  return built;
}

export interface Notification {
  readonly method: string;
  readonly params: Record<string, unknown>;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/**
 * A small host for tests of the Go side alone: one `switchboard-gows stdio` child, its auth-state
 * requests answered from a store, its notifications collected. (The gateway's host is the
 * `GowsEngine` proxy; this driver speaks the same PROTOCOL.md.)
 */
export class GowsDriver {
  readonly notifications: Notification[] = [];
  readonly log: Record<string, unknown>[] = [];
  /** Files the child kept through `media.save` (the n-th is at `http://localhost/media/<n>`). */
  readonly saved: { mimetype: string; filename: string | null; data: Buffer }[] = [];
  /** Event notifications whose payload does not parse against the protocol's schema of the event. */
  readonly invalid: { event: string; payload: unknown; error: string }[] = [];
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private readonly waiters = new Set<() => void>();
  readonly exited: Promise<number | null>;

  constructor(
    binary: string,
    env: Record<string, string>,
    private readonly store: AuthStateStore,
  ) {
    this.child = spawn(binary, ['stdio'], {
      env: { PATH: process.env.PATH ?? '', ...(process.env.GOWS_LOG ? { SWITCHBOARD_GOWS_DEBUG: '1' } : {}), ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
    createInterface({ input: this.child.stdout }).on('line', (line) => this.receive(line));
    createInterface({ input: this.child.stderr }).on('line', (line) => {
      try {
        this.log.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        this.log.push({ level: 'raw', msg: line });
      }
      if (process.env.GOWS_LOG) process.stderr.write(`[gows] ${line}\n`);
    });
  }

  request<T = unknown>(method: string, params: unknown = {}): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: (value) => resolve(value as T), reject });
      this.write({ jsonrpc: '2.0', id, method, params });
    });
  }

  /** The code a request fails with (`INVALID`, `NOT_FOUND` ...), or null when it succeeds. */
  failureCode(method: string, params: unknown = {}): Promise<string | null | undefined> {
    return this.request(method, params).then(
      () => null,
      (error: unknown) => (error as { code?: string }).code,
    );
  }

  /** Resolves with the first notification (past `since`) that matches. */
  async waitFor(match: (n: Notification) => boolean, since = 0, timeoutMs = 20_000): Promise<Notification> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.notifications.slice(since).find(match);
      if (found) return found;
      if (Date.now() > deadline) {
        throw new Error(`no matching notification; got ${JSON.stringify(this.notifications.slice(since)).slice(0, 2000)}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.waiters.add(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  status(status: string, since = 0): Promise<Notification> {
    return this.waitFor((n) => n.method === 'status' && n.params.status === status, since);
  }

  event(name: string, match: (payload: Record<string, unknown>) => boolean = () => true, since = 0): Promise<Record<string, unknown>> {
    return this.waitFor((n) => n.method === 'event' && n.params.event === name && match(n.params.payload as Record<string, unknown>), since).then(
      (n) => n.params.payload as Record<string, unknown>,
    );
  }

  /** Closes stdin: the child disconnects and exits. */
  async close(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }

  private write(message: unknown): void {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  private receive(line: string): void {
    const message = JSON.parse(line) as {
      id?: number;
      method?: string;
      params?: Record<string, unknown>;
      result?: unknown;
      error?: { message: string; data?: { code?: string } };
    };
    if (message.method && message.id !== undefined) {
      void this.serve(message.id, message.method, message.params ?? {});
      return;
    }
    if (message.method) {
      this.notifications.push({ method: message.method, params: message.params ?? {} });
      if (message.method === 'event') this.check(message.params ?? {});
      for (const wake of this.waiters) wake();
      this.waiters.clear();
      return;
    }
    const pending = message.id !== undefined ? this.pending.get(message.id) : undefined;
    if (!pending) return;
    this.pending.delete(message.id!);
    if (message.error) pending.reject(Object.assign(new Error(message.error.message), { code: message.error.data?.code }));
    else pending.resolve(message.result);
  }

  private check(params: Record<string, unknown>): void {
    const schema = EVENT_PAYLOADS[params.event as EventName] as (typeof EVENT_PAYLOADS)[EventName] | undefined;
    const parsed = schema?.safeParse(params.payload);
    if (!parsed?.success)
      this.invalid.push({ event: String(params.event), payload: params.payload, error: String(parsed?.error ?? 'unknown event') });
  }

  private async serve(id: number, method: string, params: Record<string, unknown>): Promise<void> {
    try {
      let result: unknown = null;
      if (method === 'auth.get') result = await this.store.get(params.type as string, params.ids as string[]);
      else if (method === 'auth.set') await this.store.set(params.data as Record<string, Record<string, unknown>>);
      else if (method === 'auth.clear') await this.store.clear();
      else if (method === 'media.save') {
        // The child names a file of its spool, which it removes once answered.
        const file = { mimetype: params.mimetype as string, filename: (params.filename as string | undefined) ?? null };
        this.saved.push({ ...file, data: await readFile(params.path as string) });
        result = { url: `http://localhost/media/${this.saved.length}`, ...file };
      } else throw new Error(`unknown method ${method}`);
      this.write({ jsonrpc: '2.0', id, result });
    } catch (error) {
      this.write({ jsonrpc: '2.0', id, error: { code: -32000, message: (error as Error).message } });
    }
  }
}

/**
 * A child that connects to `fake` as `session`, its auth state in files (under `authDir`, or a
 * new temporary folder); `env` adds to what it is started with.
 */
export function fakeServerDriver(
  binary: string,
  fake: FakeWaServer,
  session: string,
  options: { env?: Record<string, string>; authDir?: string } = {},
): GowsDriver {
  return new GowsDriver(
    binary,
    { SWITCHBOARD_SESSION: session, SWITCHBOARD_GOWS_WS_URL: fake.url, SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY: fake.certRootPublicKey, ...options.env },
    new FileAuthStateStore(options.authDir ?? mkdtempSync(join(tmpdir(), `sb-${session}-`))),
  );
}

/**
 * Starts the session and pairs it with a new phone of the fake that scans its QR code; the fake
 * knows `contacts` (number to LID) before the session is WORKING. Resolves with the phone once it is.
 */
export async function pairWithFake(gows: GowsDriver, fake: FakeWaServer, session: string, contacts: Record<string, string> = {}): Promise<FakePhone> {
  await gows.request('start', { session, settings: {} });
  await gows.status('SCAN_QR_CODE');
  const phone = await fake.scanQr(await gows.request<string>('qr'), { pushName: 'Me' });
  for (const [number, lid] of Object.entries(contacts)) fake.contact(number, lid);
  await gows.status('WORKING');
  return phone;
}

/**
 * A child paired with a new phone of a fake that serves media (the fake media server, whose
 * certificate the child trusts through SWITCHBOARD_GOWS_MEDIA_CA): what tests of files need.
 */
export async function pairedWithMedia(
  session: string,
  contacts: Record<string, string>,
  env: Record<string, string> = {},
): Promise<{ fake: FakeWaServer; media: FakeMediaServer; gows: GowsDriver; phone: FakePhone; spool: string }> {
  const [fake, media, binary] = await Promise.all([FakeWaServer.start({ signal: true }), FakeMediaServer.start(), buildGows()]);
  fake.serveMedia(media);
  const dir = mkdtempSync(join(tmpdir(), `sb-${session}-`));
  const ca = join(dir, 'media-ca.pem');
  writeFileSync(ca, media.certificate);
  const spool = join(dir, 'spool');
  mkdirSync(spool);
  const gows = fakeServerDriver(binary, fake, session, {
    env: { SWITCHBOARD_GOWS_MEDIA_CA: ca, SWITCHBOARD_GOWS_MEDIA_SPOOL: spool, ...env },
    authDir: join(dir, 'auth'),
  });
  const phone = await pairWithFake(gows, fake, session, contacts);
  return { fake, media, gows, phone, spool };
}

/** Closes the child and the fake, and checks that neither met anything it does not understand. */
export async function closeChecked(gows: GowsDriver | undefined, fake: FakeWaServer | undefined): Promise<void> {
  await gows?.close();
  expect(gows?.invalid).toEqual([]);
  expect(fake?.unknown.map((node) => `${node.tag} ${JSON.stringify(node.attrs)}`)).toEqual([]);
  await fake?.close();
}
