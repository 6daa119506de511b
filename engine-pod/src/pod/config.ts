import { hostname } from 'node:os';
import { OutboundPolicy } from '@switchboard/kube/pod';
import { z } from 'zod';
import { DEFAULT_MEDIA_MAX_BYTES, MEDIA_MAX_BYTES_VARIABLE } from '../media/media-limit.js';
import {
  AppConfig,
  AVAILABLE_ENGINES,
  EngineName,
  EngineSettings,
  Metadata,
  ProxyConfig,
  SENDING_VARIABLE,
  SendingConfig,
  SessionName,
} from '@switchboard/protocol';

/** Everything an engine pod reads from its environment (set by the operator), checked at start-up. */
export interface PodConfig {
  readonly session: string;
  readonly engine: EngineName;
  /** One or more servers (comma-separated in the variable); never logged, they may hold credentials. */
  readonly natsServers: readonly string[];
  /**
   * The pod's NATS credentials (a `.creds` file's text: user JWT and seed), when NATS has
   * authentication on; never logged. They allow this session's subjects and keys only.
   */
  readonly natsCredentials: string | undefined;
  readonly podName: string;
  /** The pod's uid (downward API): lets a restarted container take back its pod's lease at once. */
  readonly podUid: string | undefined;
  readonly metadata: Record<string, string>;
  /** The session's apps (spec 2.3), as the resource's `spec.apps`. */
  readonly apps: AppConfig[];
  /** Paced sending (`spec.config.sending`, SWITCHBOARD_SENDING); off when absent. `host.sendQueue.setConfig` changes it live. */
  readonly sending: SendingConfig | undefined;
  /** The engine settings of the resource's `spec.config` (proxy, ignore, client, noweb). */
  readonly settings: EngineSettings;
  readonly healthPort: number;
  /** Where clients reach the gateway: the start of every `media.url` this pod gives out. */
  readonly baseUrl: string;
  /** The largest received file kept (SWITCHBOARD_MEDIA_MAX_BYTES). */
  readonly mediaMaxBytes: number;
  /** Where files sent by URL may be downloaded from: SWITCHBOARD_OUTBOUND_DENY and _ALLOW over the built-in rules. */
  readonly outbound: OutboundPolicy;
  readonly logLevel: LogLevel;
  readonly sandboxQrRenewMs: number | undefined;
}

const AppConfigs = z.array(AppConfig);

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {}

/** A variable's reader: its value, or an Error whose message says what is wrong with it. */
type Reader<T> = (raw: string | undefined) => T;

/**
 * Reads and checks every variable before anything starts, and reports all that are wrong at
 * once, each by name. Session, engine and metadata are checked by the protocol's schemas, the
 * same rules the gateway applies to them.
 */
export function readPodConfig(env: NodeJS.ProcessEnv): PodConfig {
  const problems: string[] = [];
  const read = <T>(name: string, reader: Reader<T>): T => {
    try {
      return reader(env[name] === '' ? undefined : env[name]);
    } catch (error) {
      problems.push(`${name}: ${(error as Error).message}`);
      return undefined as T;
    }
  };
  const config: PodConfig = {
    session: read('SWITCHBOARD_SESSION', (raw) => schema(SessionName, required(raw))),
    engine: read('SWITCHBOARD_ENGINE', (raw) => availableEngine(schema(EngineName, raw ?? 'SANDBOX'))),
    natsServers: read('SWITCHBOARD_NATS_URL', (raw) => servers(required(raw))),
    natsCredentials: read('SWITCHBOARD_NATS_CREDS', (raw) => raw && credentials(raw)),
    podName: read('SWITCHBOARD_POD_NAME', (raw) => raw ?? hostname()),
    podUid: read('SWITCHBOARD_POD_UID', (raw) => (raw === '' ? undefined : raw)),
    metadata: read('SWITCHBOARD_METADATA', (raw) => schema(Metadata, json(raw ?? '{}'))),
    apps: read('SWITCHBOARD_APPS', (raw) => schema(AppConfigs, json(raw ?? '[]', 'a JSON array of apps, e.g. [{"app":"calls"}]'))),
    sending: read(SENDING_VARIABLE, (raw) =>
      raw === undefined ? undefined : schema(SendingConfig, json(raw, 'a JSON object, e.g. {"perMinute":10}')),
    ),
    settings: withProxyPassword(
      read('SWITCHBOARD_ENGINE_SETTINGS', (raw) =>
        schema(EngineSettings, json(raw ?? '{}', 'a JSON object, e.g. {"proxy":{"server":"proxy:3128"}}')),
      ),
      read('SWITCHBOARD_PROXY_PASSWORD', (raw) => raw && schema(ProxyConfig.shape.password.unwrap().unwrap(), raw)),
    ),
    healthPort: read('SWITCHBOARD_HEALTH_PORT', (raw) => integer(raw ?? '8080', 0, 65_535)),
    baseUrl: read('SWITCHBOARD_BASE_URL', (raw) => httpUrl(raw ?? 'http://localhost:3000')),
    mediaMaxBytes: read(MEDIA_MAX_BYTES_VARIABLE, (raw) => (raw === undefined ? DEFAULT_MEDIA_MAX_BYTES : integer(raw, 1, Number.MAX_SAFE_INTEGER))),
    outbound: outboundPolicy(env, problems),
    logLevel: read('SWITCHBOARD_LOG_LEVEL', (raw) => oneOf(LOG_LEVELS, raw ?? 'info')),
    sandboxQrRenewMs: read('SWITCHBOARD_SANDBOX_QR_RENEW_MS', (raw) => (raw === undefined ? undefined : integer(raw, 1, 3_600_000))),
  };
  if (problems.length > 0) throw new ConfigError(`invalid engine pod configuration:\n  ${problems.join('\n  ')}`);
  return config;
}

