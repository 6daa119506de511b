#!/usr/bin/env node
import { ConfigError, readConfig } from './config.js';
import { createLocalGateway } from './local.js';

/** `make run`: the gateway in local mode, configured from the environment. */
async function main(): Promise<void> {
  const config = readConfig(process.env);
  const gateway = await createLocalGateway(config);
  const url = await gateway.listen();
  if (gateway.adminKey.generated) {
    // Shown once, on the start that generated it; only its hash is stored.
    process.stdout.write(
      `\nAdmin API key (shown once, store it now): ${gateway.adminKey.generated}\n` +
        `Send it as the X-Api-Key header. Set SWITCHBOARD_API_KEY to choose your own.\n\n`,
    );
  }
  gateway.app.log.info({ url, dataDir: config.dataDir, docs: `${url}/docs` }, 'switchboard gateway listening (local mode)');

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    gateway.app.log.info({ signal }, 'shutting down');
    await gateway.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : (error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
