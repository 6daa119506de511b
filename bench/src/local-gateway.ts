import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalGateway, type LocalGateway } from '@switchboard/gateway';
import { pino } from 'pino';

export interface BenchGateway {
  readonly gateway: LocalGateway;
  readonly url: string;
  /** Closes the gateway and removes its data dir. */
  close(): Promise<void>;
}

/** A local-mode gateway as `make run` starts it (SANDBOX by default, logs off), in a fresh data dir. */
export async function startBenchGateway(apiKey: string): Promise<BenchGateway> {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-'));
  const gateway = await createLocalGateway({
    port: 0,
    host: '127.0.0.1',
    dataDir,
    apiKey,
    defaultEngine: 'SANDBOX',
    logLevel: 'silent',
    logger: pino({ level: 'silent' }),
    globalWebhook: null,
  });
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
