import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiClient, freePort, waitFor } from '@switchboard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY } from '../../gateway/test/support/gateway.js';
import { decodeTextQr, qrBlocks } from './text-qr.js';

/** `make run` with SWITCHBOARD_TERMINAL_QR=true: the built gateway, its stdout read as a terminal would show it. */
const MAIN = fileURLToPath(new URL('../../gateway/dist/main.js', import.meta.url));
const STEP_MS = 15_000;

let child: ChildProcess | null = null;
afterEach(() => {
  child?.kill('SIGTERM');
  child = null;
});

async function gateway(env: Record<string, string>) {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run make build`);
  const port = await freePort();
  child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      SWITCHBOARD_DATA_DIR: mkdtempSync(join(tmpdir(), 'switchboard-terminal-qr-')),
      SWITCHBOARD_API_KEY: ADMIN_KEY,
      SWITCHBOARD_DEFAULT_ENGINE: 'SANDBOX',
      SWITCHBOARD_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  const api = apiClient(`http://127.0.0.1:${port}`, ADMIN_KEY);
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/health`).catch(() => null))?.ok === true, 'the gateway', STEP_MS);
  return { api, output: () => output };
}

describe('SWITCHBOARD_TERMINAL_QR=true', () => {
  it('prints the QR of a session waiting for a scan, decoding to its current value, then that it is WORKING', async () => {
    const { api, output } = await gateway({ SWITCHBOARD_TERMINAL_QR: 'true' });
    expect((await api('POST', '/api/sessions', { name: 'term' })).status).toBe(201);
    await waitFor(() => qrBlocks(output()).length >= 1, 'a QR on stdout', STEP_MS);
    // The sandbox renews its code every 20 s: a renewal between the print and the API call shows as
    // a new print, so the last one printed becomes the current one.
    const printedIsCurrent = async () => {
      const printed = decodeTextQr(qrBlocks(output()).at(-1)!);
      return printed !== null && printed === (await api('GET', '/api/term/auth/qr?format=raw')).body.value;
    };
    await waitFor(printedIsCurrent, 'the printed QR to decode to the current value', STEP_MS);
    expect(output()).toContain('to pair session term');
    expect((await api('POST', '/api/term/sandbox/simulate', { kind: 'scan' })).status).toBe(201);
    await waitFor(() => output().includes('Session term is WORKING: paired as Sandbox'), 'WORKING on stdout', STEP_MS);
  });

  it('prints no QR without it', async () => {
    const { api, output } = await gateway({});
    expect((await api('POST', '/api/sessions', { name: 'quiet' })).status).toBe(201);
    await waitFor(async () => (await api('GET', '/api/sessions/quiet')).body.status === 'SCAN_QR_CODE', 'SCAN_QR_CODE', STEP_MS);
    expect((await api('POST', '/api/quiet/sandbox/simulate', { kind: 'scan' })).status).toBe(201);
    await waitFor(async () => (await api('GET', '/api/sessions/quiet')).body.status === 'WORKING', 'WORKING', STEP_MS);
    expect(qrBlocks(output())).toEqual([]);
    expect(output()).not.toContain('WORKING');
  });
});
