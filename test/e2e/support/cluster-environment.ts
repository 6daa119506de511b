// Cluster mode as it runs for real, on one machine: etcd and kube-apiserver, NATS with JetStream,
// the MessagingSession CRD, the test node agent running engine pods as local processes, and the
// operator and gateway as processes built from this repo (`make build`).
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig, Watch } from '@kubernetes/client-node';
import { loadOrCreateNatsAuthIn } from '@switchboard/operator';
import { enginePodName, INBOX_PREFIXES, LABELS, MESSAGING_SESSION, resourceNameFor, type WebhookConfig } from '@switchboard/protocol';
import { type ApiCall, apiClient, closedPort, waitFor } from '@switchboard/testkit';
import { connect, credsAuthenticator, type NatsConnection } from 'nats';
import { hostEnv } from '../node-agent/container-launch.js';
import { type NodeAgent, startNodeAgent } from '../node-agent/node-agent.js';
import { type ControlPlane, type Nats, start, startNats } from './control-plane.js';
import { NodeProcess } from './node-process.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The images the operator puts in engine pods; the node agent knows what each runs. */
export const ENGINE_IMAGE = 'switchboard/engine-socket:e2e';
export const BROWSER_ENGINE_IMAGE = 'switchboard/engine-browser:e2e';
/** GOWS: the Go engine's own image, `switchboard-gows nats` (the binary `make build` and `buildGows()` make). */
export const GOWS_ENGINE_IMAGE = 'switchboard/engine-gows:e2e';
export const ADMIN_KEY = 'e2e-admin-key-0123456789';

/** A fake WhatsApp server as the socket engines reach it (engine-pod/test/fake-wa). */
interface FakeServer {
  readonly url: string;
  readonly certRootPublicKey: string;
}

/** The engine pods' variables that point NOWEB and GOWS at fake WhatsApp servers (either may be left out). */
export function fakeServersEnv(fakes: { noweb?: FakeServer; gows?: FakeServer }): Record<string, string> {
  return {
    ...(fakes.noweb ? { SWITCHBOARD_NOWEB_WS_URL: fakes.noweb.url } : {}),
    ...(fakes.gows ? { SWITCHBOARD_GOWS_WS_URL: fakes.gows.url, SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY: fakes.gows.certRootPublicKey } : {}),
  };
}
const OPERATOR_LEASE = 'switchboard-operator';
/**
 * The Secret of NATS authentication, made as the chart's operator makes it (`loadOrCreateNatsAuth`):
 * the suite runs NATS with the same configuration, engine pods with the credentials the operator
 * mints, and the gateway with its own user.
 */
const NATS_AUTH_SECRET = 'switchboard-nats-auth';
/** SANDBOX renews its QR this often in the engine pods: observable, without a flood of events. */
const QR_RENEW_MS = 2_000;

/** What a test worker needs to reach an environment another process started (vitest `provide`). */
export interface ClusterEnvironmentInfo {
  readonly kubeconfigPath: string;
  readonly natsUrl: string;
  /** The gateway's NATS credentials: NATS runs with authentication, as the chart's does. */
  readonly natsCredentials: string;
  readonly namespace: string;
  /** Logs of every process, and the node agent's pod directories. */
  readonly dir: string;
}

export interface ClusterEnvironment extends ClusterEnvironmentInfo {
  readonly info: ClusterEnvironmentInfo;
  readonly cp: ControlPlane;
  readonly nats: Nats;
  readonly agent: NodeAgent;
  /**
   * An operator replica as a process; resolves once it has started (not necessarily leading).
   * `httpUrl` is where its /healthz, /readyz and /metrics answer. `env` is more of its
   * environment (a release's settings: a client version, the rollout's).
   */
  startOperator(identity: string, env?: Record<string, string>): Promise<NodeProcess & { readonly httpUrl: string }>;
  startGateway(options?: GatewayProcessOptions): Promise<GatewayProcess>;
  /** The holder of the operators' leader-election Lease, or null. */
  operatorLeader(): Promise<string | null>;
  waitForOperatorLeader(identity: string, timeoutMs?: number): Promise<void>;
  /** The engine pods of a session, terminating ones included, straight from the API server. */
  enginePods(session: string): Promise<EnginePod[]>;
  /** Every change to the session's engine pods from now on, in the API server's order, until `stop()`. */
  watchEnginePods(session: string): Promise<{ readonly events: EnginePodEvent[]; stop(): void }>;
  /** The MessagingSession of a session, straight from the API server, or null. */
  resource(session: string): Promise<any>;
  /** Every container log of the session's engine pods (all of them, oldest first). */
  podLogs(session: string): string;
  /** Stops every process it started, then NATS and the control plane. */
  stop(): Promise<void>;
}

