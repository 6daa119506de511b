import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
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
  for (const tool of ['bash', 'make', 'dirname', 'env', 'cat', 'basename', 'grep']) {
    const found = spawnSync('bash', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
    if (found) symlinkSync(found, join(bin, tool));
  }
  for (const [name, script] of Object.entries(fakes)) {
    writeFileSync(join(bin, name), `#!/bin/sh\n${script}\n`);
    chmodSync(join(bin, name), 0o755);
  }
  return bin;
}

function kindUp(path: string, args: string[], env: Record<string, string> = {}) {
  return spawnSync('bash', ['scripts/kind-up.sh', ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { PATH: path, HOME: tmpdir(), ...env },
    timeout: 30_000,
  });
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

  it('with docker and kind but no buildah and podman to build the images (nor apt-get to install them) it stops at once and names them', () => {
    const run = makeKindUp(toolPath({ docker: 'exit 0', kind: 'exit 0' }));
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('buildah and podman are required to build the images as make images does');
    expect(run.stdout + run.stderr).not.toMatch(/pnpm install|e2e-binaries|building/);
  });

  it('a docker that does not answer is told apart from no docker', () => {
    const run = makeKindUp(toolPath({ docker: 'exit 1', kind: 'exit 0' }));
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('no container engine answers');
  });
});

describe('make kind-up loads the OCI archives make images writes (issue 14, part 3)', () => {
  it('--load puts each archive of the build into the cluster with kind load image-archive, and nothing else', () => {
    const images = mkdtempSync(join(tmpdir(), 'kind-up-images-'));
    // What scripts/images.sh leaves: <target>.oci.tar, and <target>.oci.id naming the image in it.
    const archive = (target: string, ref: string) => {
      writeFileSync(join(images, `${target}.oci.tar`), 'oci');
      writeFileSync(join(images, `${target}.oci.id`), `sha256:0123:${ref}\n`);
    };
    archive('gateway', 'localhost/switchboard/gateway:dev');
    archive('engine', 'localhost/switchboard/engine:dev');
    archive('operator', 'localhost/switchboard/operator:1.0'); // another build's tag: not this one
    const calls = join(images, 'kind-calls');
    const kind = `echo "$*" >> ${calls}; [ "$1 $2" = "get clusters" ] && echo switchboard; exit 0`;
    const run = kindUp(toolPath({ docker: 'exit 0', kind }), ['--load'], { IMAGES_DIR: images });
    expect(run.status, run.stderr).toBe(0);
    const invoked = readFileSync(calls, 'utf8').trim().split('\n');
    expect(invoked.filter((call) => call.startsWith('load '))).toEqual([
      `load image-archive --name switchboard ${join(images, 'engine.oci.tar')}`,
      `load image-archive --name switchboard ${join(images, 'gateway.oci.tar')}`,
    ]);
    // The cluster existed: not created again; and nothing was built or installed.
    expect(invoked.some((call) => call.startsWith('create'))).toBe(false);
    expect(run.stdout + run.stderr).not.toMatch(/pnpm install|e2e-binaries|building/);
  });

  it('--load without archives of the build says to run make images', () => {
    const images = mkdtempSync(join(tmpdir(), 'kind-up-images-'));
    const run = kindUp(toolPath({ docker: 'exit 0', kind: 'exit 0' }), ['--load'], { IMAGES_DIR: images });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('no image archives of localhost/switchboard/*:dev');
    expect(run.stderr).toContain('run make images');
  });
});
