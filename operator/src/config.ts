import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { KubeConfig } from '@kubernetes/client-node';
import {
  MAX_NATS_REPLICAS,
  NATS_REPLICAS_VARIABLE,
  NATS_SEED_PATTERN,
  NATS_SEED_VARIABLE,
  OUTBOUND_ALLOW_VARIABLE,
  OUTBOUND_DENY_VARIABLE,
  OutboundPolicy,
} from '@switchboard/kube';
import {
  type BuiltEngine,
  CLIENT_VERSION_ENGINES,
  clientVersionFromEnv,
  clientVersionVariable,
  DEFAULT_SILENCE_TIMEOUT_MS,
  SENDING_VARIABLE,
  SILENCE_TIMEOUT_VARIABLE,
  silenceTimeoutFromEnv,
} from '@switchboard/protocol';
import { z } from 'zod';
import { type EngineResources, engineResources, EngineResourcesOverrides } from './engine-resources.js';
import type { RolloutAmount, RolloutSettings } from './rollout/wave-planner.js';

/** Where engine pods of one kind may run: the pod's nodeSelector and tolerations. */
export interface EnginePlacement {
  readonly nodeSelector: Record<string, string>;
  readonly tolerations: Toleration[];
}

/** What the operator needs to build engine pods; the rest of the config is about running. */
/**
 * Where engine pods find their NATS credentials (`SWITCHBOARD_NATS_CREDS` from a Secret): one
 * Secret per session that the operator mints (the bundled NATS), or one Secret every engine pod
 * shares (an external NATS). Unset: NATS without authentication.
 */
export type EngineNatsCredentials = { readonly kind: 'per-session' } | { readonly kind: 'shared'; readonly secret: string; readonly key: string };

export interface EnginePodSettings {
  readonly natsUrl: string;
  readonly natsCredentials?: EngineNatsCredentials;
  /** Image of the socket engines (SANDBOX, NOWEB). */
  readonly engineImage: string;
  /** Image of the browser engine (WEBJS): Chromium inside. */
  readonly browserEngineImage: string;
  /**
   * Image of the Go engine (GOWS): `switchboard-gows nats` alone on a minimal base. Unset: GOWS
   * pods run the socket engines' image, whose Node engine pod runs the Go engine as its child.
   */
  readonly gowsEngineImage?: string;
  /** Each engine's requests and limits (engine-resources.ts: measured defaults, the release's overrides). */
  readonly resources: Readonly<Record<BuiltEngine, EngineResources>>;
  /**
   * Secrets for pulling the engine images from a private registry (the chart's
   * `image.pullSecrets`), set on every engine pod. Empty: none.
   */
  readonly imagePullSecrets?: readonly string[];
  /** Where clients reach the gateway: engine pods start every `media.url` with it. Unset: the pods' default. */
  readonly baseUrl?: string;
  /** NOWEB connection attempts in a row before the session is FAILED. Unset: the pods' default (10). */
  readonly nowebConnectAttempts?: number;
  /**
   * The bound within which socket engines reconnect a silent connection (SWITCHBOARD_SILENCE_TIMEOUT_MS,
   * the chart's `engines.silenceTimeoutMs`), set on their pods. Unset: the engines' default (60 s).
   */
  readonly silenceTimeoutMs?: number;
  /**
   * The client version each socket engine's sessions present (SWITCHBOARD_<ENGINE>_CLIENT_VERSION,
   * the chart's `engines.clientVersions`), set on its pods; a session's `config.clientVersion`
   * wins. Unset for an engine: its library's.
   */
  readonly clientVersions?: Partial<Record<BuiltEngine, string>>;
  /**
   * SWITCHBOARD_OUTBOUND_DENY and _ALLOW for engine pods (files sent by URL), as given: checked
   * here, so a bad entry stops the operator rather than every engine pod. Empty: the built-in rules.
   */
  readonly outbound?: { readonly deny: string; readonly allow: string };
  /** The engine container's imagePullPolicy. Unset: IfNotPresent. */
  readonly pullPolicy?: 'Always' | 'Never';
  /**
   * More environment for every engine container, after the operator's own (which it may not
   * name): e.g. SWITCHBOARD_NOWEB_WS_URL. Unset: none.
   */
  readonly extraEnv?: readonly { readonly name: string; readonly value: string }[];
  /** Optional: with none given, engine pods may run on any node. */
  readonly placement?: { readonly socket: EnginePlacement; readonly browser: EnginePlacement };
}

