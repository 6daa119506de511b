import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive, processTree, waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHROMIUM_LAUNCHER,
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
    process(): { spawnargs: string[]; pid?: number } | null;
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
      const { spawnargs, pid } = browser.process()!;
      // Started through the launcher, which became the browser: the PID puppeteer tracks is Chromium's.
      expect(spawnargs[0]).toBe(CHROMIUM_LAUNCHER);
      expect(readlinkSync(`/proc/${pid}/exe`)).toBe(chromium);
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

  it('takes the browser down with the process that started it, even when that is killed with SIGKILL', async () => {
    // A process of its own that launches the browser as the engines do, then is killed: puppeteer's
    // own clean-up never runs, as when the engine pod's process or a local-mode gateway is killed.
    const dir = mkdtempSync(join(tmpdir(), 'sb-webjs-orphan-'));
    const optionsFile = join(dir, 'launch.json');
    writeFileSync(optionsFile, JSON.stringify({ ...webjsLaunchOptions(DEFAULT_WEBJS_OPTIONS), userDataDir: join(dir, 'profile') }));
    const script = join(dir, 'launch.mjs');
    writeFileSync(
      script,
      [
        "import { createRequire } from 'node:module';",
        "import { readFileSync } from 'node:fs';",
        'const [puppeteerPath, optionsFile] = process.argv.slice(2);',
        'const browser = await createRequire(import.meta.url)(puppeteerPath).launch(JSON.parse(readFileSync(optionsFile, "utf8")));',
        'await (await browser.newPage()).goto("about:blank");',
        'process.stdout.write(`${browser.process().pid}\\n`);',
        'setInterval(() => {}, 60_000);',
      ].join('\n'),
    );
    const launcher = spawn(process.execPath, [script, libraryRequire.resolve('puppeteer'), optionsFile], { stdio: ['ignore', 'pipe', 'inherit'] });
    let tree: number[] = [];
    try {
      const pid = Number(
        await new Promise<string>((resolve, reject) => {
          launcher.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
          launcher.once('exit', (code) => reject(new Error(`the launching process exited (${code}) before the browser was up`)));
        }),
      );
      tree = processTree(pid);
      expect(readlinkSync(`/proc/${pid}/exe`)).toBe(chromium);
      expect(tree.length, 'the browser and its helper processes').toBeGreaterThan(1);
      launcher.kill('SIGKILL');
      await waitFor(() => tree.every((p) => !processAlive(p)), `the browser's processes ${tree.join(', ')} to exit`, 10_000);
    } finally {
      launcher.kill('SIGKILL');
      for (const p of tree.filter(processAlive)) process.kill(p, 'SIGKILL');
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
      setVersions() {},
      emit() {},
      saveMedia: async () => null,
      saveMediaStream: async () => null,
      mediaMaxBytes: DEFAULT_MEDIA_MAX_BYTES,
    };
    const client = (await createWebjsClient(options, context)) as unknown as {
      options: { puppeteer: Record<string, unknown>; webVersionCache: unknown };
      authStrategy: unknown;
    };
    expect(client.options.puppeteer).toMatchObject({
      executablePath: CHROMIUM_LAUNCHER,
      env: { SWITCHBOARD_CHROMIUM_BINARY: chromium },
      headless: 'shell',
      args: [...WEBJS_BROWSER_FLAGS],
    });
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
