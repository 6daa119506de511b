import { resolve } from 'node:path';
import { DEFAULT_MEDIA_MAX_BYTES, gowsBinaryProblem, gowsOptionsFromEnv } from '@switchboard/engine-pod';
import { describeRefusal, MAX_NATS_REPLICAS, NATS_REPLICAS_VARIABLE, NATS_SEED_PATTERN, NATS_SEED_VARIABLE, OutboundPolicy } from '@switchboard/kube';
import { type BuiltEngine, BuiltEngineName, type WebhookConfig } from '@switchboard/protocol';
import { z } from 'zod';
import { DEFAULT_MAX_TOKEN_AGE_SECONDS, type OAuthSettings } from './auth/oauth.js';
import { type ConversionQueueLimits, DEFAULT_CONVERSION_QUEUE } from './conversions/conversion-queue.js';
import type { LogFormat } from './logger.js';
import { DEFAULT_WS_CONNECTIONS_PER_KEY } from './ws/hub.js';
import { globalWebhookFromEnv } from './webhooks/global-hook.js';

/** `local`: one process, SQLite. `cluster`: MessagingSession resources, engine pods, NATS. */
type GatewayMode = 'local' | 'cluster';

/** Everything the gateway reads from its environment, checked once at start-up. */
export interface GatewayConfig {
  /** Absent means local: the fields below `globalWebhook` matter only in cluster mode. */
  readonly mode?: GatewayMode;
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly apiKey: string | undefined;
  readonly defaultEngine: BuiltEngine;
  readonly logLevel: string;
  /** `json` (default) or `pretty` for a terminal. */
  readonly logFormat?: LogFormat;
  readonly globalWebhook: WebhookConfig | null;
  /**
   * Where requests made on a user's behalf (webhook deliveries, files sent by URL) may connect:
   * SWITCHBOARD_OUTBOUND_DENY and SWITCHBOARD_OUTBOUND_ALLOW over the built-in rules. Absent: the built-in rules only.
   */
  readonly outbound?: OutboundPolicy;
  /** Cluster mode: the namespace of the MessagingSessions; unset means the kubeconfig's (or the pod's). */
  readonly namespace?: string | undefined;
  /** Cluster mode: the NATS server(s), comma-separated. */
  readonly natsUrl?: string | undefined;
  /** Cluster mode: the gateway's NATS credentials (a `.creds` file's text), when NATS has authentication. Never logged. */
  readonly natsCredentials?: string | undefined;
  /** Cluster mode: the copies JetStream keeps of the streams and buckets the gateway makes (SWITCHBOARD_NATS_REPLICAS); 1 unless set. */
  readonly natsReplicas?: number | undefined;
  /** Cluster mode: the NATS server that ran alone before its NATS became a cluster (SWITCHBOARD_NATS_SEED, kube/src/nats/replication.ts). */
  readonly natsSeed?: string | undefined;
  /** Where clients reach this gateway, the start of every `media.url`; default `http://localhost:<port>`. */
  readonly baseUrl?: string | undefined;
  /** How long a stored media file can be downloaded; default 24 hours. */
  readonly mediaLifetimeMs?: number;
  /** The largest received file kept (SWITCHBOARD_MEDIA_MAX_BYTES); default 100 MiB. */
  readonly mediaMaxBytes?: number;
  /** OAuth 2.0 bearer tokens (scope read:items lists sessions); null or absent: not accepted. */
  readonly oauth?: OAuthSettings | null;
  /** GET /metrics without a key. */
  readonly metricsPublic?: boolean;
  /** Serve the admin's debug routes (`/api/server/debug/cpu`, `/heapsnapshot`); off by default. */
  readonly debugRoutes?: boolean;
  /** /ws ping period. */
  readonly wsPingMs?: number;
  /**
   * Local mode: how long each running session has to be WORKING again on a new client version
   * before the version change halts (local/local-rollout.ts). Default 300 s.
   */
  readonly rolloutWorkingTimeoutMs?: number;
  /** A /ws client with more unsent bytes than this is dropped. */
  readonly wsMaxBufferedBytes?: number;
  /** /ws connections one key may have open at once, per gateway (SWITCHBOARD_WS_MAX_CONNECTIONS_PER_KEY). */
  readonly wsMaxConnectionsPerKey?: number;
  /** Media conversions at once: running, waiting, per key (SWITCHBOARD_CONVERSIONS_*); default DEFAULT_CONVERSION_QUEUE. */
  readonly conversions?: ConversionQueueLimits;
  /** Serve the browser dashboard at /dashboard (SWITCHBOARD_DASHBOARD); default on. */
  readonly dashboard?: boolean;
  /** Print the QR code of each session waiting for a scan on stdout (SWITCHBOARD_TERMINAL_QR, `make run`). */
  readonly terminalQr?: boolean;
  /**
   * What `POST /api/server/stop` does once it has answered: main.ts ends the process. Left out
   * (a gateway embedded in a test or a program), the gateway closes itself.
   */
  readonly onStopRequested?: (force: boolean) => void;
}

