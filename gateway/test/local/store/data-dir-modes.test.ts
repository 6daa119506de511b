import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, workingSession } from '../../support/gateway.js';

/** The permission bits of `path`, as `0o700` would be written. */
const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Every dir and file under `root`, itself included. */
function tree(root: string): { path: string; dir: boolean }[] {
  const found = [{ path: root, dir: true }];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    found.push(...(entry.isDirectory() ? tree(path) : [{ path, dir: false }]));
  }
  return found;
}

function expectPrivate(dataDir: string): void {
  expect(modeOf(dataDir).toString(8)).toBe('700');
  const files = readdirSync(dataDir).filter((name) => /\.(db|lock)(-wal|-shm)?$/.test(name));
  // Both SQLite files, each with its -wal and -shm while the gateway runs, and the lock file.
  expect(files.length).toBeGreaterThanOrEqual(7);
  for (const name of files) expect([name, modeOf(join(dataDir, name)).toString(8)]).toEqual([name, '600']);
  const state = tree(join(dataDir, 'sessions'));
  expect(state.some((entry) => !entry.dir)).toBe(true);
  for (const { path, dir } of state) expect([path, modeOf(path).toString(8)]).toEqual([path, dir ? '700' : '600']);
}

// The umask the gateway would be started with by a shell that lets others read new files.
let umask: number;
beforeEach(() => {
  umask = process.umask(0o022);
});
afterEach(() => {
  process.umask(umask);
});

describe('the data dir holds credentials: owner only', () => {
  it("a new data dir, its SQLite files (with -wal and -shm) and a session's engine state are 0700 and 0600", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'switchboard-modes-')), 'data');
    const gw = await startGateway({ dataDir });
    try {
      await workingSession(gw, 'private');
      expectPrivate(dataDir);
    } finally {
      await gw.close();
    }
  });

  it('brings a data dir made before, readable by others, down to 0700 and 0600 when it starts', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'switchboard-modes-')), 'data');
    const first = await startGateway({ dataDir });
    await workingSession(first, 'older');
    await first.close();
    for (const { path, dir } of tree(dataDir)) chmodSync(path, dir ? 0o755 : 0o644);
    // What a crash may leave: -wal and -shm files beside a database file.
    writeFileSync(join(dataDir, 'switchboard.db-wal'), '', { mode: 0o644 });
    mkdirSync(join(dataDir, 'sessions', 'older', 'auth'), { recursive: true });

    const second = await startGateway({ dataDir });
    try {
      expectPrivate(dataDir);
    } finally {
      await second.close();
    }
  });
});
