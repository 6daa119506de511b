import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitFor } from '@switchboard/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { natsForTests } from './helpers.js';
import { REPO_ROOT } from './pod-process.js';

beforeAll(() => {
  // The pod runs from its build, as in a container: build it (incremental, quick when up to date).
  execFileSync(join(REPO_ROOT, 'node_modules/.bin/tsc'), ['-b', 'engine-pod'], { cwd: REPO_ROOT, stdio: 'pipe' });
}, 120_000);

const MAIN = join(REPO_ROOT, 'engine-pod/dist/pod/main.js');
/** Records every module URL the process resolves, and writes them as JSON to MODULES_OUT when it exits. */
const RECORDER = `data:text/javascript,${encodeURIComponent(
  [
    "import { registerHooks } from 'node:module';",
    "import { writeFileSync } from 'node:fs';",
    'const seen = new Set();',
    'registerHooks({ resolve(specifier, context, next) { const resolved = next(specifier, context); seen.add(resolved.url); return resolved; } });',
    "process.on('exit', () => writeFileSync(process.env.MODULES_OUT, JSON.stringify([...seen])));",
  ].join('\n'),
)}`;
const modulesOut = () => join(mkdtempSync(join(tmpdir(), 'sb-pod-modules-')), 'modules.json');

const nats = natsForTests();
const named = (modules: string[], name: string) => modules.filter((url) => url.includes(`/node_modules/${name}/`));

/** The modules of a pod that ran its engine until ready, then was stopped with SIGTERM. */
async function modulesOfReadyPod(engine: string): Promise<string[]> {
  const healthPort = await freePort();
  const out = modulesOut();
  const child = spawn(process.execPath, ['--import', RECORDER, MAIN], {
    env: {
      PATH: process.env.PATH,
      MODULES_OUT: out,
      SWITCHBOARD_SESSION: `graph-${engine.toLowerCase()}`,
      SWITCHBOARD_ENGINE: engine,
      SWITCHBOARD_NATS_URL: nats.server.url,
      SWITCHBOARD_HEALTH_PORT: String(healthPort),
      SWITCHBOARD_LOG_LEVEL: 'warn',
      // NOWEB dials a loopback port nothing listens on: it never reaches WhatsApp.
      SWITCHBOARD_NOWEB_WS_URL: `ws://127.0.0.1:${await freePort()}/ws/chat`,
    },
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await waitFor(async () => (await fetch(`http://127.0.0.1:${healthPort}/readyz`).catch(() => null))?.status === 200, `${engine} ready`, 30_000);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  return JSON.parse(readFileSync(out, 'utf8')) as string[];
}

describe('the engine pod process', () => {
  it('never loads the Kubernetes client: it talks to NATS only, and the client was 50 MiB of every pod and a second of its start', () => {
    // No configuration: it loads its whole static module graph, finds its environment empty and exits.
    const out = modulesOut();
    const run = spawnSync(process.execPath, ['--import', RECORDER, MAIN], { env: { PATH: process.env.PATH, MODULES_OUT: out }, encoding: 'utf8' });
    expect(run.stderr).toContain('invalid engine pod configuration');
    const modules = JSON.parse(readFileSync(out, 'utf8')) as string[];
    expect(modules.some((url) => url.includes('/engine-pod/dist/pod/engine-pod.js'))).toBe(true);
    expect(named(modules, 'nats').length).toBeGreaterThan(0);
    expect(named(modules, '@kubernetes/client-node')).toEqual([]);
  });

  it("loads only its own engine's library: a SANDBOX pod neither Baileys nor whatsapp-web.js, a NOWEB pod Baileys", async () => {
    const sandbox = await modulesOfReadyPod('SANDBOX');
    expect(sandbox.some((url) => url.includes('/engines/sandbox/'))).toBe(true);
    expect(named(sandbox, '@whiskeysockets/baileys')).toEqual([]);
    expect(named(sandbox, 'whatsapp-web.js')).toEqual([]);
    const noweb = await modulesOfReadyPod('NOWEB');
    expect(named(noweb, '@whiskeysockets/baileys').length).toBeGreaterThan(0);
    expect(named(noweb, 'whatsapp-web.js')).toEqual([]);
    // undici is for files sent by URL: loaded with the first download, not with the pod (about 5 MiB).
    expect(named(sandbox, 'undici')).toEqual([]);
    expect(named(noweb, 'undici')).toEqual([]);
  }, 90_000);
});