/** Two variables: the policy's own message names the one that is wrong. */
function outboundPolicy(env: NodeJS.ProcessEnv, problems: string[]): OutboundPolicy {
  try {
    return OutboundPolicy.fromEnv(env);
  } catch (error) {
    problems.push((error as Error).message);
    return undefined as never;
  }
}

/**
 * The proxy's password comes in a variable of its own, which the operator fills from the Secret
 * the resource names (`proxy.passwordFrom`), so the pod spec holds none. Never logged.
 */
function withProxyPassword(settings: EngineSettings, password: string | undefined): EngineSettings {
  if (!settings?.proxy || password === undefined) return settings;
  return { ...settings, proxy: { ...settings.proxy, password } };
}

function required(raw: string | undefined): string {
  if (raw === undefined) throw new Error('required');
  return raw;
}

/** A protocol zod schema, as far as reading one value needs it. */
interface SchemaIssue {
  readonly path: PropertyKey[];
  readonly message: string;
}
interface Schema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: SchemaIssue[] } };
}

function schema<T>(type: Schema<T>, value: unknown): T {
  const parsed = type.safeParse(value);
  if (parsed.success) return parsed.data;
  const where = (path: PropertyKey[]) => (path.length > 0 ? `${path.map(String).join('.')}: ` : '');
  throw new Error(parsed.error.issues.map((issue) => `${where(issue.path)}${issue.message}`).join('; '));
}

function servers(raw: string): string[] {
  const urls = raw
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
  if (urls.length === 0) throw new Error('must name at least one server, e.g. nats://nats:4222');
  return urls;
}

function credentials(raw: string): string {
  // Checked for shape only; the content is a secret and stays out of the message.
  if (!raw.includes('BEGIN NATS USER JWT') || !raw.includes('BEGIN USER NKEY SEED')) {
    throw new Error('must be the text of a NATS credentials file (a user JWT and its nkey seed)');
  }
  return raw;
}

function availableEngine(engine: EngineName): EngineName {
  if (!AVAILABLE_ENGINES.includes(engine)) {
    throw new Error(`${engine} is not in this engine pod build (it has ${AVAILABLE_ENGINES.join(', ')})`);
  }
  return engine;
}

function json(raw: string, expected = 'a JSON object of strings, e.g. {"team":"sales"}'): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw new Error(`must be ${expected}`);
  }
}

function httpUrl(raw: string): string {
  if (!/^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/.test(raw)) {
    throw new Error(`must be the gateway's public http(s) URL, e.g. https://api.example.com, got '${raw}'`);
  }
  // The lookbehind starts the match at the first "/" of a run only: linear however long the run.
  return raw.replace(/(?<!\/)\/+$/, '');
}

function integer(raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`must be a whole number from ${min} to ${max}, got '${raw}'`);
  }
  return value;
}

function oneOf<T extends string>(allowed: readonly T[], raw: string): T {
  if (!(allowed as readonly string[]).includes(raw)) throw new Error(`must be one of ${allowed.join(', ')}, got '${raw}'`);
  return raw as T;
}