export interface OperatorConfig {
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
  readonly natsUrl: string;
  /**
   * The copies JetStream keeps of each stream and bucket (SWITCHBOARD_NATS_REPLICAS, 1 to 5): the
   * operator makes the shared ones and each session's with it, and raises those made with fewer
   * at start. Engine pods make none of their own (they bind to what the operator made).
   */
  readonly natsReplicas: number;
  /** The NATS server that ran alone before its NATS became a cluster (SWITCHBOARD_NATS_SEED, kube/src/nats/replication.ts). */
  readonly natsSeed?: string;
  /**
   * The Secret of the release's NATS authentication (nats-auth/stored-auth.ts): the operator
   * makes it when missing, connects with its own user from it and mints engine pods' users.
   */
  readonly natsAuthSecret?: string;
  /** The operator's NATS credentials (a `.creds` file's text), with an external NATS. Never logged. */
  readonly natsCredentials?: string;
  readonly pods: EnginePodSettings;
  /** Leader-election identity: unique per replica. */
  readonly identity: string;
  readonly leaseName: string;
  /** How many keys are reconciled at once (never the same key twice at once). */
  readonly workers: number;
  readonly logLevel: string;
  /** Port of `/healthz`, `/readyz` and `/metrics` (http-server.ts); 0 picks a free one. */
  readonly httpPort: number;
  /** How an engine version change is rolled out (rollout/wave-planner.ts; docs/operations.md, "Rollouts"). */
  readonly rollout: RolloutSettings;
}

function required(what: string) {
  return z.string({ error: `required: ${what}` }).min(1, `required: ${what}`);
}

/** A JSON value in an env var (the chart renders values as JSON), checked against a schema. */
const json = <T extends z.ZodType>(schema: T) =>
  z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be JSON' });
        return z.NEVER;
      }
    })
    .pipe(schema);

const NodeSelector = z.record(z.string().min(1).max(317), z.string().max(63));
const Toleration = z.object({
  key: z.string().optional(),
  operator: z.enum(['Exists', 'Equal']).optional(),
  value: z.string().optional(),
  effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']).optional(),
  tolerationSeconds: z.number().int().optional(),
});
export type Toleration = z.infer<typeof Toleration>;

const secretName = z.string().regex(/^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/, 'a Secret name');

/**
 * Variables the operator sets on engine containers itself (engine-pod-spec.ts): extra env may not
 * name them, or it would override what the resource and the release say.
 */
export const ENGINE_OWN_ENV = [
  'SWITCHBOARD_SESSION',
  'SWITCHBOARD_ENGINE',
  'SWITCHBOARD_NATS_URL',
  'SWITCHBOARD_NATS_CREDS',
  'SWITCHBOARD_POD_NAME',
  'SWITCHBOARD_POD_UID',
  'SWITCHBOARD_METADATA',
  'SWITCHBOARD_APPS',
  SENDING_VARIABLE,
  'SWITCHBOARD_HEALTH_PORT',
  'SWITCHBOARD_BASE_URL',
  'SWITCHBOARD_ENGINE_SETTINGS',
  'SWITCHBOARD_PROXY_PASSWORD',
  'SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS',
  SILENCE_TIMEOUT_VARIABLE,
  'SWITCHBOARD_OUTBOUND_DENY',
  'SWITCHBOARD_OUTBOUND_ALLOW',
  'NODE_OPTIONS',
  'GOMEMLIMIT',
  ...CLIENT_VERSION_ENGINES.map(clientVersionVariable),
];

const EngineExtraEnv = z
  .array(
    z.strictObject({
      name: z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name: letters, digits and _, not starting with a digit')
        .refine((name) => !(ENGINE_OWN_ENV as readonly string[]).includes(name), {
          message: `set by the operator itself; not one of ${ENGINE_OWN_ENV.join(', ')}`,
        }),
      value: z.string().max(32_768),
    }),
  )
  .max(64)
  .refine((list) => new Set(list.map((e) => e.name)).size === list.length, 'each name at most once');

