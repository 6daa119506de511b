import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@switchboard/testkit';
import { ADMIN_KEY } from './gateway.js';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** A started gateway process, with what it wrote to stderr so far and its exit code to come. */
export interface GatewayProcess {
  readonly child: ChildProcess;
  readonly port: number;
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
}

/**
 * The built gateway as its own process, the way `make run` starts it, on 127.0.0.1:`port` with a
 * SANDBOX default engine and the test admin key. Returns at once: for a start that is meant to
 * fail, or whose listening the caller waits for itself.
 */
export function gatewayProcess(dataDir: string, port: number, env: Record<string, string> = {}): GatewayProcess {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run make build first`);
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      SWITCHBOARD_DATA_DIR: dataDir,
      SWITCHBOARD_API_KEY: ADMIN_KEY,
      SWITCHBOARD_DEFAULT_ENGINE: 'SANDBOX',
      SWITCHBOARD_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, port, stderr: () => stderr, exited };
}

/** Whether the gateway on `port` answers /health. */
export const healthy = async (port: number): Promise<boolean> => (await fetch(`http://127.0.0.1:${port}/health`).catch(() => null))?.ok === true;

/**
 * gatewayProcess, resolved once it answers /health. The caller kills it (a failed start is killed
 * here). A start takes up to 18 s on a loaded 2-core machine.
 */
export async function spawnGateway(dataDir: string, port: number, env: Record<string, string> = {}): Promise<ChildProcess> {
  const { child } = gatewayProcess(dataDir, port, env);
  try {
    await waitFor(() => healthy(port), 'the gateway to listen', 30_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return child;
}
