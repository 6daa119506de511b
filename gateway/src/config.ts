import { resolve } from 'node:path';
import { EngineName, type WebhookConfig } from '@switchboard/protocol';
import { z } from 'zod';
import { globalWebhookFromEnv } from './webhooks/global-hook.js';

/** `local`: one process, SQLite. `cluster`: MessagingSession resources, engine pods, NATS. */
export type GatewayMode = 'local' | 'cluster';

/** Everything the gateway reads from its environment, checked once at start-up. */
export interface GatewayConfig {
  /** Absent means local: the fields below `globalWebhook` matter only in cluster mode. */
  readonly mode?: GatewayMode;
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly apiKey: string | undefined;
  readonly defaultEngine: EngineName;
  readonly logLevel: string;
  readonly globalWebhook: WebhookConfig | null;
  /** Cluster mode: the namespace of the MessagingSessions; unset means the kubeconfig's (or the pod's). */
  readonly namespace?: string | undefined;
  /** Cluster mode: the NATS server(s), comma-separated. */
  readonly natsUrl?: string | undefined;
}

const Env = z.object({
  SWITCHBOARD_MODE: z.enum(['local', 'cluster']).default('local'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  SWITCHBOARD_DATA_DIR: z.string().min(1).default('./data'),
  SWITCHBOARD_API_KEY: z.string().min(1).optional(),
  // NOWEB: the real engine most users want. SANDBOX (simulated, no phone) is chosen per session.
  SWITCHBOARD_DEFAULT_ENGINE: EngineName.default('NOWEB'),
  SWITCHBOARD_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SWITCHBOARD_NAMESPACE: z.string().min(1).optional(),
  SWITCHBOARD_NATS_URL: z.string().min(1).optional(),
});

export class ConfigError extends Error {}

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
  let globalWebhook: WebhookConfig | null;
  try {
    globalWebhook = globalWebhookFromEnv(env);
  } catch (error) {
    throw new ConfigError(`invalid configuration: ${(error as Error).message}`);
  }
  const config: GatewayConfig = {
    mode: e.SWITCHBOARD_MODE,
    port: e.PORT,
    host: e.HOST,
    dataDir: resolve(e.SWITCHBOARD_DATA_DIR),
    apiKey: e.SWITCHBOARD_API_KEY,
    defaultEngine: e.SWITCHBOARD_DEFAULT_ENGINE,
    logLevel: e.SWITCHBOARD_LOG_LEVEL,
    globalWebhook,
    namespace: e.SWITCHBOARD_NAMESPACE,
    natsUrl: e.SWITCHBOARD_NATS_URL,
  };
  if (config.mode === 'cluster') requireClusterSettings(config);
  return config;
}
