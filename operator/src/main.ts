#!/usr/bin/env node
import { ConfigError, readConfig } from './config.js';
import { createLogger } from './logger.js';
import { startOperator } from './operator.js';

/** The operator's pod entry point: configuration from the environment, JSON logs on stdout. */
async function main(): Promise<void> {
  const config = readConfig(process.env);
  const log = createLogger(config.logLevel);
  const operator = await startOperator(config, { log });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    await operator.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  // A replica that loses the lease does not exit (client-go's controllers do): it stops its
  // workers and campaigns again (leader-election.ts), so an API server restart costs no restart here.
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : ((error as Error).stack ?? String(error))}\n`);
  process.exit(1);
});
