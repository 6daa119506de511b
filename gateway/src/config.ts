import { resolve } from 'node:path';
import { EngineName, type WebhookConfig } from '@switchboard/protocol';
import { z } from 'zod';
import { globalWebhookFromEnv } from './webhooks/global-hook.js';

/** Everything the gateway reads from its environment, checked once at start-up. */
export interface GatewayConfig {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly apiKey: string | undefined;
  readonly defaultEngine: EngineName;
  readonly logLevel: string;
  readonly globalWebhook: WebhookConfig | null;
}

const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  SWITCHBOARD_DATA_DIR: z.string().min(1).default('./data'),
  SWITCHBOARD_API_KEY: z.string().min(1).optional(),
  // SANDBOX until a real engine ships; then the default becomes NOWEB.
  SWITCHBOARD_DEFAULT_ENGINE: EngineName.default('SANDBOX'),
  SWITCHBOARD_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export class ConfigError extends Error {}

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
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: resolve(e.SWITCHBOARD_DATA_DIR),
    apiKey: e.SWITCHBOARD_API_KEY,
    defaultEngine: e.SWITCHBOARD_DEFAULT_ENGINE,
    logLevel: e.SWITCHBOARD_LOG_LEVEL,
    globalWebhook,
  };
}
