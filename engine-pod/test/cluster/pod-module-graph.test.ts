import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './pod-process.js';

beforeAll(() => {
  // The pod runs from its build, as in a container: build it (incremental, quick when up to date).
  execFileSync(join(REPO_ROOT, 'node_modules/.bin/tsc'), ['-b', 'engine-pod'], { cwd: REPO_ROOT, stdio: 'pipe' });
}, 120_000);

/**
 * Every module URL the engine pod's entry point loads: `dist/pod/main.js` started with a resolve
 * hook that records them, and with no configuration, so it loads its whole module graph, finds
 * its environment empty and exits.
 */
function podModules(): string[] {
  const hook = [
    "import { registerHooks } from 'node:module';",
    'const seen = new Set();',
    'registerHooks({ resolve(specifier, context, next) { const resolved = next(specifier, context); seen.add(resolved.url); return resolved; } });',
    "process.on('exit', () => process.stdout.write(JSON.stringify([...seen])));",
  ].join('\n');
  const run = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(hook)}`, join(REPO_ROOT, 'engine-pod/dist/pod/main.js')],
    {
      env: { PATH: process.env.PATH },
      encoding: 'utf8',
    },
  );
  expect(run.stderr).toContain('invalid engine pod configuration');
  return JSON.parse(run.stdout) as string[];
}

describe('the engine pod process', () => {
  it('never loads the Kubernetes client: it talks to NATS only, and the client was 70 MiB of every pod and a second of its start', () => {
    const modules = podModules();
    expect(modules.some((url) => url.includes('/engine-pod/dist/pod/engine-pod.js'))).toBe(true);
    expect(modules.some((url) => url.includes('/nats/'))).toBe(true);
    expect(modules.filter((url) => url.includes('@kubernetes/client-node'))).toEqual([]);
  });
});
