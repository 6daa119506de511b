import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OutboundPolicy } from '@switchboard/kube';
import type { BuiltEngine, WebhookConfig } from '@switchboard/protocol';
import { type ApiCall, apiClient } from '@switchboard/testkit';
import { pino } from 'pino';
import type { ConversionQueueLimits } from '../../src/conversions/conversion-queue.js';
import { createLocalGateway, type LocalGateway } from '../../src/local/create-local-gateway.js';

export const ADMIN_KEY = 'test-admin-key-0123456789';

export interface TestGateway {
  readonly url: string;
  readonly dataDir: string;
  readonly gateway: LocalGateway;
  /** fetch against the gateway with the admin key (or `key`; `null` for none), JSON in and out. */
  readonly api: ApiCall;
  readonly close: () => Promise<void>;
}

export interface StartOptions {
  readonly dataDir?: string;
  readonly apiKey?: string | undefined;
  readonly globalWebhook?: WebhookConfig | null;
  readonly qrRenewMs?: number;
  /** OAuth 2.0 bearer tokens of this issuer are accepted. */
  readonly oauth?: { issuer: string; audience: string; jwksUrl: string } | null;
  /** How long stored media can be downloaded; default a day. */
  readonly mediaLifetimeMs?: number;
  /** GET /metrics without a key. */
  readonly metricsPublic?: boolean;
  /** /ws ping period and unsent-bytes cap. */
  readonly wsPingMs?: number;
  readonly wsMaxBufferedBytes?: number;
  /** /ws connections one key may have open (SWITCHBOARD_WS_MAX_CONNECTIONS_PER_KEY). */
  readonly wsMaxConnectionsPerKey?: number;
  /** Media conversions at once (SWITCHBOARD_CONVERSIONS_*). */
  readonly conversions?: ConversionQueueLimits;
  /** Where webhooks and files sent by URL may connect; default: the built-in rules. */
  readonly outbound?: OutboundPolicy;
  /** Serve the dashboard at /dashboard (when built); default true, as SWITCHBOARD_DASHBOARD. */
  readonly dashboard?: boolean;
  /** What POST /api/server/stop does; default: the gateway closes itself. */
  readonly onStopRequested?: (force: boolean) => void;
  /** Serve /api/server/debug/*, as SWITCHBOARD_DEBUG_ROUTES=true. */
  readonly debugRoutes?: boolean;
  /** The engine of sessions created without one; default SANDBOX. */
  readonly defaultEngine?: BuiltEngine;
}

/** A real gateway in local mode, listening on a free loopback port, with its own data dir. */
export async function startGateway(options: StartOptions = {}): Promise<TestGateway> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'switchboard-test-'));
  const apiKey = 'apiKey' in options ? options.apiKey : ADMIN_KEY;
  const gateway = await createLocalGateway({
    port: 0,
    host: '127.0.0.1',
    dataDir,
    apiKey,
    defaultEngine: options.defaultEngine ?? 'SANDBOX',
    logLevel: 'silent',
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    globalWebhook: options.globalWebhook ?? null,
    oauth: options.oauth ?? null,
    ...(options.mediaLifetimeMs === undefined ? {} : { mediaLifetimeMs: options.mediaLifetimeMs }),
    metricsPublic: options.metricsPublic ?? false,
    ...(options.wsPingMs === undefined ? {} : { wsPingMs: options.wsPingMs }),
    ...(options.wsMaxBufferedBytes === undefined ? {} : { wsMaxBufferedBytes: options.wsMaxBufferedBytes }),
    ...(options.wsMaxConnectionsPerKey === undefined ? {} : { wsMaxConnectionsPerKey: options.wsMaxConnectionsPerKey }),
    ...(options.conversions ? { conversions: options.conversions } : {}),
    sandbox: { qrRenewMs: options.qrRenewMs ?? 60_000, ackDelaysMs: { server: 20, device: 60 } },
    webhookTimeoutMs: 2_000,
    ...(options.outbound ? { outbound: options.outbound } : {}),
    ...(options.dashboard === undefined ? {} : { dashboard: options.dashboard }),
    ...(options.onStopRequested ? { onStopRequested: options.onStopRequested } : {}),
    ...(options.debugRoutes ? { debugRoutes: true } : {}),
  });
  const url = await gateway.listen();
  return { url, dataDir, gateway, api: apiClient(url, apiKey ?? ADMIN_KEY), close: () => gateway.close() };
}

/** Creates a SANDBOX session and pairs it by simulating the scan; returns when WORKING. */
export async function workingSession(gw: { api: ApiCall }, name: string, extra: Record<string, unknown> = {}) {
  const created = await gw.api('POST', '/api/sessions', { name, ...extra });
  if (created.status !== 201) throw new Error(`create failed: ${created.status} ${JSON.stringify(created.body)}`);
  const scanned = await gw.api('POST', `/api/${name}/sandbox/simulate`, { kind: 'scan' });
  if (scanned.status !== 201) throw new Error(`scan failed: ${scanned.status} ${JSON.stringify(scanned.body)}`);
  return scanned.body;
}
