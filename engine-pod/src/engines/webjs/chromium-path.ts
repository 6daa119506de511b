/** Debian's chromium, unless `SWITCHBOARD_CHROMIUM_PATH` names another: WEBJS never downloads a browser. */
export function chromiumPathFromEnv(env: NodeJS.ProcessEnv): string {
  return env.SWITCHBOARD_CHROMIUM_PATH || '/usr/bin/chromium';
}
