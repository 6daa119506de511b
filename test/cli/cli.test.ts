import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startGateway, type TestGateway } from '../../gateway/test/support/gateway.js';
import { decodeTextQr, qrBlocks } from './text-qr.js';

/** `switchboard qr` and `switchboard status`, the built CLI as a user runs it, against a real gateway. */
const CLI = fileURLToPath(new URL('../../cli/dist/main.js', import.meta.url));
const STEP_MS = 15_000;

let gw: TestGateway;
beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run make build`);
  // QR codes renewed only by what the test does (a restart), so "current" is well defined.
  gw = await startGateway({ qrRenewMs: 600_000 });
});
afterAll(() => gw?.close());

function run(args: string[], env: Record<string, string> = {}): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, SWITCHBOARD_URL: gw.url, SWITCHBOARD_API_KEY: ADMIN_KEY, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

const currentQr = async (session: string) => (await gw.api('GET', `/api/${session}/auth/qr?format=raw`)).body.value as string;

describe('switchboard qr <session>', () => {
  it('prints the QR as text that decodes to the current value, a new one when it is renewed, and ends at WORKING', async () => {
    expect((await gw.api('POST', '/api/sessions', { name: 'cli', engine: 'SANDBOX' })).status).toBe(201);
    await waitFor(async () => (await gw.api('GET', '/api/sessions/cli')).body.status === 'SCAN_QR_CODE', 'SCAN_QR_CODE', STEP_MS);
    // A control key of the session is all it needs (it polls: a control key cannot open /ws).
    const control = (await gw.api('POST', '/api/keys/control', { session: 'cli' })).body.key as string;
    const cli = run(['qr', 'cli'], { SWITCHBOARD_API_KEY: control });

    await waitFor(() => qrBlocks(cli.output()).length === 1, 'the first QR', STEP_MS);
    const first = decodeTextQr(qrBlocks(cli.output())[0]!);
    expect(first).toBe(await currentQr('cli'));
    expect(cli.output()).toContain('Scan with the phone (Linked devices) to pair cli');

    // A restart makes a new code: printed again, and it decodes to the new value.
    expect((await gw.api('POST', '/api/sessions/cli/restart')).status).toBe(201);
    await waitFor(() => qrBlocks(cli.output()).length === 2, 'the renewed QR', STEP_MS);
    const second = decodeTextQr(qrBlocks(cli.output())[1]!);
    expect(second).not.toBe(first);
    expect(second).toBe(await currentQr('cli'));

    expect((await gw.api('POST', '/api/cli/sandbox/simulate', { kind: 'scan' })).status).toBe(201);
    expect(await cli.exited).toBe(0);
    expect(cli.output()).toContain('cli is WORKING: paired as Sandbox (15550000000@c.us)');
  });

  it('says why it stops: a STOPPED session, a wrong key', async () => {
    expect((await gw.api('POST', '/api/sessions', { name: 'stopped', start: false })).status).toBe(201);
    const stopped = run(['qr', 'stopped']);
    expect(await stopped.exited).toBe(1);
    expect(stopped.output()).toContain('stopped is STOPPED: start it first');
    const wrong = run(['qr', 'cli'], { SWITCHBOARD_API_KEY: 'wrong' });
    expect(await wrong.exited).toBe(1);
    expect(wrong.output()).toContain('401');
  });
});

describe('switchboard status', () => {
  it('lists every session with its engine, status and account', async () => {
    const status = run(['status']);
    expect(await status.exited).toBe(0);
    const lines = status.output().trim().split('\n');
    expect(lines[0]).toMatch(/^SESSION\s+ENGINE\s+STATUS\s+ACCOUNT$/);
    expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/^cli\s+SANDBOX\s+WORKING\s+Sandbox \(15550000000@c\.us\)$/)]));
    expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/^stopped\s+SANDBOX\s+STOPPED\s+-$/)]));
  });
});

describe('text from the gateway on the terminal', () => {
  it("prints an account's name without its control characters: no escape sequence reaches the terminal", async () => {
    // The account owner chooses the name: this one would clear the screen, retitle the window and ring.
    const name = '\x1b[2J\x1b]0;owned\x07E\rve\x9b31m';
    expect((await gw.api('PUT', '/api/cli/profile/name', { name })).status).toBe(200);
    expect((await gw.api('GET', '/api/sessions/cli')).body.me.pushName).toBe(name);

    const status = run(['status']);
    expect(await status.exited).toBe(0);
    const qr = run(['qr', 'cli']);
    expect(await qr.exited).toBe(0);
    for (const output of [status.output(), qr.output()]) {
      // eslint-disable-next-line no-control-regex -- the point: none but the line ends
      expect(output).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    }
    expect(status.output()).toMatch(/^cli\s+SANDBOX\s+WORKING\s+Eve \(15550000000@c\.us\)$/m);
    expect(qr.output()).toContain('cli is WORKING: paired as Eve (15550000000@c.us)');
  });
});
