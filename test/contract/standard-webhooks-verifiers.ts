import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ReceivedHook } from '@switchboard/testkit';
import { Webhook } from 'standardwebhooks';
import { vi } from 'vitest';

/**
 * The official Standard Webhooks libraries as receivers use them: npm `standardwebhooks` (a dev
 * dependency) and PyPI `standardwebhooks` (the venv of scripts/webhook-verifiers.sh, driven
 * through standard-webhooks-verify.py). Each verdict is true, or the library's error.
 */
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VERIFY_PY = fileURLToPath(new URL('./standard-webhooks-verify.py', import.meta.url));

/** The venv's python. Installed by `make unit`/`make e2e` (target webhook-verifiers); made here too when missing, so a test runs on its own. */
export async function pythonVerifier(): Promise<string> {
  try {
    return (await run('bash', ['scripts/webhook-verifiers.sh'], { cwd: ROOT })).stdout.trim();
  } catch (error) {
    const why = (error as { stderr?: string }).stderr ?? String(error);
    throw new Error(`PyPI standardwebhooks (scripts/webhook-verifiers.sh) could not be installed here: ${why}`, { cause: error });
  }
}

function signedHeaders(hook: ReceivedHook): Record<string, string> {
  return {
    'webhook-id': String(hook.headers['webhook-id']),
    'webhook-timestamp': String(hook.headers['webhook-timestamp']),
    'webhook-signature': String(hook.headers['webhook-signature']),
  };
}

/** The npm library's verdict. `laterMs` verifies as if that much time had passed (a replay). */
export function npmVerdict(secret: string, hook: ReceivedHook, laterMs = 0): true | string {
  const clock = laterMs === 0 ? null : vi.spyOn(Date, 'now').mockReturnValue(Date.now() + laterMs);
  try {
    new Webhook(secret).verify(hook.raw, signedHeaders(hook));
    return true;
  } catch (error) {
    return String(error);
  } finally {
    clock?.mockRestore();
  }
}

/** The Python library's verdicts, one run of `python` for all the checks. */
export async function pythonVerdicts(
  python: string,
  checks: { secret: string; hook: ReceivedHook; laterSeconds?: number }[],
): Promise<(true | string)[]> {
  const input = JSON.stringify(
    checks.map(({ secret, hook, laterSeconds }) => ({ secret, body: hook.raw, headers: signedHeaders(hook), laterSeconds })),
  );
  const child = execFile(python, [VERIFY_PY]);
  child.stdin!.end(input);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`standard-webhooks-verify.py exited ${code}: ${errors}`);
  return JSON.parse(output) as (true | string)[];
}
