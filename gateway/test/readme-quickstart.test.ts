import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sample, waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startGateway, type TestGateway } from './support/gateway.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
/** Printed after the README's block: every command of it has run. */
const DONE = 'quick-start: all commands ran';

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

/**
 * A free port below the kernel's ephemeral range. The README's receiver binds its port some time
 * after the test picks it; a port from bind(0) (testkit's freePort) can meanwhile be handed to
 * another test running beside this one, whose server then answers in our receiver's place.
 */
async function portOutsideEphemeralRange(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer().once('error', () => resolve(false));
      server.listen(port, () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

describe('the README quick start runs as written (issue 12, item 19)', () => {
  it('on a machine whose own node is not the one of .tools: the watcher and the receiver print the events', async () => {
    const receiverPort = await portOutsideEphemeralRange();
    const ready = join(mkdtempSync(join(tmpdir(), 'quick-start-')), 'helpers-up');
    const gatewayPort = new URL(gw.url).port;
    const script = quickStart()
      // The reader's key and ports are this test's (free ports, never fixed ones).
      .replace(/^export KEY=.*$/m, '')
      .replaceAll('localhost:3000', `127.0.0.1:${gatewayPort}`)
      .replaceAll('4000', String(receiverPort))
      // A reader types the next command after the helpers are up; the script waits for the test
      // to see them up (a fixed sleep was too short for a Node start on a busy machine).
      .replace(/(&\n)(?![^\n]*&\n)/, `$1until [ -e ${ready} ]; do sleep 0.1; done\n`);
    // The machine's PATH without the toolchain of .tools/bin: `node` there is whatever the machine has.
    const path = (process.env.PATH ?? '')
      .split(delimiter)
      .filter((dir) => !dir.includes('.tools'))
      .join(delimiter);
    // The block runs to its end, then the shell waits on its background watcher and receiver as a
    // reader's terminal would, until the test has seen what they print.
    const child = spawn('bash', ['-c', `${script}\necho ${DONE}\nwait\n`], {
      cwd: repoRoot,
      env: { PATH: path, KEY: ADMIN_KEY, HOME: process.env.HOME ?? '/tmp' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // curl's answers end without a newline, so an event printed right after one shares its line.
    const events = () =>
      stdout.split('\n').flatMap((line) => {
        const start = line.indexOf('{"id":"evt_');
        return start < 0 ? [] : [JSON.parse(line.slice(start)) as { event: string; payload: { body?: string } }];
      });
    const hiBack = () => events().filter((e) => e.event === 'message' && e.payload.body === 'Hi back').length;
    try {
      // Our receiver prints what it gets: a probe it printed proves the port is its own.
      await waitFor(
        async () => {
          await fetch(`http://127.0.0.1:${receiverPort}/`, { method: 'POST', body: 'quick-start-probe' }).catch(() => null);
          return stdout.includes('quick-start-probe');
        },
        'the receiver to listen',
        30_000,
      );
      await waitFor(
        async () => sample((await gw.api('GET', '/metrics')).body as string, 'switchboard_ws_clients') === 1,
        'the watcher to connect',
        30_000,
      );
      writeFileSync(ready, '');
      // "Hi back" reaches both: once from the websocket watcher, once from the webhook receiver.
      await waitFor(
        () => (stdout.includes(DONE) && hiBack() >= 2) || stderr.includes('is not defined') || child.exitCode !== null,
        'the quick start to print the events',
        60_000,
      );
    } finally {
      // The shell and its background jobs are one process group.
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
    expect(stderr).not.toContain('WebSocket is not defined');
    expect(stdout).toContain(DONE);
    expect(hiBack()).toBe(2);
  }, 90_000);
});
