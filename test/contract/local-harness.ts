import { startGateway as startLocalGateway } from '../../gateway/test/support/gateway.js';
import { ADMIN_KEY, type ContractGateway, type ContractOptions } from './harness.js';

/** Local mode: the gateway package's own test gateway (loopback port, its own data dir). */
export async function startGateway(options: ContractOptions): Promise<ContractGateway> {
  const { url, api, close } = await startLocalGateway({
    apiKey: ADMIN_KEY,
    globalWebhook: options.globalWebhook ?? null,
    oauth: options.oauth ?? null,
    ...(options.mediaLifetimeSeconds === undefined ? {} : { mediaLifetimeMs: options.mediaLifetimeSeconds * 1000 }),
    ...(options.qrRenewMs === undefined ? {} : { qrRenewMs: options.qrRenewMs }),
    ...(options.defaultEngine === undefined ? {} : { defaultEngine: options.defaultEngine }),
    ...(options.wsMaxConnectionsPerKey === undefined ? {} : { wsMaxConnectionsPerKey: options.wsMaxConnectionsPerKey }),
  });
  return { url, api, close };
}
