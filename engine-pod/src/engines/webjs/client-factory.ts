import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EngineContext, EngineFactory } from '../../engine.js';
import { chromiumPathFromEnv } from './chromium-path.js';
import { StoreAuthStrategy } from './store-auth-strategy.js';
import type { WebjsClientLike } from './webjs-client.js';
import { WebjsEngine } from './webjs-engine.js';

/**
 * Chromium's flags: headless, and no connection of its own to anything but the page it is
 * given (no sync, component updates, background fetches or QUIC). `--no-sandbox`: Chromium's
 * sandbox refuses to run as root, and restricted pods lack the user namespaces it needs.
 */
export const WEBJS_BROWSER_FLAGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  // Memory (issue 27; measured by `node bench/dist/all.js browser-memory`, table in
  // docs/operations.md "Sizing engine pods"):
  // one renderer process for all the pages (about:blank and WhatsApp Web shared one anyway);
  '--renderer-process-limit=1',
  // no separate GPU process: headless draws nothing on a GPU, its SwiftShader process only waits;
  '--in-process-gpu',
  // no software WebGL (SwiftShader) either: WhatsApp Web needs no WebGL;
  '--disable-software-rasterizer',
  // one site is ever loaded, so no process per site frame;
  '--disable-site-isolation-trials',
  // and none of the browser's own services a headless client never uses.
  '--disable-extensions',
  '--disable-features=Translate,OptimizationHints,OptimizationGuideModelDownloading,OptimizationHintsFetching,MediaRouter,AutofillServerCommunication',
  // Caches are files, but the page cache they fill is charged to the pod's cgroup.
  '--disk-cache-size=1048576',
  '--media-cache-size=1048576',
];

export interface WebjsOptions {
  /** Debian's Chromium headless shell by default (chromium-path.ts); the engine never downloads a browser. */
  readonly chromiumPath: string;
  /** Root of the sessions' browser profiles (`<dataDir>/<session>`); the store is their source. */
  readonly dataDir: string;
  readonly browserFlags: readonly string[];
  readonly profileSave: { readonly firstAfterMs: number; readonly everyMs: number };
  /**
   * The WhatsApp Web version to load and where to fetch its page (`{version}` in the URL), as
   * the library's remote web version cache: the page is served for web.whatsapp.com by the
   * library's own request interception. Unset: whatever web.whatsapp.com serves, kept locally.
   */
  readonly webVersion?: { readonly version: string; readonly url: string };
}

export const DEFAULT_WEBJS_OPTIONS: WebjsOptions = {
  chromiumPath: chromiumPathFromEnv({}),
  dataDir: join(tmpdir(), 'switchboard-webjs'),
  browserFlags: WEBJS_BROWSER_FLAGS,
  profileSave: { firstAfterMs: 60_000, everyMs: 5 * 60_000 },
};

/**
 * `SWITCHBOARD_CHROMIUM_PATH`, `SWITCHBOARD_WEBJS_DATA_DIR`, the pinned web version
 * (`SWITCHBOARD_WEBJS_WEB_VERSION` with `SWITCHBOARD_WEBJS_WEB_VERSION_URL`, both or neither)
 * and `SWITCHBOARD_CHROMIUM_EXTRA_FLAGS` (appended to ours; e.g. a proxy, or what a test's fake
 * WhatsApp Web needs) over the defaults.
 */
