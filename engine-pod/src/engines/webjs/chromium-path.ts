/**
 * Debian's Chromium headless shell (package `chromium-headless-shell`): the browser engines need
 * no window, and the shell, Chromium's headless mode without the browser around it, holds about
 * half the memory of the full browser for one WhatsApp Web session (`node bench/dist/all.js
 * browser-memory`: 291 MiB of distinct pages idle against 462, docs/operations.md).
 */
export const DEFAULT_CHROMIUM_PATH = '/usr/lib/chromium/chromium-headless-shell';

/** Debian's headless shell, unless `SWITCHBOARD_CHROMIUM_PATH` names another: the engines never download a browser. */
export function chromiumPathFromEnv(env: NodeJS.ProcessEnv): string {
  return env.SWITCHBOARD_CHROMIUM_PATH || DEFAULT_CHROMIUM_PATH;
}
