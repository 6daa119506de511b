import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitFor } from '@switchboard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY } from '../../support/gateway.js';
import { type GatewayProcess, gatewayProcess, healthy } from '../../support/gateway-process.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

async function spawnGateway(dataDir: string): Promise<GatewayProcess> {
  const gateway = gatewayProcess(dataDir, await freePort());
  children.push(gateway.child);
  return gateway;
}

describe('one gateway per data directory (issue 12, item 16)', () => {
  it('a second gateway on the same data dir exits non-zero naming the first; after kill -9 of the first, a restart goes ahead', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-lock-'));
    const first = await spawnGateway(dataDir);
    await waitFor(() => healthy(first.port), 'the first gateway to listen', 30_000);

    const second = await spawnGateway(dataDir);
    expect(await second.exited).not.toBe(0);
    expect(second.stderr()).toContain(`data directory ${dataDir} is in use by another gateway (pid ${first.child.pid})`);
    expect(second.stderr()).not.toContain('    at '); // a sentence, not a stack trace
    // The first one never noticed.
    expect(await healthy(first.port)).toBe(true);

    first.child.kill('SIGKILL');
    await first.exited;
    const restarted = await spawnGateway(dataDir);
    await waitFor(() => healthy(restarted.port), 'the restarted gateway to listen', 30_000);
    const sessions = await fetch(`http://127.0.0.1:${restarted.port}/api/sessions`, { headers: { 'x-api-key': ADMIN_KEY } });
    expect(sessions.status).toBe(200);
    restarted.child.kill('SIGTERM');
    expect(await restarted.exited).toBe(0);
    // Three gateway processes one after another: seconds each on a loaded 2-core machine.
  }, 90_000);
});
