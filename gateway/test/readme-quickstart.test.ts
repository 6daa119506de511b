import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startGateway, type TestGateway } from './support/gateway.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw.close();
});

/** The shell block of the README's "A first session in a few lines", as a reader copies it. */
function quickStart(): string {
  const readme = readFileSync(`${repoRoot}README.md`, 'utf8');
  const section = readme.slice(readme.indexOf('## A first session in a few lines'));
  const block = /```bash\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('README: no bash block in "A first session in a few lines"');
  return block[1]!;
}

describe('the README quick start runs as written (issue 12, item 19)', () => {
  it('on a machine whose own node is not the one of .tools: the watcher and the receiver print the events', async () => {
    const receiverPort = await freePort();
    const gatewayPort = new URL(gw.url).port;
    const script = quickStart()
      // The reader's key and ports are this test's (free ports, never fixed ones).
      .replace(/^export KEY=.*$/m, '')
      .replaceAll('localhost:3000', `127.0.0.1:${gatewayPort}`)
      .replaceAll('4000', String(receiverPort))
      // A reader types the next command after the helpers are up; a script must wait for them.
      .replace(/(&\n)(?![^\n]*&\n)/, '$1sleep 3\n');
    // The machine's PATH without the toolchain of .tools/bin: `node` there is whatever the machine has.
    const path = (process.env.PATH ?? '').split(delimiter).filter((dir) => !dir.includes('.tools')).join(delimiter);
    const child = spawn('bash', ['-c', `trap 'kill $(jobs -p) 2>/dev/null' EXIT\n${script}\nsleep 3\n`], {
      cwd: repoRoot,
      env: { PATH: path, KEY: ADMIN_KEY, HOME: process.env.HOME ?? '/tmp' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => child.once('exit', resolve));

    expect(stderr).not.toContain('WebSocket is not defined');
    expect(code).toBe(0);
    const events = stdout
      .split('\n')
      .filter((line) => line.startsWith('{"id":"evt_'))
      .map((line) => JSON.parse(line) as { event: string; payload: { body?: string } });
    // "Hi back" reaches both: once from the websocket watcher, once from the webhook receiver.
    expect(events.filter((e) => e.event === 'message' && e.payload.body === 'Hi back').length).toBe(2);
  }, 90_000);
});
