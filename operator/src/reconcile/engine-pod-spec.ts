import { createHash } from 'node:crypto';
import type { V1Container, V1EnvVar, V1Pod, V1Volume } from '@kubernetes/client-node';
import { API_VERSION, restartedAtOf, sessionNameOf, specOf, type StoredMessagingSession } from '@switchboard/kube';
import {
  ANNOTATIONS,
  type BuiltEngine,
  CLIENT_VERSION_ENGINES,
  clientVersionVariable,
  DEFAULT_MEDIA_MAX_BYTES,
  ENGINE_CATALOG,
  enginePodName,
  type EngineSettings,
  engineSettingsOf,
  LABELS,
  MEDIA_MAX_BYTES_VARIABLE,
  MESSAGING_SESSION,
  type MessagingSessionSpec,
  SENDING_VARIABLE,
  SILENCE_TIMEOUT_VARIABLE,
} from '@switchboard/protocol';
import type { EnginePodSettings } from '../config.js';
import { engineGoMemoryLimit, engineNodeOptions } from '../engine-resources.js';

export const HEALTH_PORT = 8080;
const USER_ID = 10001;
const CONTAINER = 'engine';
/** Hash of what the pod was built from: a pod whose hash differs is replaced (engine, image, resources, probes, placement, pull secrets). */
export const POD_TEMPLATE_HASH = 'switchboard.dev/pod-template-hash';
/**
 * Prometheus's conventional scrape annotations: an engine pod serves `/metrics` on its health
 * port (engine-pod's pod-metrics.ts: the session's paced sending and the process; the Go engine's
 * own pod the same paced-sending series, natshost/metrics.go). Annotations are outside the template hash: adding them
 * replaces no running pod (replacementReason reads the hash and restarted-at only); a pod made
 * before them is scraped once it is next made.
 */
export const SCRAPE_ANNOTATIONS: Readonly<Record<string, string>> = {
  'prometheus.io/scrape': 'true',
  'prometheus.io/port': String(HEALTH_PORT),
  'prometheus.io/path': '/metrics',
};
/** Metadata reaches a running engine by `host.setMetadata`, so it is left out of the hash. */
const METADATA_ENV = 'SWITCHBOARD_METADATA';
/** Apps reach a running engine by `host.setApps`: left out of the hash too. */
const APPS_ENV = 'SWITCHBOARD_APPS';
/** Paced sending's config reaches a running engine by `host.sendQueue.setConfig`: left out of the hash too. */
const LIVE_SETTINGS: ReadonlySet<string> = new Set([METADATA_ENV, APPS_ENV, SENDING_VARIABLE]);

/**
 * Probes fitted to the engine pods' measured start (`node bench/dist/all.js engine-pods`;
 * docs/operations.md, "Engine pod probes"). `/healthz` answers once the process has loaded and
 * reached NATS: 1 to 3 s after the start on a 2-core machine, 10 to 14 s on the same machine at a
 * load average of 15, for every engine (WEBJS launches Chromium only later, once it holds the
 * lease, and the probes never wait for it). A probe that restarts a slow pod on a node that is
 * overloaded makes it slower still, so they allow for the loaded figures:
 * - startup: up to 90 s (45 × 2 s) for `/healthz`, over six times the slowest loaded start, for a
 *   node that starts many engine pods at once; liveness waits for it, so no initial delay;
 * - readiness: `/readyz` every 2 s (the lease held, the engine started), 5 s to answer, so
 *   PodReady follows a lost lease within seconds; it only reports, nothing routes traffic to
 *   engine pods;
 * - liveness: `/healthz` every 15 s, 10 s to answer (NOWEB's slowest answer under a burst of 2000
 *   messages was 3.6 s, 6.6 s on the loaded machine, past the kubelet's default of 1 s), 3 misses
 *   in a row: a pod whose event loop is stuck for 45 s is restarted, a busy one is not.
 */
const ENGINE_PROBES = {
  startupProbe: { httpGet: { path: '/healthz', port: HEALTH_PORT }, periodSeconds: 2, timeoutSeconds: 2, failureThreshold: 45 },
  readinessProbe: { httpGet: { path: '/readyz', port: HEALTH_PORT }, periodSeconds: 2, timeoutSeconds: 5, failureThreshold: 3 },
  livenessProbe: { httpGet: { path: '/healthz', port: HEALTH_PORT }, periodSeconds: 15, timeoutSeconds: 10, failureThreshold: 3 },
} as const satisfies Pick<V1Container, 'startupProbe' | 'readinessProbe' | 'livenessProbe'>;

