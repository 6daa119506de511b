import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiClient, closedPort, freePort, waitFor } from '@switchboard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY } from './support/gateway.js';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/**
 * The built gateway as `make run` starts it, at the default log level, with NOWEB aimed at a
 * port nobody listens on: what a newcomer without network access to WhatsApp sees.
 */
async function gatewayWithUnreachableNoweb(env: Record<string, string> = {}) {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run make build first`);
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      SWITCHBOARD_DATA_DIR: mkdtempSync(join(tmpdir(), 'switchboard-logs-')),
      SWITCHBOARD_API_KEY: ADMIN_KEY,
      SWITCHBOARD_NOWEB_WS_URL: `ws://127.0.0.1:${String((await closedPort()).port)}/ws/chat`,
      SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS: '2',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const output = { text: '' };
  child.stdout.on('data', (chunk) => (output.text += chunk));
  const api = apiClient(`http://127.0.0.1:${port}`, ADMIN_KEY);
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/health`).catch(() => null))?.ok, 'the gateway to listen', 30_000);
  const created = await api('POST', '/api/sessions', { name: 'offline', engine: 'NOWEB' });
  expect(created.status).toBe(201);
  await waitFor(async () => (await api('GET', '/api/sessions/offline')).body.status === 'FAILED', 'FAILED', 15_000);
  return output;
}

describe('a NOWEB session that cannot reach its server is in the log at the default level (issue 12, item 17)', () => {
  it('JSON: its status changes at info, each failed connection and the FAILED at warn', async () => {
    const output = await gatewayWithUnreachableNoweb();
    const lines = await waitFor(() => {
      const parsed = output.text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
      return parsed.some((line) => line.msg === 'session FAILED') && parsed;
    }, 'the FAILED line');
    const ofSession = lines.filter((line: { session?: string }) => line.session === 'offline');
    expect(ofSession).toContainEqual(expect.objectContaining({ level: 30, msg: 'session STARTING', previous: 'STOPPED', status: 'STARTING' }));
    expect(ofSession).toContainEqual(
      expect.objectContaining({ level: 40, msg: 'NOWEB could not connect; trying again', attempt: 1, of: 2, retryInMs: expect.any(Number) }),
    );
    expect(ofSession).toContainEqual(expect.objectContaining({ level: 40, msg: 'session FAILED', reason: expect.stringContaining('2 attempts') }));
  }, 90_000);

  it('SWITCHBOARD_LOG_FORMAT=pretty: the same, as readable lines instead of JSON', async () => {
    const output = await gatewayWithUnreachableNoweb({ SWITCHBOARD_LOG_FORMAT: 'pretty' });
    await waitFor(() => output.text.includes('session FAILED'), 'the FAILED line');
    const lines = output.text.split('\n').filter(Boolean);
    expect(lines.some((line) => line.trimStart().startsWith('{'))).toBe(false);
    expect(lines).toContainEqual(expect.stringMatching(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: session STARTING/));
    expect(lines).toContainEqual(expect.stringMatching(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: NOWEB could not connect; trying again/));
    expect(output.text).toContain('session: "offline"');
  }, 90_000);

  it('an unknown SWITCHBOARD_LOG_FORMAT is refused at start naming the allowed ones', async () => {
    const child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH ?? '', SWITCHBOARD_LOG_FORMAT: 'xml', SWITCHBOARD_DATA_DIR: mkdtempSync(join(tmpdir(), 'switchboard-logs-')) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).not.toBe(0);
    expect(stderr).toContain('SWITCHBOARD_LOG_FORMAT');
    expect(stderr).toContain('pretty');
  }, 90_000);
});