export interface EnginePod {
  name: string;
  uid: string;
  terminating: boolean;
  ready: boolean;
}

export interface EnginePodEvent extends EnginePod {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
}

export interface ClusterEnvironmentOptions {
  namespace?: string;
  /** More environment for every engine pod (a GOWS test points them at its fake server). */
  engineEnv?: Record<string, string>;
}

/** Starts everything but operators and gateways (tests start as many as they need). */
/** A cluster environment with its operator (`operator-0`) leading and one gateway: how most e2e files begin. */
export async function startClusterWithGateway(options: ClusterEnvironmentOptions = {}): Promise<{ env: ClusterEnvironment; gw: GatewayProcess }> {
  const env = await startClusterEnvironment(options);
  await env.startOperator('operator-0');
  await env.waitForOperatorLeader('operator-0');
  return { env, gw: await env.startGateway() };
}

export async function startClusterEnvironment(options: ClusterEnvironmentOptions = {}): Promise<ClusterEnvironment> {
  const namespace = options.namespace ?? 'switchboard-e2e';
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-'));
  const stops: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((error: unknown) => console.error(`e2e: stop failed: ${String(error)}`));
    if (process.env.SWITCHBOARD_E2E_KEEP) console.error(`e2e: kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  };
  try {
    const cp = await start();
    stops.push(() => cp.stop());
    await cp.kubectl(['apply', '-f', join(repoRoot, 'crds/messagingsession.yaml')]);
    await cp.kubectl(['wait', '--for=condition=Established', '--timeout=60s', `crd/${MESSAGING_SESSION.plural}.${MESSAGING_SESSION.group}`]);
    await cp.ensureNamespace(namespace);
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(cp.kubeconfigPath);
    const natsAuth = await loadOrCreateNatsAuthIn(kubeConfig, namespace, NATS_AUTH_SECRET);
    const nats = await startNats({ config: natsAuth.serverConfig });
    stops.push(() => nats.stop());

    const nodeDir = join(dir, 'node');
    mkdirSync(nodeDir);
    const agent = await startNodeAgent({
      kubeconfigPath: cp.kubeconfigPath,
      namespace,
      labelSelector: `${LABELS.component}=engine`,
      images: {
        [ENGINE_IMAGE]: { command: process.execPath, args: [join(repoRoot, 'engine-pod/dist/pod/main.js')] },
        // The browser-engine image runs the same engine pod, with Debian's chromium on the machine.
        [BROWSER_ENGINE_IMAGE]: { command: process.execPath, args: [join(repoRoot, 'engine-pod/dist/pod/main.js')] },
        [GOWS_ENGINE_IMAGE]: { command: join(repoRoot, 'engines/gows/bin/switchboard-gows'), args: ['nats'] },
      },
      workDir: nodeDir,
      envOverrides: {
        SWITCHBOARD_NATS_URL: nats.url,
        SWITCHBOARD_SANDBOX_QR_RENEW_MS: String(QR_RENEW_MS),
        // NOWEB pods never reach WhatsApp from a test: they dial a loopback port nothing listens on
        // and are FAILED after one attempt, which is how tests get a FAILED session.
        SWITCHBOARD_NOWEB_WS_URL: `ws://127.0.0.1:${String((await closedPort()).port)}/ws/chat`,
        SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS: '1',
        ...options.engineEnv,
      },
      // Statuses reach the API sooner; the pods' own 2 s would only slow every test down.
      probePeriodMs: 250,
    });
    stops.push(() => agent.stop());

    const info: ClusterEnvironmentInfo = {
      kubeconfigPath: cp.kubeconfigPath,
      natsUrl: nats.url,
      natsCredentials: natsAuth.gatewayCredentials,
      namespace,
      dir,
    };
    const processes: NodeProcess[] = [];
    stops.push(() => Promise.all(processes.map((child) => child.stop())));
    const leader = async (): Promise<string | null> => {
      const res = await cp.fetch(`/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${OPERATOR_LEASE}`);
      if (res.status === 404) return null;
      const lease = (await res.json()) as { spec?: { holderIdentity?: string } };
      return lease.spec?.holderIdentity || null;
    };

    return {
      ...info,
      info,
      cp,
      nats,
      agent,
      async startOperator(identity, operatorEnv = {}) {
        const operator = NodeProcess.start({
          label: `operator ${identity}`,
          script: join(repoRoot, 'operator/dist/main.js'),
          logPath: join(dir, `operator-${identity}.log`),
          env: {
            ...hostEnv(),
            KUBECONFIG: cp.kubeconfigPath,
            SWITCHBOARD_NAMESPACE: namespace,
            SWITCHBOARD_NATS_URL: nats.url,
            SWITCHBOARD_NATS_AUTH_SECRET: NATS_AUTH_SECRET,
            SWITCHBOARD_ENGINE_IMAGE: ENGINE_IMAGE,
            SWITCHBOARD_BROWSER_ENGINE_IMAGE: BROWSER_ENGINE_IMAGE,
            SWITCHBOARD_GOWS_ENGINE_IMAGE: GOWS_ENGINE_IMAGE,
            SWITCHBOARD_IDENTITY: identity,
            // Several operators may run on this host: each on a free port, which its start-up line says.
            SWITCHBOARD_HTTP_PORT: '0',
            ...operatorEnv,
          },
        });
        processes.push(operator);
        const started = await operator.waitForLog((line) => line.msg === 'operator started', 'start-up');
        return Object.assign(operator, { httpUrl: `http://127.0.0.1:${String(started.httpPort)}` });
      },
      async startGateway(gatewayOptions) {
        const gateway = await startGatewayProcess(info, gatewayOptions);
        processes.push(gateway.process);
        return gateway;
      },
      operatorLeader: leader,
      async waitForOperatorLeader(identity, timeoutMs = 30_000) {
        await waitFor(async () => (await leader()) === identity, `operator ${identity} to hold the lease`, timeoutMs);
      },
      async enginePods(session) {
        const res = await cp.fetch(`/api/v1/namespaces/${namespace}/pods?labelSelector=${encodeURIComponent(enginePodSelector(session))}`);
        if (!res.ok) throw new Error(`listing pods: ${res.status} ${await res.text()}`);
        return ((await res.json()) as { items: PodJson[] }).items.map(enginePodOf);
      },
      async watchEnginePods(session) {
        const kubeConfig = new KubeConfig();
        kubeConfig.loadFromFile(cp.kubeconfigPath);
        const events: EnginePodEvent[] = [];
        const watch = await new Watch(kubeConfig).watch(
          `/api/v1/namespaces/${namespace}/pods`,
          { labelSelector: enginePodSelector(session) },
          (type, pod: PodJson) => events.push({ type: type as EnginePodEvent['type'], ...enginePodOf(pod) }),
          () => undefined,
        );
        return { events, stop: () => watch.abort() };
      },
      async resource(session) {
        const { group, version, plural } = MESSAGING_SESSION;
        const res = await cp.fetch(`/apis/${group}/${version}/namespaces/${namespace}/${plural}/${resourceNameFor(session)}`);
        return res.status === 404 ? null : res.json();
      },
      podLogs(session) {
        return agent.logs(namespace, enginePodName(resourceNameFor(session)));
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** A NATS connection for a test to look behind the gateway: as the gateway's user (the suite's NATS has authentication). */
export function connectNats(info: ClusterEnvironmentInfo): Promise<NatsConnection> {
  return connect({
    servers: info.natsUrl,
    authenticator: credsAuthenticator(new TextEncoder().encode(info.natsCredentials)),
    inboxPrefix: INBOX_PREFIXES.gateway,
  });
}

const enginePodSelector = (session: string) => `${LABELS.session}=${resourceNameFor(session)}`;

function enginePodOf(pod: PodJson): EnginePod {
  return {
    name: pod.metadata.name,
    uid: pod.metadata.uid,
    terminating: Boolean(pod.metadata.deletionTimestamp),
    ready: pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true,
  };
}

interface PodJson {
  metadata: { name: string; uid: string; deletionTimestamp?: string };
  status?: { conditions?: { type: string; status: string }[] };
}

export interface GatewayProcessOptions {
  /** The admin API key; default ADMIN_KEY. */
  apiKey?: string;
  /** The global webhook, passed as the `SWITCHBOARD_HOOK_*` variables. */
  globalWebhook?: WebhookConfig | null;
  /** OAuth 2.0 token checks, passed as the `SWITCHBOARD_OAUTH_*` variables. */
  oauth?: { issuer: string; audience: string; jwksUrl: string } | null;
  /** SWITCHBOARD_MEDIA_LIFETIME_SECONDS: the gateway brings the media bucket's TTL to it. */
  mediaLifetimeSeconds?: number;
  /** SWITCHBOARD_DEFAULT_ENGINE; default SANDBOX. */
  defaultEngine?: 'SANDBOX' | 'NOWEB';
  /** SWITCHBOARD_WS_MAX_CONNECTIONS_PER_KEY. */
  wsMaxConnectionsPerKey?: number;
}

export interface GatewayProcess {
  readonly url: string;
  readonly api: ApiCall;
  readonly process: NodeProcess;
}

let gateways = 0;

/** A gateway replica in cluster mode (`node gateway/dist/main.js`), on a free loopback port. */
export async function startGatewayProcess(info: ClusterEnvironmentInfo, options: GatewayProcessOptions = {}): Promise<GatewayProcess> {
  const label = `gateway-${process.pid}-${++gateways}`;
  const apiKey = options.apiKey ?? ADMIN_KEY;
  const gateway = NodeProcess.start({
    label,
    script: join(repoRoot, 'gateway/dist/main.js'),
    logPath: join(info.dir, `${label}.log`),
    env: {
      ...hostEnv(),
      SWITCHBOARD_MODE: 'cluster',
      KUBECONFIG: info.kubeconfigPath,
      SWITCHBOARD_NAMESPACE: info.namespace,
      SWITCHBOARD_NATS_URL: info.natsUrl,
      SWITCHBOARD_NATS_CREDS: info.natsCredentials,
      SWITCHBOARD_API_KEY: apiKey,
      // Sessions created without an engine are SANDBOX here: the default (NOWEB) needs WhatsApp.
      SWITCHBOARD_DEFAULT_ENGINE: options.defaultEngine ?? 'SANDBOX',
      HOST: '127.0.0.1',
      PORT: '0',
      ...globalWebhookEnv(options.globalWebhook ?? null),
      ...(options.mediaLifetimeSeconds === undefined ? {} : { SWITCHBOARD_MEDIA_LIFETIME_SECONDS: String(options.mediaLifetimeSeconds) }),
      ...(options.wsMaxConnectionsPerKey === undefined ? {} : { SWITCHBOARD_WS_MAX_CONNECTIONS_PER_KEY: String(options.wsMaxConnectionsPerKey) }),
      ...(options.oauth
        ? {
            SWITCHBOARD_OAUTH_ISSUER: options.oauth.issuer,
            SWITCHBOARD_OAUTH_AUDIENCE: options.oauth.audience,
            SWITCHBOARD_OAUTH_JWKS_URL: options.oauth.jwksUrl,
          }
        : {}),
    },
  });
  try {
    const listening = await gateway.waitForLog((line) => typeof line.url === 'string' && String(line.msg).includes('listening'), 'listening');
    const url = String(listening.url);
    return { url, api: apiClient(url, apiKey), process: gateway };
  } catch (error) {
    await gateway.kill();
    throw error;
  }
}

/** The global webhook as the gateway reads it from its environment (`gateway/src/webhooks/global-hook.ts`). */
function globalWebhookEnv(hook: WebhookConfig | null): Record<string, string> {
  if (!hook) return {};
  const env: Record<string, string> = { SWITCHBOARD_HOOK_URL: hook.url, SWITCHBOARD_HOOK_EVENTS: hook.events.join(',') };
  if (hook.hmac?.key) env.SWITCHBOARD_HOOK_HMAC_KEY = hook.hmac.key;
  if (hook.hmac?.scheme) env.SWITCHBOARD_HOOK_HMAC_SCHEME = hook.hmac.scheme;
  if (hook.hmac?.previous) {
    env.SWITCHBOARD_HOOK_HMAC_PREVIOUS_KEY = hook.hmac.previous.key;
    env.SWITCHBOARD_HOOK_HMAC_PREVIOUS_UNTIL = hook.hmac.previous.until;
  }
  if (hook.retries?.policy) env.SWITCHBOARD_HOOK_RETRIES_POLICY = hook.retries.policy;
  if (hook.retries?.delaySeconds !== undefined) env.SWITCHBOARD_HOOK_RETRIES_DELAY_SECONDS = String(hook.retries.delaySeconds);
  if (hook.retries?.attempts !== undefined) env.SWITCHBOARD_HOOK_RETRIES_ATTEMPTS = String(hook.retries.attempts);
  if (hook.customHeaders?.length) {
    env.SWITCHBOARD_HOOK_CUSTOM_HEADERS = hook.customHeaders.map(({ name, value }) => `${name}:${value}`).join(';');
  }
  return env;
}
