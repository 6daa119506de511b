#!/usr/bin/env node
import type { FastifyInstance } from 'fastify';
import { createClusterGateway } from './cluster/create-cluster-gateway.js';
import { ConfigError, type GatewayConfig, readConfig } from './config.js';
import { createLocalGateway } from './local/create-local-gateway.js';
import { DataDirInUse } from './local/store/data-dir-lock.js';
import { printQrCodes } from './terminal-qr.js';

interface RunningGateway {
  readonly app: FastifyInstance;
  close(): Promise<void>;
}

/** Local mode (`make run`): everything in this process. Shows a generated admin key once. */
async function startLocal(config: GatewayConfig): Promise<RunningGateway> {
  const gateway = await createLocalGateway(config);
  // Before listen(): the sessions it starts again print their QR too.
  if (config.terminalQr) printQrCodes(gateway.events, (session) => gateway.qr(session), process.stdout);
  const url = await gateway.listen();
  if (gateway.adminKey.generated) {
    // Shown once, on the start that generated it; only its hash is stored.
    process.stdout.write(
      `\nAdmin API key (shown once, store it now): ${gateway.adminKey.generated}\n` +
        `Send it as the X-Api-Key header. Set SWITCHBOARD_API_KEY to choose your own.\n\n`,
    );
  }
  gateway.app.log.info({ url, dataDir: config.dataDir, docs: `${url}/docs` }, 'switchboard gateway listening (local mode)');
  return gateway;
}

/** Cluster mode: one replica of the gateway in front of MessagingSession resources and NATS. */
async function startCluster(config: GatewayConfig): Promise<RunningGateway> {
  const gateway = await createClusterGateway(config);
  const url = await gateway.listen();
  gateway.app.log.info({ url, docs: `${url}/docs` }, 'switchboard gateway listening (cluster mode)');
  return gateway;
}

/** The gateway configured from the environment; SWITCHBOARD_MODE picks local or cluster mode. */
async function main(): Promise<void> {
  // POST /api/server/stop ends the process: at once with force, else as a SIGTERM does.
  const onStopRequested = (force: boolean) => (force ? process.exit(0) : void shutdown('POST /api/server/stop'));
  const config = { ...readConfig(process.env), onStopRequested };
  const gateway = config.mode === 'cluster' ? await startCluster(config) : await startLocal(config);

  let closing = false;
  async function shutdown(signal: string): Promise<void> {
    if (closing) return;
    closing = true;
    gateway.app.log.info({ signal }, 'shutting down');
    await gateway.close();
    process.exit(0);
  }
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  // Errors the user can fix are told in a sentence; anything else with its stack.
  const told = error instanceof ConfigError || error instanceof DataDirInUse;
  process.stderr.write(`${told ? error.message : ((error as Error).stack ?? String(error))}\n`);
  process.exit(1);
});