/** A year: media is a cache of what arrived, not an archive. */
const MAX_MEDIA_LIFETIME_SECONDS = 365 * 24 * 60 * 60;

const Env = z.object({
  SWITCHBOARD_MODE: z.enum(['local', 'cluster']).default('local'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  SWITCHBOARD_DATA_DIR: z.string().min(1).default('./data'),
  SWITCHBOARD_API_KEY: z.string().min(1).optional(),
  // NOWEB: the real engine most users want. SANDBOX (simulated, no phone) is chosen per session.
  // Only an engine this build has: a default it lacks would make every session created without
  // an engine a 422, found by the first user rather than at start.
  SWITCHBOARD_DEFAULT_ENGINE: BuiltEngineName.default('NOWEB'),
  SWITCHBOARD_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SWITCHBOARD_LOG_FORMAT: z.enum(['json', 'pretty']).default('json'),
  SWITCHBOARD_NAMESPACE: z.string().min(1).optional(),
  SWITCHBOARD_NATS_URL: z.string().min(1).optional(),
  [NATS_REPLICAS_VARIABLE]: z.coerce.number().int().min(1).max(MAX_NATS_REPLICAS).default(1),
  [NATS_SEED_VARIABLE]: z.string().regex(NATS_SEED_PATTERN, 'a NATS server tag in lower case (the chart: the pod name of NATS server 0)').optional(),
  SWITCHBOARD_NATS_CREDS: z
    .string()
    .refine((text) => text.includes('BEGIN NATS USER JWT') && text.includes('BEGIN USER NKEY SEED'), 'must be the text of a NATS credentials file')
    .optional(),
  SWITCHBOARD_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  SWITCHBOARD_MEDIA_LIFETIME_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_MEDIA_LIFETIME_SECONDS)
    .default(24 * 60 * 60),
  SWITCHBOARD_MEDIA_MAX_BYTES: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).default(DEFAULT_MEDIA_MAX_BYTES),
  SWITCHBOARD_OAUTH_ISSUER: z.string().min(1).optional(),
  SWITCHBOARD_OAUTH_AUDIENCE: z.string().min(1).optional(),
  SWITCHBOARD_OAUTH_JWKS_URL: z.url({ protocol: /^https?$/ }).optional(),
  SWITCHBOARD_OAUTH_MAX_TOKEN_AGE_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(30 * 24 * 60 * 60)
    .default(DEFAULT_MAX_TOKEN_AGE_SECONDS),
  SWITCHBOARD_METRICS_PUBLIC: z.enum(['true', 'false']).default('false'),
  SWITCHBOARD_DEBUG_ROUTES: z.enum(['true', 'false']).default('false'),
  SWITCHBOARD_WS_PING_SECONDS: z.coerce.number().min(1).max(3600).default(30),
  SWITCHBOARD_ROLLOUT_WORKING_TIMEOUT_SECONDS: z.coerce.number().int().min(10).max(3600).default(300),
  SWITCHBOARD_WS_MAX_BUFFERED_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .default(8 * 1024 * 1024),
  SWITCHBOARD_WS_MAX_CONNECTIONS_PER_KEY: z.coerce.number().int().min(1).max(10_000).default(DEFAULT_WS_CONNECTIONS_PER_KEY),
  SWITCHBOARD_CONVERSIONS_RUNNING: z.coerce.number().int().min(1).max(64).default(DEFAULT_CONVERSION_QUEUE.running),
  SWITCHBOARD_CONVERSIONS_WAITING: z.coerce.number().int().min(0).max(1000).default(DEFAULT_CONVERSION_QUEUE.waiting),
  SWITCHBOARD_CONVERSIONS_PER_KEY: z.coerce.number().int().min(1).max(1000).default(DEFAULT_CONVERSION_QUEUE.perKey),
  SWITCHBOARD_DASHBOARD: z.enum(['true', 'false']).default('true'),
  SWITCHBOARD_TERMINAL_QR: z.enum(['true', 'false']).default('false'),
});

export class ConfigError extends Error {}

/**
 * Local mode runs GOWS sessions from the `switchboard-gows` binary: when GOWS is the default
 * engine, or SWITCHBOARD_GOWS_BIN names a binary, a missing one stops the start with the path and
 * how to build it, rather than failing each GOWS session later.
 */
function requireGowsBinary(env: NodeJS.ProcessEnv, defaultEngine: BuiltEngine): void {
  if (defaultEngine !== 'GOWS' && !env.SWITCHBOARD_GOWS_BIN) return;
  let problem: string | null;
  try {
    problem = gowsBinaryProblem(gowsOptionsFromEnv(env));
  } catch (error) {
    problem = (error as Error).message;
  }
  if (problem) throw new ConfigError(`invalid configuration: ${problem}`);
}

/**
 * What cluster mode cannot run without. There is no data dir to keep a generated admin key in,
 * so the key must be given; every replica checks the same one.
 */
