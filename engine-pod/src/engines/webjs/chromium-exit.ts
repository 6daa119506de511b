/** What the wait reads of Chromium's process (puppeteer's `browser.process()`). */
export interface ChromiumProcess {
  readonly exitCode: number | null;
  readonly signalCode: string | null;
  once(event: 'exit', listener: () => void): unknown;
  kill(signal: 'SIGKILL'): boolean;
}

/** How long a closed Chromium may take to exit before it is killed. */
const BROWSER_EXIT_MS = 5_000;

/**
 * Waits for a closed Chromium's process to be gone (killed after BROWSER_EXIT_MS): until then it
 * holds the session's profile dir, which the next start of the session empties and launches into.
 * The browser engines (WEBJS, WPP) close their browser, then wait here.
 */
export async function chromiumExited(chromium: ChromiumProcess | null | undefined): Promise<void> {
  if (!chromium || chromium.exitCode !== null || chromium.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const kill = setTimeout(() => chromium.kill('SIGKILL'), BROWSER_EXIT_MS);
    chromium.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
  });
}
