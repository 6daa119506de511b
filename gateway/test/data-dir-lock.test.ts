import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, waitFor } from '@switchboard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY } from './support/gateway.js';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

interface Gateway {
  readonly child: ChildProcess;
  readonly port: number;
  stderr: string;
  readonly exited: Promise<number | null>;
}

/** The built gateway as its own process, the way `make run` starts it. */
async function spawnGateway(dataDir: string): Promise<Gateway> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run make build first`);
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      SWITCHBOARD_DATA_DIR: dataDir,
      SWITCHBOARD_API_KEY: ADMIN_KEY,
      SWITCHBOARD_DEFAULT_ENGINE: 'SANDBOX',
      SWITCHBOARD_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  const gateway: Gateway = { child, port, stderr: '', exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
  child.stderr!.on('data', (chunk) => (gateway.stderr += chunk));
  return gateway;
}

const healthy = async (gateway: Gateway) => (await fetch(`http://127.0.0.1:${gateway.port}/health`).catch(() => null))?.ok === true;

describe('one gateway per data directory (issue 12, item 16)', () => {
  it('a second gateway on the same data dir exits non-zero naming the first; after kill -9 of the first, a restart goes ahead', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-lock-'));
    const first = await spawnGateway(dataDir);
    await waitFor(() => healthy(first), 'the first gateway to listen', 30_000);

    const second = await spawnGateway(dataDir);
    expect(await second.exited).not.toBe(0);
    expect(second.stderr).toContain(`data directory ${dataDir} is in use by another gateway (pid ${first.child.pid})`);
    expect(second.stderr).not.toContain('    at '); // a sentence, not a stack trace
    // The first one never noticed.
    expect(await healthy(first)).toBe(true);

    first.child.kill('SIGKILL');
    await first.exited;
    const restarted = await spawnGateway(dataDir);
    await waitFor(() => healthy(restarted), 'the restarted gateway to listen', 30_000);
    const sessions = await fetch(`http://127.0.0.1:${restarted.port}/api/sessions`, { headers: { 'x-api-key': ADMIN_KEY } });
    expect(sessions.status).toBe(200);
    restarted.child.kill('SIGTERM');
    expect(await restarted.exited).toBe(0);
    // Three gateway processes one after another: seconds each on a loaded 2-core machine.
  }, 90_000);
});
