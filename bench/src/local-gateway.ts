import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalGateway, type LocalGateway, readConfig } from '@switchboard/gateway';

export interface BenchGateway {
  readonly gateway: LocalGateway;
  readonly url: string;
  /** Closes the gateway and removes its data dir. */
  close(): Promise<void>;
}

/**
 * A local-mode gateway configured as `make run` configures it (from the environment it reads,
 * every other setting at its default), but SANDBOX by default, logs off, on a free loopback port
 * and in a fresh data dir. `beforeListen` may add routes to its app (send-text.ts's baseline).
 */
export async function startBenchGateway(apiKey: string, beforeListen?: (gateway: LocalGateway) => void): Promise<BenchGateway> {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-'));
  const gateway = await createLocalGateway(
    readConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      SWITCHBOARD_DATA_DIR: dataDir,
      SWITCHBOARD_API_KEY: apiKey,
      SWITCHBOARD_DEFAULT_ENGINE: 'SANDBOX',
      SWITCHBOARD_LOG_LEVEL: 'silent',
    }),
  );
  beforeListen?.(gateway);
  const url = await gateway.listen();
  return {
    gateway,
    url,
    async close() {
      await gateway.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
