import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * A PATH with only the tools `make kind-up` may use before its checks, and the given fakes: no
 * docker, podman or kind unless a test puts them there.
 */
function toolPath(fakes: Record<string, string> = {}): string {
  const bin = mkdtempSync(join(tmpdir(), 'kind-up-path-'));
  for (const tool of ['bash', 'make', 'dirname', 'env']) {
    const found = spawnSync('bash', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
    if (found) symlinkSync(found, join(bin, tool));
  }
  for (const [name, script] of Object.entries(fakes)) {
    writeFileSync(join(bin, name), `#!/bin/sh\n${script}\n`);
    chmodSync(join(bin, name), 0o755);
  }
  return bin;
}

function makeKindUp(path: string) {
  return spawnSync('make', ['--no-print-directory', 'kind-up'], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { PATH: path, HOME: tmpdir() },
    timeout: 30_000,
  });
}

describe('make kind-up checks for a container engine and kind before it builds anything (issue 12, item 19)', () => {
  it('without docker or podman it stops at once and says what is missing', () => {
    const run = makeKindUp(toolPath());
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('a container engine is required: docker or podman');
    // Nothing was installed or built: neither pnpm nor the Go build of helm and kubectl ran.
    expect(run.stdout + run.stderr).not.toMatch(/pnpm install|e2e-binaries|building/);
  });

  it('with podman but no kind it stops at once and names kind', () => {
    const run = makeKindUp(toolPath({ podman: 'exit 0' }));
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('kind is required');
    expect(run.stdout + run.stderr).not.toMatch(/pnpm install|e2e-binaries|building/);
  });

  it('a docker that does not answer is told apart from no docker', () => {
    const run = makeKindUp(toolPath({ docker: 'exit 1', kind: 'exit 0' }));
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('no container engine answers');
  });
});