export function requireClusterSettings(config: Pick<GatewayConfig, 'apiKey' | 'natsUrl'>): { apiKey: string; natsUrl: string } {
  const missing = [
    config.apiKey ? null : 'SWITCHBOARD_API_KEY (the admin API key, or sha512:<hex> of it)',
    config.natsUrl ? null : 'SWITCHBOARD_NATS_URL (for example nats://nats:4222)',
  ].filter((line) => line !== null);
  if (missing.length > 0) throw new ConfigError(`invalid configuration: cluster mode needs\n  ${missing.join('\n  ')}`);
  return { apiKey: config.apiKey!, natsUrl: config.natsUrl! };
}

export function readConfig(env: NodeJS.ProcessEnv): GatewayConfig {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  let outbound: OutboundPolicy;
  let globalWebhook: WebhookConfig | null;
  try {
    outbound = OutboundPolicy.fromEnv(env);
    globalWebhook = globalWebhookFromEnv(env);
  } catch (error) {
    throw new ConfigError(`invalid configuration: ${(error as Error).message}`);
  }
  const refusal = globalWebhook && outbound.refusalOfUrl(globalWebhook.url);
  if (refusal) throw new ConfigError(`invalid configuration: invalid global webhook: SWITCHBOARD_HOOK_URL: ${describeRefusal(refusal)}`);
  const config: GatewayConfig = {
    mode: e.SWITCHBOARD_MODE,
    port: e.PORT,
    host: e.HOST,
    dataDir: resolve(e.SWITCHBOARD_DATA_DIR),
    apiKey: e.SWITCHBOARD_API_KEY,
    defaultEngine: e.SWITCHBOARD_DEFAULT_ENGINE,
    logLevel: e.SWITCHBOARD_LOG_LEVEL,
    logFormat: e.SWITCHBOARD_LOG_FORMAT,
    globalWebhook,
    outbound,
    namespace: e.SWITCHBOARD_NAMESPACE,
    natsUrl: e.SWITCHBOARD_NATS_URL,
    natsCredentials: e.SWITCHBOARD_NATS_CREDS,
    natsReplicas: e[NATS_REPLICAS_VARIABLE],
    natsSeed: e[NATS_SEED_VARIABLE],
    // The lookbehind starts the match at the first "/" of a run only: linear however long the run.
    baseUrl: e.SWITCHBOARD_BASE_URL?.replace(/(?<!\/)\/+$/, ''),
    mediaLifetimeMs: e.SWITCHBOARD_MEDIA_LIFETIME_SECONDS * 1000,
    mediaMaxBytes: e.SWITCHBOARD_MEDIA_MAX_BYTES,
    oauth: oauthSettings(
      e.SWITCHBOARD_OAUTH_ISSUER,
      e.SWITCHBOARD_OAUTH_AUDIENCE,
      e.SWITCHBOARD_OAUTH_JWKS_URL,
      e.SWITCHBOARD_OAUTH_MAX_TOKEN_AGE_SECONDS,
    ),
    metricsPublic: e.SWITCHBOARD_METRICS_PUBLIC === 'true',
    debugRoutes: e.SWITCHBOARD_DEBUG_ROUTES === 'true',
    wsPingMs: e.SWITCHBOARD_WS_PING_SECONDS * 1000,
    rolloutWorkingTimeoutMs: e.SWITCHBOARD_ROLLOUT_WORKING_TIMEOUT_SECONDS * 1000,
    wsMaxBufferedBytes: e.SWITCHBOARD_WS_MAX_BUFFERED_BYTES,
    wsMaxConnectionsPerKey: e.SWITCHBOARD_WS_MAX_CONNECTIONS_PER_KEY,
    conversions: {
      running: e.SWITCHBOARD_CONVERSIONS_RUNNING,
      waiting: e.SWITCHBOARD_CONVERSIONS_WAITING,
      perKey: e.SWITCHBOARD_CONVERSIONS_PER_KEY,
    },
    dashboard: e.SWITCHBOARD_DASHBOARD === 'true',
    terminalQr: e.SWITCHBOARD_TERMINAL_QR === 'true',
  };
  if (config.mode === 'cluster') requireClusterSettings(config);
  else requireGowsBinary(env, config.defaultEngine);
  return config;
}

/** All three SWITCHBOARD_OAUTH_* turn OAuth on; some without the others is a mistake worth stopping for. */
function oauthSettings(
  issuer: string | undefined,
  audience: string | undefined,
  jwksUrl: string | undefined,
  maxTokenAgeSeconds: number,
): OAuthSettings | null {
  if (issuer && audience && jwksUrl) return { issuer, audience, jwksUrl, maxTokenAgeSeconds };
  if (!issuer && !audience && !jwksUrl) return null;
  const missing = [
    issuer ? null : 'SWITCHBOARD_OAUTH_ISSUER (the "iss" of accepted tokens)',
    audience ? null : 'SWITCHBOARD_OAUTH_AUDIENCE (the "aud" they must carry)',
    jwksUrl ? null : 'SWITCHBOARD_OAUTH_JWKS_URL (where the issuer publishes its signing keys)',
  ].filter((line) => line !== null);
  throw new ConfigError(`invalid configuration: OAuth 2.0 needs all three settings; missing\n  ${missing.join('\n  ')}`);
}
