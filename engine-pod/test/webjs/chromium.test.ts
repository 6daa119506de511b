import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createWebjsClient,
  DEFAULT_MEDIA_MAX_BYTES,
  DEFAULT_WEBJS_OPTIONS,
  EngineHost,
  FileAuthStateStore,
  StoreAuthStrategy,
  WEBJS_BROWSER_FLAGS,
  webjsEngineFactory,
  webjsLaunchOptions,
  webjsOptionsFromEnv,
} from '../../src/index.js';

/** The slice of puppeteer this test drives. */
interface Puppeteer {
  launch(options: Record<string, unknown>): Promise<{
    process(): { spawnargs: string[] } | null;
    newPage(): Promise<{
      goto(url: string): Promise<unknown>;
      title(): Promise<string>;
      $eval<T>(selector: string, fn: (el: { textContent: string | null }) => T): Promise<T>;
    }>;
    close(): Promise<void>;
  }>;
}

// Puppeteer as whatsapp-web.js loads it: a dependency of the library, not of ours.
const libraryRequire = createRequire(createRequire(import.meta.url).resolve('whatsapp-web.js'));
const chromium = DEFAULT_WEBJS_OPTIONS.chromiumPath;
const silent = { info() {}, warn() {}, error() {} };

/** Processes whose command line names `text` (pgrep answers 1 when there are none). */
function processesNaming(text: string): string {
  try {
    return execFileSync('pgrep', ['-f', text], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

describe('WEBJS on Debian chromium', () => {
  let server: Server;
  let url: string;
  const requests: string[] = [];

  beforeAll(async () => {
    if (!existsSync(chromium)) {
      throw new Error(`${chromium} is missing: install Debian's chromium (scripts/ensure-chromium.sh)`);
    }
    server = createServer((request, response) => {
      requests.push(request.url ?? '');
      response.setHeader('Content-Type', 'text/html');
      response.end('<!doctype html><title>switchboard</title><p id="hello">served on loopback</p>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  it('starts headless with our flags, loads a local page, and closes', async () => {
    const puppeteer = libraryRequire('puppeteer') as Puppeteer;
    const userDataDir = mkdtempSync(join(tmpdir(), 'sb-webjs-chromium-'));
    const browser = await puppeteer.launch({ ...webjsLaunchOptions(DEFAULT_WEBJS_OPTIONS), userDataDir });
    try {
      const spawnargs = browser.process()!.spawnargs;
      expect(spawnargs[0]).toBe(chromium);
      for (const flag of WEBJS_BROWSER_FLAGS) {
        // Puppeteer merges every --disable-features into its own one: each feature must be in it.
        if (!flag.startsWith('--disable-features=')) expect(spawnargs).toContain(flag);
        else {
          const disabled = spawnargs.filter((arg) => arg.startsWith('--disable-features=')).flatMap((arg) => arg.split('=')[1]!.split(','));
          expect(disabled).toEqual(expect.arrayContaining(flag.split('=')[1]!.split(',')));
        }
      }
      const page = await browser.newPage();
      await page.goto(url);
      expect(await page.title()).toBe('switchboard');
      expect(await page.$eval('#hello', (el) => el.textContent)).toBe('served on loopback');
      expect(requests).toContain('/');
    } finally {
      await browser.close();
    }
  }, 30_000);

  it("builds the library's Client on that chromium, with our flags and the store strategy", async () => {
    const root = mkdtempSync(join(tmpdir(), 'sb-webjs-client-'));
    const options = webjsOptionsFromEnv({ SWITCHBOARD_WEBJS_DATA_DIR: root });
    const context = {
      session: 'webjs-1',
      settings: {},
      authState: new FileAuthStateStore(join(root, 'auth')),
      log: silent,
      setStatus() {},
      setMe() {},
      emit() {},
      saveMedia: async () => null,
      saveMediaStream: async () => null,
      mediaMaxBytes: DEFAULT_MEDIA_MAX_BYTES,
    };
    const client = (await createWebjsClient(options, context)) as unknown as {
      options: { puppeteer: Record<string, unknown>; webVersionCache: unknown };
      authStrategy: unknown;
    };
    expect(client.options.puppeteer).toMatchObject({ executablePath: chromium, headless: 'shell', args: [...WEBJS_BROWSER_FLAGS] });
    expect(client.options.webVersionCache).toEqual({ type: 'local', path: join(root, '.wwebjs_cache') });
    expect(client.authStrategy).toBeInstanceOf(StoreAuthStrategy);
  });

  it('refuses to start without chromium, saying how to get it', async () => {
    const options = { ...DEFAULT_WEBJS_OPTIONS, chromiumPath: '/nonexistent/chromium' };
    await expect(createWebjsClient(options, {} as never)).rejects.toThrow(/ensure-chromium\.sh.*SWITCHBOARD_CHROMIUM_PATH/);
  });

  it('runs the real client through the engine: with the network shut off it is FAILED, and the browser is gone', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sb-webjs-engine-'));
    // A dead proxy keeps the browser off the network: WhatsApp Web cannot load, which is the point.
    const browserFlags = [...WEBJS_BROWSER_FLAGS, '--proxy-server=127.0.0.1:9'];
    const statuses: string[] = [];
    const reasons: string[] = [];
    const host = new EngineHost({
      session: 'webjs-real',
      engine: 'WEBJS',
      factory: webjsEngineFactory({ ...DEFAULT_WEBJS_OPTIONS, dataDir: root, browserFlags }),
      authState: new FileAuthStateStore(join(root, 'auth')),
      metadata: {},
      environment: { tier: 'CORE', version: 'test' },
      publish: ({ envelope }) => {
        if (envelope.event !== 'session.status') return;
        statuses.push(String(envelope.payload.status));
        if (typeof envelope.payload.reason === 'string') reasons.push(envelope.payload.reason);
      },
      log: silent,
    });
    try {
      await host.start();
      await waitFor(() => statuses.includes('FAILED'), 'FAILED', 20_000);
      expect(statuses).toEqual(['STARTING', 'FAILED']);
      // The cause, where a client reads it (the event, and GET /api/sessions/{name}), not only in the log.
      expect(reasons).toEqual([
        expect.stringMatching(/^the web client could not start: .*net::ERR_PROXY_CONNECTION_FAILED at https:\/\/web\.whatsapp\.com\//),
      ]);
      expect(host.failureReason).toBe(reasons[0]);
      expect(existsSync(join(root, 'webjs-real', 'Default'))).toBe(true);
      await waitFor(() => processesNaming(root) === '', 'the browser to close', 10_000);
    } finally {
      await host.stop();
    }
  }, 30_000);
});
