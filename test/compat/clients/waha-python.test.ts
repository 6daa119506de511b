import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, type ContractGateway, startGateway } from '../../contract/harness.js';

/**
 * Issue 16's proof: the peer's own Python client (PyPI `waha`, pinned in scripts/peer-clients.sh)
 * drives a gateway through a bot's workflow (waha_python_workflow.py), in local and cluster mode.
 */
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const WORKFLOW = fileURLToPath(new URL('./waha_python_workflow.py', import.meta.url));

let gw: ContractGateway;
let python: string;

beforeAll(async () => {
  // Installed by `make unit`/`make e2e` (target peer-clients); made here too when missing, so the test runs on its own.
  try {
    python = (await run('bash', ['scripts/peer-clients.sh', 'python'], { cwd: ROOT })).stdout.trim();
  } catch (error) {
    const why = (error as { stderr?: string }).stderr ?? String(error);
    throw new Error(`the peer's Python client (PyPI waha, scripts/peer-clients.sh) could not be installed here: ${why}`, { cause: error });
  }
  gw = await startGateway();
}, 180_000);
afterAll(async () => {
  await gw?.close();
});

describe("the peer's Python client (PyPI waha)", () => {
  it('pairs a SANDBOX session, sends, receives, reads history, reacts and cleans up', async () => {
    const result = await run(python, [WORKFLOW, gw.url, ADMIN_KEY, 'pyclient'], { timeout: 120_000 }).catch((error: unknown) => {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      return { stdout: stdout ?? '', stderr: stderr ?? (error instanceof Error ? error.message : 'the workflow did not run') };
    });
    const failed = result.stdout.split('\n').find((line) => line.startsWith('FAILED'));
    expect(failed, `${result.stdout}\n${result.stderr}`).toBeUndefined();
    expect(result.stdout).toContain('workflow done');
    // Where the client disagrees with the peer's own document (and so with this gateway), each said in the workflow.
    const known = result.stdout.split('\n').filter((line) => line.startsWith('known '));
    expect(known.map((line) => line.slice(6, line.indexOf(':')))).toEqual(['auth.get_qr_code raw', 'auth.get_qr_code image']);
  }, 120_000);
});
