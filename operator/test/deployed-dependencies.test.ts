import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The operator's image is its production install, made as docker/Dockerfile makes it
// (`pnpm deploy --prod --legacy`). It runs no engine, so it must not carry one: no messaging
// library, no browser driver, and not the engine pod's package that brings them.

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FORBIDDEN = ['@switchboard/engine-pod', '@whiskeysockets/baileys', 'whatsapp-web.js', 'puppeteer', 'puppeteer-core'];

/** The pnpm the Makefile put in .tools, else the one on PATH. */
const pnpm = existsSync(join(REPO_ROOT, '.tools/bin/pnpm')) ? join(REPO_ROOT, '.tools/bin/pnpm') : 'pnpm';

/** The name of every package a deployed tree holds: its virtual store's entries (`@scope+name@version…`). */
function installedPackages(dir: string): string[] {
  return readdirSync(join(dir, 'node_modules/.pnpm'))
    .filter((entry) => entry.indexOf('@', 1) > 0)
    .map((entry) => entry.slice(0, entry.indexOf('@', 1)).replace('+', '/'));
}

const scratch = mkdtempSync(join(tmpdir(), 'operator-deploy-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the operator's production install", () => {
  it('holds protocol and kube, and no engine: no engine-pod, Baileys, whatsapp-web.js or puppeteer', () => {
    const target = join(scratch, 'operator');
    // --prefer-offline: packages from the store the workspace was installed from. The legacy deploy
    // resolves again, from the registry's metadata, which a frozen install on a fresh machine did not
    // keep (--offline failed there with ERR_PNPM_NO_OFFLINE_META): that much is asked of the registry.
    execFileSync(pnpm, ['--filter', '@switchboard/operator', 'deploy', '--prod', '--legacy', '--prefer-offline', target], {
      cwd: REPO_ROOT,
      stdio: 'pipe',
    });
    const installed = installedPackages(target);
    expect(installed).toEqual(expect.arrayContaining(['@switchboard/protocol', '@switchboard/kube', '@kubernetes/client-node', 'nats']));
    expect(installed.filter((name) => FORBIDDEN.includes(name))).toEqual([]);
  }, 120_000);
});