/**
 * Variables of earlier versions, two engine kinds' resources, replaced by one per-engine
 * setting: an operator started with them by hand is told so rather than silently ignoring them.
 */
const RETIRED_RESOURCE_VARIABLES = ['SOCKET', 'BROWSER'].flatMap((kind) =>
  ['CPU_REQUEST', 'MEMORY_REQUEST', 'MEMORY_LIMIT'].map((what) => `SWITCHBOARD_${kind}_${what}`),
);

const ImagePullSecrets = z
  .array(secretName)
  .max(32)
  .refine((names) => new Set(names).size === names.length, 'each Secret at most once');

/** A number of sessions ("2") or a share of them ("10%"): the rollout's canary and maxUnavailable. */
const RolloutAmountText = z
  .string()
  .trim()
  .regex(/^([1-9]\d{0,5}|([1-9]\d?|100)%)$/, 'a number of sessions from 1 (e.g. "2") or a share from 1% to 100% (e.g. "10%")')
  .transform((text): RolloutAmount => (text.endsWith('%') ? { percent: Number(text.slice(0, -1)) } : { count: Number(text) }));

const Env = z.object({
  SWITCHBOARD_NAMESPACE: z
    .string()
    .regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'a namespace name')
    .optional(),
  SWITCHBOARD_NATS_URL: required('the NATS URL, e.g. nats://nats:4222'),
  SWITCHBOARD_NATS_AUTH_SECRET: secretName.optional(),
  SWITCHBOARD_NATS_CREDS: z
    .string()
    .refine((text) => text.includes('BEGIN NATS USER JWT') && text.includes('BEGIN USER NKEY SEED'), 'must be the text of a NATS credentials file')
    .optional(),
  SWITCHBOARD_ENGINE_NATS_CREDS_SECRET: z
    .string()
    .regex(/^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?\/[-._a-zA-Z0-9]+$/, '<Secret name>/<key>, e.g. nats-creds/engine.creds')
    .optional(),
  SWITCHBOARD_ENGINE_IMAGE: required('the image of the socket engines (SANDBOX, NOWEB)'),
  SWITCHBOARD_BROWSER_ENGINE_IMAGE: required('the image of the browser engine (WEBJS)'),
  SWITCHBOARD_GOWS_ENGINE_IMAGE: z.string().min(1).optional(),
  SWITCHBOARD_IDENTITY: z.string().min(1).optional(),
  SWITCHBOARD_LEASE_NAME: z
    .string()
    .regex(/^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/, 'a Lease name')
    .default('switchboard-operator'),
  SWITCHBOARD_WORKERS: z.coerce.number().int().min(1).max(64).default(4),
  [NATS_REPLICAS_VARIABLE]: z.coerce.number().int().min(1).max(MAX_NATS_REPLICAS).default(1),
  [NATS_SEED_VARIABLE]: z.string().regex(NATS_SEED_PATTERN, 'a NATS server tag in lower case (the chart: the pod name of NATS server 0)').optional(),
  SWITCHBOARD_ENGINE_PULL_POLICY: z.enum(['Always', 'IfNotPresent', 'Never']).default('IfNotPresent'),
  SWITCHBOARD_ENGINE_EXTRA_ENV: json(EngineExtraEnv).default([]),
  SWITCHBOARD_ENGINE_RESOURCES: json(EngineResourcesOverrides).default({}),
  SWITCHBOARD_ENGINE_IMAGE_PULL_SECRETS: json(ImagePullSecrets).default([]),
  SWITCHBOARD_SOCKET_NODE_SELECTOR: json(NodeSelector).default({}),
  SWITCHBOARD_SOCKET_TOLERATIONS: json(z.array(Toleration)).default([]),
  SWITCHBOARD_BROWSER_NODE_SELECTOR: json(NodeSelector).default({}),
  SWITCHBOARD_BROWSER_TOLERATIONS: json(z.array(Toleration)).default([]),
  SWITCHBOARD_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS: z.coerce.number().int().min(1).max(1_000).optional(),
  SWITCHBOARD_OUTBOUND_DENY: z.string().trim().default(''),
  SWITCHBOARD_OUTBOUND_ALLOW: z.string().trim().default(''),
  SWITCHBOARD_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SWITCHBOARD_HTTP_PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
  SWITCHBOARD_ROLLOUT_CANARY: RolloutAmountText.default({ count: 1 }),
  SWITCHBOARD_ROLLOUT_MAX_UNAVAILABLE: RolloutAmountText.default({ percent: 10 }),
  SWITCHBOARD_ROLLOUT_WORKING_TIMEOUT_SECONDS: z.coerce.number().int().min(10).max(3_600).default(300),
});