/**
 * The version of what an engine pod's NATS user may do (nats-auth/permissions.ts), in its
 * Secret's name. The operator never changes a Secret it made, so a change of permissions takes a
 * new name: an upgraded operator then mints a new user, and the changed pod spec replaces the
 * pod once. 2: the session's own object store buckets rather than the shared `sb_media` and
 * `sb_commands`, which a user of version 1 would still be limited to. 3: the session's keys of
 * `sb_send_queues` (paced sending in cluster mode).
 */
const ENGINE_PERMISSIONS_VERSION = 3;

/**
 * The Secret with a session's engine NATS credentials, when the operator mints them
 * (engine-credentials.ts). The resource's uid is in the name: a resource re-created under the same
 * name gets a Secret of its own, never the one the garbage collector is about to take.
 */
export function engineCredentialsSecretName(resource: StoredMessagingSession): string {
  return `${enginePodName(resource.metadata.name)}-nats${ENGINE_PERMISSIONS_VERSION}-${resource.metadata.uid.slice(0, 8)}`;
}
export const ENGINE_CREDENTIALS_KEY = 'nats.creds';

/** `SWITCHBOARD_NATS_CREDS` from the Secret the settings name; none without NATS authentication. */
function natsCredentialsEnv(resource: StoredMessagingSession, settings: EnginePodSettings): V1EnvVar[] {
  const credentials = settings.natsCredentials;
  if (!credentials) return [];
  const secretKeyRef =
    credentials.kind === 'per-session'
      ? { name: engineCredentialsSecretName(resource), key: ENGINE_CREDENTIALS_KEY }
      : { name: credentials.secret, key: credentials.key };
  return [{ name: 'SWITCHBOARD_NATS_CREDS', valueFrom: { secretKeyRef } }];
}

/** The variable the engine pod reads the proxy's password from (engine-pod's pod/config.ts). */
export const PROXY_PASSWORD_ENV = 'SWITCHBOARD_PROXY_PASSWORD';

/**
 * The engine settings for the pod, and the proxy's password as an env var that names its Secret
 * key: the kubelet reads the Secret, so the pod spec holds no password. A plain `password` (a
 * resource applied before `passwordFrom`) stays in the settings: the resource shows it anyway.
 */
function engineSettingsEnv(spec: MessagingSessionSpec): V1EnvVar[] {
  const { proxy: _, ...rest } = engineSettingsOf(spec.config);
  const env: V1EnvVar[] = [];
  let settings: EngineSettings = rest;
  if (spec.config.proxy) {
    const { passwordFrom, ...proxy } = spec.config.proxy;
    settings = { proxy, ...rest };
    if (passwordFrom) env.push({ name: PROXY_PASSWORD_ENV, valueFrom: { secretKeyRef: { ...passwordFrom.secretKeyRef } } });
  }
  // Only when the config sets any: pods of sessions without them keep their template hash. A
  // change replaces the pod, which is how the engine takes it (settings apply at start).
  return Object.keys(settings).length > 0 ? [{ name: 'SWITCHBOARD_ENGINE_SETTINGS', value: JSON.stringify(settings) }, ...env] : [];
}

/**
 * GOWS downloads a received file to /tmp before it is stored (engines/gows/internal/engine/media-spool.go), up to
 * the media limit: room for two at once (a message's and a channel post's) beside the usual 64Mi,
 * so a large file from a stranger cannot pass the emptyDir's limit and have the pod evicted. The
 * limit is the engines' SWITCHBOARD_MEDIA_MAX_BYTES (engines.extraEnv), or its default.
 */
function gowsTmpSize(extraEnv: EnginePodSettings['extraEnv']): string {
  const configured = Number(extraEnv?.find(({ name }) => name === MEDIA_MAX_BYTES_VARIABLE)?.value);
  const limit = Number.isSafeInteger(configured) && configured > 0 ? configured : DEFAULT_MEDIA_MAX_BYTES;
  return `${64 + 2 * Math.ceil(limit / (1024 * 1024))}Mi`;
}