export function webjsOptionsFromEnv(env: NodeJS.ProcessEnv): WebjsOptions {
  const version = env.SWITCHBOARD_WEBJS_WEB_VERSION || undefined;
  const url = env.SWITCHBOARD_WEBJS_WEB_VERSION_URL || undefined;
  if (Boolean(version) !== Boolean(url)) {
    throw new Error(
      'SWITCHBOARD_WEBJS_WEB_VERSION and SWITCHBOARD_WEBJS_WEB_VERSION_URL go together: the version to load and the URL of its page ({version} in it)',
    );
  }
  if (url && !/^https?:\/\//.test(url)) throw new Error(`SWITCHBOARD_WEBJS_WEB_VERSION_URL must be an http(s) URL, not ${url}`);
  const extraFlags = (env.SWITCHBOARD_CHROMIUM_EXTRA_FLAGS ?? '').split(/\s+/).filter(Boolean);
  const notFlag = extraFlags.find((flag) => !flag.startsWith('--'));
  if (notFlag) throw new Error(`SWITCHBOARD_CHROMIUM_EXTRA_FLAGS holds Chromium flags (--name or --name=value) separated by spaces, not ${notFlag}`);
  return {
    ...DEFAULT_WEBJS_OPTIONS,
    browserFlags: [...DEFAULT_WEBJS_OPTIONS.browserFlags, ...extraFlags],
    chromiumPath: chromiumPathFromEnv(env),
    dataDir: env.SWITCHBOARD_WEBJS_DATA_DIR || DEFAULT_WEBJS_OPTIONS.dataDir,
    ...(version && url ? { webVersion: { version, url } } : {}),
  };
}

/**
 * What puppeteer starts: a launcher (engine-pod/bin/) that execs `options.chromiumPath` under a
 * parent-death signal, so the browser dies with the engine's process even when that is killed
 * with SIGKILL (puppeteer puts it in a process group of its own and kills it only on a normal
 * exit). The same path from src/ and dist/, and in the images, which ship the package's bin/.
 */
export const CHROMIUM_LAUNCHER = fileURLToPath(new URL('../../../bin/chromium-tied-to-parent', import.meta.url));

/**
 * Puppeteer's launch options: our chromium with our flags, never a downloaded browser. Puppeteer
 * kills the browser on the process's SIGTERM, SIGINT and SIGHUP by default; the engine closes it
 * itself on a stop, so that Chromium writes the profile to disk before the login is saved (killed
 * at once, its Local Storage was never written, and the next pod could not resume the login).
 */
export function webjsLaunchOptions(options: WebjsOptions) {
  return {
    executablePath: CHROMIUM_LAUNCHER,
    env: { ...process.env, SWITCHBOARD_CHROMIUM_BINARY: options.chromiumPath },
    // The headless shell's mode (old headless, `--headless`): the full browser's new headless mode
    // (`true`) is a flag the shell has no use for.
    headless: 'shell' as const,
    args: [...options.browserFlags],
    defaultViewport: null,
    handleSIGTERM: false,
    handleSIGINT: false,
    handleSIGHUP: false,
  };
}

/**
 * The real client: whatsapp-web.js's `Client` on our chromium, with its login kept in the
 * session's auth-state store. The library (and puppeteer with it) is loaded on first use, so a
 * gateway without WEBJS sessions never loads it.
 */
export async function createWebjsClient(options: WebjsOptions, context: EngineContext): Promise<WebjsClientLike> {
  await access(options.chromiumPath, constants.X_OK).catch(() => {
    throw new Error(
      `WEBJS needs chromium at ${options.chromiumPath}: install Debian's chromium-headless-shell (scripts/ensure-chromium.sh) or set SWITCHBOARD_CHROMIUM_PATH`,
    );
  });
  const { Client } = (await import('whatsapp-web.js')).default;
  const authStrategy = new StoreAuthStrategy({
    store: context.authState,
    profileDir: join(options.dataDir, context.session),
    log: context.log,
    firstSaveAfterMs: options.profileSave.firstAfterMs,
    saveEveryMs: options.profileSave.everyMs,
  });
  const client = new Client({
    // The library's own type for strategies declares methods as properties; ours is a subclass of its base.
    authStrategy: authStrategy as never,
    puppeteer: webjsLaunchOptions(options),
    ...(options.webVersion
      ? // A pinned version: its page or nothing (strict), never another version.
        { webVersion: options.webVersion.version, webVersionCache: { type: 'remote', remotePath: options.webVersion.url, strict: true } }
      : // The cached web client page lives with the profiles, not in the working directory.
        { webVersionCache: { type: 'local', path: join(options.dataDir, '.wwebjs_cache') } }),
    qrMaxRetries: 0,
  });
  return client as unknown as WebjsClientLike;
}

export function webjsEngineFactory(options: WebjsOptions = DEFAULT_WEBJS_OPTIONS): EngineFactory {
  return (context) => new WebjsEngine(context, () => createWebjsClient(options, context));
}