export class ConfigError extends Error {}

/** The engines' silence timeout, checked here under the engines' own rules: a bad value stops the operator, not every engine pod. */
function silenceTimeoutOf(env: NodeJS.ProcessEnv): number {
  try {
    return silenceTimeoutFromEnv(env);
  } catch (error) {
    throw new ConfigError(`invalid configuration:\n  ${(error as Error).message}`);
  }
}

/** Each socket engine's client version from its variable, checked as a session's `config.clientVersion` is. */
function clientVersionsOf(env: NodeJS.ProcessEnv): Partial<Record<BuiltEngine, string>> {
  const versions: Partial<Record<BuiltEngine, string>> = {};
  const problems: string[] = [];
  for (const engine of CLIENT_VERSION_ENGINES) {
    try {
      const version = clientVersionFromEnv(env, clientVersionVariable(engine));
      if (version) versions[engine] = version;
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  return versions;
}

const SERVICE_ACCOUNT_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/**
 * Reads the operator's configuration from its environment. The cluster comes from KUBECONFIG
 * (or ~/.kube/config) outside a cluster and from the pod's service account inside one.
 */
export function readConfig(env: NodeJS.ProcessEnv, kubeConfig?: KubeConfig): OperatorConfig {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  const retired = RETIRED_RESOURCE_VARIABLES.filter((name) => env[name] !== undefined);
  if (retired.length > 0) {
    throw new ConfigError(
      `invalid configuration:\n  ${retired.join(', ')}: no longer read; set SWITCHBOARD_ENGINE_RESOURCES per engine instead, e.g. {"NOWEB":{"limits":{"memory":"1Gi"}}}`,
    );
  }
  const resources = engineResources(e.SWITCHBOARD_ENGINE_RESOURCES, { gowsInNodePod: !e.SWITCHBOARD_GOWS_ENGINE_IMAGE });
  if (resources.problems.length > 0) {
    throw new ConfigError(
      `invalid configuration:\n  ${resources.problems.map((problem) => `SWITCHBOARD_ENGINE_RESOURCES: ${problem}`).join('\n  ')}`,
    );
  }
  try {
    OutboundPolicy.fromEnv(env);
  } catch (error) {
    throw new ConfigError(`invalid configuration:\n  ${(error as Error).message}`);
  }
  const outbound = { deny: e[OUTBOUND_DENY_VARIABLE], allow: e[OUTBOUND_ALLOW_VARIABLE] };
  const clientVersions = clientVersionsOf(env);
  const silenceTimeoutMs = silenceTimeoutOf(env);
  if (e.SWITCHBOARD_NATS_AUTH_SECRET && (e.SWITCHBOARD_NATS_CREDS || e.SWITCHBOARD_ENGINE_NATS_CREDS_SECRET)) {
    throw new ConfigError(
      'invalid configuration:\n  SWITCHBOARD_NATS_AUTH_SECRET: the bundled NATS authentication comes with its own credentials; leave out SWITCHBOARD_NATS_CREDS and SWITCHBOARD_ENGINE_NATS_CREDS_SECRET',
    );
  }
  const engineSecret = e.SWITCHBOARD_ENGINE_NATS_CREDS_SECRET?.split('/');
  const natsCredentials: EngineNatsCredentials | undefined = e.SWITCHBOARD_NATS_AUTH_SECRET
    ? { kind: 'per-session' }
    : engineSecret
      ? { kind: 'shared', secret: engineSecret[0]!, key: engineSecret[1]! }
      : undefined;
  return {
    kubeConfig: kubeConfig ?? loadKubeConfig(),
    namespace: e.SWITCHBOARD_NAMESPACE ?? inClusterNamespace() ?? 'default',
    natsUrl: e.SWITCHBOARD_NATS_URL,
    natsReplicas: e[NATS_REPLICAS_VARIABLE],
    ...(e[NATS_SEED_VARIABLE] ? { natsSeed: e[NATS_SEED_VARIABLE] } : {}),
    ...(e.SWITCHBOARD_NATS_AUTH_SECRET ? { natsAuthSecret: e.SWITCHBOARD_NATS_AUTH_SECRET } : {}),
    ...(e.SWITCHBOARD_NATS_CREDS ? { natsCredentials: e.SWITCHBOARD_NATS_CREDS } : {}),
    pods: {
      natsUrl: e.SWITCHBOARD_NATS_URL,
      ...(natsCredentials ? { natsCredentials } : {}),
      engineImage: e.SWITCHBOARD_ENGINE_IMAGE,
      browserEngineImage: e.SWITCHBOARD_BROWSER_ENGINE_IMAGE,
      ...(e.SWITCHBOARD_GOWS_ENGINE_IMAGE ? { gowsEngineImage: e.SWITCHBOARD_GOWS_ENGINE_IMAGE } : {}),
      ...(e.SWITCHBOARD_BASE_URL ? { baseUrl: e.SWITCHBOARD_BASE_URL.replace(/\/+$/, '') } : {}),
      ...(e.SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS ? { nowebConnectAttempts: e.SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS } : {}),
      ...(Object.keys(clientVersions).length > 0 ? { clientVersions } : {}),
      ...(silenceTimeoutMs === DEFAULT_SILENCE_TIMEOUT_MS ? {} : { silenceTimeoutMs }),
      ...(outbound.deny || outbound.allow ? { outbound } : {}),
      ...(e.SWITCHBOARD_ENGINE_PULL_POLICY !== 'IfNotPresent' ? { pullPolicy: e.SWITCHBOARD_ENGINE_PULL_POLICY } : {}),
      ...(e.SWITCHBOARD_ENGINE_EXTRA_ENV.length > 0 ? { extraEnv: e.SWITCHBOARD_ENGINE_EXTRA_ENV } : {}),
      resources: resources.resources,
      ...(e.SWITCHBOARD_ENGINE_IMAGE_PULL_SECRETS.length > 0 ? { imagePullSecrets: e.SWITCHBOARD_ENGINE_IMAGE_PULL_SECRETS } : {}),
      placement: {
        socket: { nodeSelector: e.SWITCHBOARD_SOCKET_NODE_SELECTOR, tolerations: e.SWITCHBOARD_SOCKET_TOLERATIONS },
        browser: { nodeSelector: e.SWITCHBOARD_BROWSER_NODE_SELECTOR, tolerations: e.SWITCHBOARD_BROWSER_TOLERATIONS },
      },
    },
    identity: e.SWITCHBOARD_IDENTITY ?? `${hostname()}_${process.pid}`,
    leaseName: e.SWITCHBOARD_LEASE_NAME,
    workers: e.SWITCHBOARD_WORKERS,
    logLevel: e.SWITCHBOARD_LOG_LEVEL,
    httpPort: e.SWITCHBOARD_HTTP_PORT,
    rollout: {
      canary: e.SWITCHBOARD_ROLLOUT_CANARY,
      maxUnavailable: e.SWITCHBOARD_ROLLOUT_MAX_UNAVAILABLE,
      workingTimeoutMs: e.SWITCHBOARD_ROLLOUT_WORKING_TIMEOUT_SECONDS * 1000,
    },
  };
}

function loadKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  try {
    kubeConfig.loadFromDefault();
  } catch (error) {
    throw new ConfigError(`KUBECONFIG: cannot load the cluster configuration: ${(error as Error).message}`);
  }
  if (!kubeConfig.getCurrentCluster()) {
    throw new ConfigError('KUBECONFIG: no cluster found: set KUBECONFIG, or run in a pod with a service account');
  }
  return kubeConfig;
}

function inClusterNamespace(): string | undefined {
  try {
    return readFileSync(SERVICE_ACCOUNT_NAMESPACE, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