/** The labels of a session's engine pod; the operator's pod informer selects on the first two. */
export function engineLabels(resourceName: string): Record<string, string> {
  return {
    [LABELS.app]: 'switchboard',
    [LABELS.component]: 'engine',
    // The resource name, not the session name: it is always a valid label value.
    [LABELS.session]: resourceName,
    'app.kubernetes.io/managed-by': 'switchboard-operator',
  };
}

/**
 * The one engine pod of a session. Pure: the same resource and settings give the same pod, so
 * the template hash tells whether a running pod is still the one the resource asks for.
 */
export function buildEnginePod(resource: StoredMessagingSession, settings: EnginePodSettings): V1Pod {
  const spec = specOf(resource);
  const name = resource.metadata.name;
  // Which image: the engine catalog's kind (socket, browser, or the Go engine's own).
  const kind = ENGINE_CATALOG[spec.engine].image;
  const browser = kind === 'browser';
  // GOWS runs the Go engine alone in its own image; without that image, the socket image's Node pod drives it.
  const goPod = kind === 'gows' && settings.gowsEngineImage !== undefined;
  const goMemoryLimit = goPod ? engineGoMemoryLimit(settings.resources[spec.engine]) : null;
  const container: V1Container = {
    name: CONTAINER,
    image: browser ? settings.browserEngineImage : kind === 'gows' ? (settings.gowsEngineImage ?? settings.engineImage) : settings.engineImage,
    imagePullPolicy: settings.pullPolicy ?? 'IfNotPresent',
    env: [
      { name: 'SWITCHBOARD_SESSION', value: sessionNameOf(resource) },
      { name: 'SWITCHBOARD_ENGINE', value: spec.engine },
      { name: 'SWITCHBOARD_NATS_URL', value: settings.natsUrl },
      ...natsCredentialsEnv(resource, settings),
      { name: 'SWITCHBOARD_POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      // A restarted container of the same pod takes back its session lease at once (session-lease.ts).
      { name: 'SWITCHBOARD_POD_UID', valueFrom: { fieldRef: { fieldPath: 'metadata.uid' } } },
      { name: METADATA_ENV, value: JSON.stringify(spec.config.metadata ?? {}) },
      { name: APPS_ENV, value: JSON.stringify(spec.apps ?? []) },
      ...(spec.config.sending ? [{ name: SENDING_VARIABLE, value: JSON.stringify(spec.config.sending) }] : []),
      { name: 'SWITCHBOARD_HEALTH_PORT', value: String(HEALTH_PORT) },
      // Only when configured: pods made before it was set keep their template hash.
      ...(settings.baseUrl ? [{ name: 'SWITCHBOARD_BASE_URL', value: settings.baseUrl }] : []),
      ...engineSettingsEnv(spec),
      ...(settings.nowebConnectAttempts && spec.engine === 'NOWEB'
        ? [{ name: 'SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS', value: String(settings.nowebConnectAttempts) }]
        : []),
      ...clientVersionEnv(spec.engine, settings),
      // The engines with a socket of their own to the service watch it for silence: those that present a client version on it.
      ...(settings.silenceTimeoutMs && CLIENT_VERSION_ENGINES.includes(spec.engine)
        ? [{ name: SILENCE_TIMEOUT_VARIABLE, value: String(settings.silenceTimeoutMs) }]
        : []),
      ...(settings.outbound
        ? [
            { name: 'SWITCHBOARD_OUTBOUND_DENY', value: settings.outbound.deny },
            { name: 'SWITCHBOARD_OUTBOUND_ALLOW', value: settings.outbound.allow },
          ]
        : []),
      // The runtime sized for one session's pod, from its memory limit (engine-resources.ts): V8's
      // heap for a Node pod, Go's soft limit for the Go pod.
      ...(goPod
        ? goMemoryLimit !== null
          ? [{ name: 'GOMEMLIMIT', value: goMemoryLimit }]
          : []
        : [{ name: 'NODE_OPTIONS', value: engineNodeOptions(spec.engine, settings.resources[spec.engine]) }]),
      // The release's extra env (engines.extraEnv), last; only when set, like the ones above.
      ...(settings.extraEnv ?? []).map(({ name, value }) => ({ name, value })),
    ],
    ports: [{ name: 'health', containerPort: HEALTH_PORT, protocol: 'TCP' }],
    ...ENGINE_PROBES,
    resources: structuredClone(settings.resources[spec.engine]),
    securityContext: {
      runAsNonRoot: true,
      runAsUser: USER_ID,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    },
    volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }, ...(browser ? [{ name: 'dshm', mountPath: '/dev/shm' }] : [])],
  };
  const volumes: V1Volume[] = [
    { name: 'tmp', emptyDir: { sizeLimit: browser ? '512Mi' : kind === 'gows' ? gowsTmpSize(settings.extraEnv) : '64Mi' } },
    // Chromium needs a larger /dev/shm than the container runtime's 64 MB default.
    ...(browser ? [{ name: 'dshm', emptyDir: { medium: 'Memory', sizeLimit: '256Mi' } }] : []),
  ];
  const restartedAt = restartedAtOf(resource);
  const placement = settings.placement?.[browser ? 'browser' : 'socket'];
  const nodeSelector = placement && Object.keys(placement.nodeSelector).length > 0 ? placement.nodeSelector : undefined;
  const tolerations = placement && placement.tolerations.length > 0 ? placement.tolerations : undefined;
  const imagePullSecrets = settings.imagePullSecrets?.length ? settings.imagePullSecrets.map((secret) => ({ name: secret })) : undefined;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: enginePodName(name),
      namespace: resource.metadata.namespace,
      labels: engineLabels(name),
      annotations: {
        [POD_TEMPLATE_HASH]: templateHash(container, { nodeSelector, tolerations }, imagePullSecrets),
        ...(restartedAt !== undefined ? { [ANNOTATIONS.podRestartedAt]: restartedAt } : {}),
        ...SCRAPE_ANNOTATIONS,
      },
      ownerReferences: [
        {
          apiVersion: API_VERSION,
          kind: MESSAGING_SESSION.kind,
          name,
          uid: resource.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: USER_ID,
        runAsGroup: USER_ID,
        fsGroup: USER_ID,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      containers: [container],
      volumes,
      ...(nodeSelector ? { nodeSelector: { ...nodeSelector } } : {}),
      ...(tolerations ? { tolerations: structuredClone(tolerations) } : {}),
      // The release's pull secrets: engine pods run as the namespace's default ServiceAccount,
      // which has none of its own unless someone gave it some.
      ...(imagePullSecrets ? { imagePullSecrets } : {}),
    },
  };
}

