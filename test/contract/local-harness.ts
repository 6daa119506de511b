import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalGateway } from '@switchboard/gateway';
import { apiClient } from '@switchboard/testkit';
import { pino } from 'pino';
import { ADMIN_KEY, type ContractGateway, type ContractOptions } from './harness.js';

/** Local mode: a real gateway on a loopback port with its own data dir. */
export async function startGateway(options: ContractOptions): Promise<ContractGateway> {
  const gateway = await createLocalGateway({
    port: 0,
    host: '127.0.0.1',
    dataDir: mkdtempSync(join(tmpdir(), 'switchboard-contract-')),
    apiKey: ADMIN_KEY,
    defaultEngine: 'SANDBOX',
    logLevel: 'silent',
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    globalWebhook: options.globalWebhook ?? null,
    sandbox: { qrRenewMs: options.qrRenewMs ?? 60_000, ackDelaysMs: { server: 20, device: 60 } },
    webhookTimeoutMs: 2_000,
  });
  const url = await gateway.listen();
  return { url, api: apiClient(url, ADMIN_KEY), close: () => gateway.close() };
}
