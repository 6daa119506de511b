import type { WebhookConfig } from '@switchboard/protocol';
import { type ApiCall, waitFor, WsClient } from '@switchboard/testkit';

/**
 * The contract suite runs unchanged against local mode and cluster mode: the REST surface and
 * its answers must be the same in both. SWITCHBOARD_CONTRACT_MODE picks the gateway.
 */
export interface ContractGateway {
  readonly url: string;
  readonly api: ApiCall;
  close(): Promise<void>;
}

export interface ContractOptions {
  readonly globalWebhook?: WebhookConfig | null;
  /** Local mode only: in cluster mode the QR period is a property of the engine pods. */
  readonly qrRenewMs?: number;
  /** OAuth 2.0 bearer tokens of this issuer are accepted (SWITCHBOARD_OAUTH_*). */
  readonly oauth?: { issuer: string; audience: string; jwksUrl: string } | null;
  /** How long stored media can be downloaded (SWITCHBOARD_MEDIA_LIFETIME_SECONDS); default a day. */
  readonly mediaLifetimeSeconds?: number;
  /** The engine of sessions created without one (SWITCHBOARD_DEFAULT_ENGINE); default SANDBOX. */
  readonly defaultEngine?: 'SANDBOX' | 'NOWEB';
  /** /ws connections one key may have open (SWITCHBOARD_WS_MAX_CONNECTIONS_PER_KEY); default 10. */
  readonly wsMaxConnectionsPerKey?: number;
}

export const ADMIN_KEY = 'test-admin-key-0123456789';
export const mode = (process.env.SWITCHBOARD_CONTRACT_MODE ?? 'local') as 'local' | 'cluster';

export async function startGateway(options: ContractOptions = {}): Promise<ContractGateway> {
  const harness = mode === 'cluster' ? await import('./cluster-harness.js') : await import('./local-harness.js');
  return harness.startGateway(options);
}

/** Creates a SANDBOX session and pairs it by simulating the scan; returns when WORKING. */
export async function workingSession(gw: { api: ApiCall }, name: string, extra: Record<string, unknown> = {}) {
  const created = await gw.api('POST', '/api/sessions', { name, ...extra });
  if (created.status !== 201) throw new Error(`create failed: ${created.status} ${JSON.stringify(created.body)}`);
  await waitForStatus(gw, name, 'SCAN_QR_CODE');
  const scanned = await gw.api('POST', `/api/${name}/sandbox/simulate`, { kind: 'scan' });
  if (scanned.status !== 201) throw new Error(`scan failed: ${scanned.status} ${JSON.stringify(scanned.body)}`);
  await waitForStatus(gw, name, 'WORKING');
  return scanned.body;
}

/** Polls the session until it reports `status` (cluster mode reports asynchronously). */
export async function waitForStatus(gw: { api: ApiCall }, name: string, status: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    const res = await gw.api('GET', `/api/sessions/${name}`);
    last = res.status === 200 ? res.body.status : `HTTP ${res.status}`;
    if (last === status) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`session '${name}' did not reach ${status} within ${timeoutMs} ms (last: ${last})`);
}

/**
 * A session's QR code as a raw value, once it shows one: cluster mode reports SCAN_QR_CODE before
 * the engine pod answers the QR request, so the request is polled too.
 */
export async function rawQr(gw: { api: ApiCall }, name: string, timeoutMs = 15_000): Promise<string> {
  await waitForStatus(gw, name, 'SCAN_QR_CODE', timeoutMs);
  return waitFor(async () => {
    const res = await gw.api('GET', `/api/${name}/auth/qr?format=raw`);
    return res.status === 200 && (res.body.value as string);
  }, `a QR code of session '${name}'`);
}

/**
 * Restarts a session and waits for its new engine's WORKING: in cluster mode the session record
 * says WORKING until the operator has seen the restart, so it is the events that tell.
 */
export async function restarted(gw: ContractGateway, name: string, timeoutMs = 15_000): Promise<void> {
  const ws = await WsClient.connect(gw.url, `x-api-key=${ADMIN_KEY}&session=${name}&events=session.status`);
  try {
    const res = await gw.api('POST', `/api/sessions/${name}/restart`);
    if (res.status !== 201) throw new Error(`restart failed: ${res.status} ${JSON.stringify(res.body)}`);
    const statuses = () => ws.events('session.status').map((e) => e.payload.status as string);
    await waitFor(
      () => {
        const seen = statuses();
        const starting = seen.indexOf('STARTING');
        return starting >= 0 && seen.indexOf('WORKING', starting) > starting;
      },
      'STARTING, then WORKING',
      timeoutMs,
    );
  } finally {
    ws.close();
  }
}
