import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Vitest global setup: every test run gets a temp dir of its own, and `os.tmpdir()` points into it
 * for the run (TMPDIR, inherited by the test workers and every process they start: gateways,
 * nats-server, Chromium, go builds). The data dirs, auth dirs and profiles the tests make there
 * go with it at the end, instead of piling up in /tmp run after run (unless SWITCHBOARD_E2E_KEEP
 * asks to keep them).
 */
export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-tests-'));
  process.env.TMPDIR = dir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    // SWITCHBOARD_E2E_KEEP keeps the logs and stores for a look afterwards (test/e2e/README.md).
    if (process.env.SWITCHBOARD_E2E_KEEP) console.error(`tests: kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  };
}