/**
 * Why a live pod is no longer the one the resource asks for, or null when it still is: the
 * API's restart changed `restarted-at`, or the engine, image, resources or placement changed.
 */
export function replacementReason(pod: V1Pod, desired: V1Pod): string | null {
  const annotations = pod.metadata?.annotations ?? {};
  const wanted = desired.metadata?.annotations ?? {};
  if (annotations[ANNOTATIONS.podRestartedAt] !== wanted[ANNOTATIONS.podRestartedAt]) {
    return `restart requested at ${wanted[ANNOTATIONS.podRestartedAt] ?? '(none)'}`;
  }
  if (annotations[POD_TEMPLATE_HASH] !== wanted[POD_TEMPLATE_HASH]) return 'the engine, image, resources or placement changed';
  return null;
}

/**
 * Placement is hashed too: a pod on a node the settings no longer allow is replaced. So are pull
 * secrets, when there are any: a pod stuck in ImagePullBackOff for want of one is replaced once
 * the release names it. Each only when set, so pods made without them keep their hash.
 */
function templateHash(container: V1Container, placement: { nodeSelector?: object; tolerations?: object[] }, imagePullSecrets?: object[]): string {
  const hashed = { ...container, env: container.env?.filter((e) => !LIVE_SETTINGS.has(e.name)) };
  const withPlacement = placement.nodeSelector || placement.tolerations ? { container: hashed, placement } : hashed;
  const withSecrets = imagePullSecrets ? { pod: withPlacement, imagePullSecrets } : withPlacement;
  return createHash('sha256').update(JSON.stringify(withSecrets)).digest('hex').slice(0, 16);
}

/**
 * The release's client version for the session's engine (SWITCHBOARD_<ENGINE>_CLIENT_VERSION),
 * only when set: pods made before it was set keep their template hash. Changing it replaces the
 * engine's pods, as a new image does: a reconnect presenting the new version.
 */
function clientVersionEnv(engine: BuiltEngine, settings: EnginePodSettings): V1EnvVar[] {
  const version = settings.clientVersions?.[engine];
  return version ? [{ name: clientVersionVariable(engine), value: version }] : [];
}
