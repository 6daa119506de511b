// Helpers of the chart tests: the pinned helm binary, rendering the chart, and running kubectl
// with its warnings (control-plane.ts's kubectl() keeps stdout only).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { type ControlPlane, e2eBinaries, kubeconfig, pin } from '../support/control-plane.js';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const chartDir = join(repoRoot, 'charts/switchboard');

/** A Kubernetes object as rendered or read back; tests look into it freely. */
export type Manifest = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; [k: string]: any }; [k: string]: any };

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a binary to completion; never rejects on a non-zero exit (tests look at `code`). */
export function exec(binary: string, args: string[], options: { env?: NodeJS.ProcessEnv; stdin?: string } = {}): Promise<Result> {
  return new Promise((done, fail) => {
    const child = execFile(binary, args, { env: options.env ?? process.env, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- execFile's error is an Error, though its type (an Omit of one) no longer says so
      if (code === -1) fail(err);
      else done({ code, stdout, stderr });
    });
    child.stdin!.end(options.stdin ?? '');
  });
}

/** Fails with the command's stderr unless it exited 0. */
export async function ok(result: Promise<Result>, what: string): Promise<Result> {
  const r = await result;
  if (r.code !== 0) throw new Error(`${what} exited ${r.code}:\n${r.stderr}${r.stdout}`);
  return r;
}

/** A tool scripts/e2e-binaries.sh builds as `<name>-<pin>`, beside kubectl. */
function pinnedTool(name: string, version: string): string {
  return join(dirname(e2eBinaries().kubectl), `${name}-${version}`);
}

/** The helm binary, pinned in test/e2e/tools/helm/go.mod. */
export function helmBinary(): string {
  return pinnedTool('helm', pin('helm', 'helm.sh/helm/v3'));
}

/** promtool (rule checks and rule unit tests), pinned in test/e2e/tools/promtool/go.mod. */
export function promtoolBinary(): string {
  return pinnedTool('promtool', pin('promtool', 'github.com/prometheus/prometheus'));
}

/** helm with its own cache/config/data dirs (never the user's), and a kubeconfig when given. */
export class Helm {
  private readonly home = mkdtempSync(join(tmpdir(), 'switchboard-helm-'));
  private readonly binary = helmBinary();

  constructor(private readonly kubeconfigPath?: string) {}

  run(args: string[]): Promise<Result> {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: this.home,
      HELM_CACHE_HOME: join(this.home, 'cache'),
      HELM_CONFIG_HOME: join(this.home, 'config'),
      HELM_DATA_HOME: join(this.home, 'data'),
      KUBECACHEDIR: join(this.home, 'kube-cache'),
      ...(this.kubeconfigPath ? { KUBECONFIG: this.kubeconfigPath } : { KUBECONFIG: join(this.home, 'no-cluster') }),
    };
    return exec(this.binary, args, { env });
  }

  /** Writes values to a file in helm's home dir and returns `-f <file>` (empty for none). */
  valuesArgs(values: object | undefined): string[] {
    if (!values) return [];
    const file = join(this.home, `values-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(values));
    return ['-f', file];
  }

  /**
   * `helm template`: the manifests as text. Throws with helm's message when rendering fails. Each
   * values object is one `-f`, later ones merged over earlier ones as helm does.
   */
  async template(release: string, namespace: string, ...values: (object | undefined)[]): Promise<string> {
    const files = values.flatMap((v) => this.valuesArgs(v));
    const r = await ok(this.run(['template', release, chartDir, '--namespace', namespace, ...files]), 'helm template');
    return r.stdout;
  }

  cleanup(): void {
    rmSync(this.home, { recursive: true, force: true });
  }
}

export function parseManifests(text: string): Manifest[] {
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null && typeof m === 'object');
}

export function find(manifests: Manifest[], kind: string, name: string): Manifest {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in [${manifests.map((m) => `${m.kind}/${m.metadata.name}`).join(', ')}]`);
  return found;
}

/** kubectl against a control plane, with stderr (warnings) and the exit code. */
export function kubectl(cp: ControlPlane, args: string[], stdin?: string): Promise<Result> {
  const dir = dirname(cp.kubeconfigPath);
  return exec(e2eBinaries().kubectl, ['--kubeconfig', cp.kubeconfigPath, ...args], {
    env: { ...process.env, KUBECACHEDIR: join(dir, 'kube-cache'), KUBERC: 'off' },
    stdin,
  });
}

/** A namespace where the restricted Pod Security standard is enforced, warned about and audited. */
export async function restrictedNamespace(cp: ControlPlane, name: string): Promise<void> {
  await cp.ensureNamespace(name);
  await ok(
    kubectl(cp, [
      'label',
      '--overwrite',
      'namespace',
      name,
      'pod-security.kubernetes.io/enforce=restricted',
      'pod-security.kubernetes.io/enforce-version=latest',
      'pod-security.kubernetes.io/warn=restricted',
      'pod-security.kubernetes.io/audit=restricted',
    ]),
    'kubectl label namespace',
  );
}

/** The chart's own CRDs, applied server-side and Established. */
export async function applyCrds(cp: ControlPlane): Promise<void> {
  await ok(kubectl(cp, ['apply', '--server-side', '--validate=strict', '-f', join(chartDir, 'crds')]), 'apply CRDs');
  await ok(kubectl(cp, ['wait', '--for=condition=Established', '--timeout=60s', 'crd/messagingsessions.switchboard.dev']), 'wait for the CRD');
}

/**
 * The `kubernetes` EndpointSlice in `default`, as a cluster's API servers keep it (this one runs
 * with --endpoint-reconciler-type=none): what `helm install` looks up for the gateway's egress.
 */
export async function publishApiServerAddress(cp: ControlPlane, address: string): Promise<void> {
  const slice = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes' } },
    addressType: 'IPv4',
    endpoints: [{ addresses: [address] }],
    ports: [{ name: 'https', port: 6443, protocol: 'TCP' }],
  };
  await ok(kubectl(cp, ['apply', '--server-side', '-f', '-'], JSON.stringify(slice)), 'apply the kubernetes EndpointSlice');
}

/** A kubeconfig that authenticates as a ServiceAccount, with a token from the TokenRequest API. */
export async function serviceAccountKubeconfig(cp: ControlPlane, namespace: string, serviceAccount: string): Promise<string> {
  const token = (await ok(kubectl(cp, ['create', 'token', serviceAccount, '-n', namespace, '--duration=1h']), 'kubectl create token')).stdout.trim();
  const path = join(dirname(cp.kubeconfigPath), `kubeconfig-${namespace}-${serviceAccount}`);
  writeFileSync(path, kubeconfig(cp.server, cp.caCert, token, serviceAccount, namespace), { mode: 0o600 });
  return path;
}

/** How long the chart tests wait on the API server unless told otherwise: helm and the API server are slow. */
export const CHART_WAIT_MS = 30_000;

/**
 * Where the API server is, which every value set with NetworkPolicies names: `helm install` looks
 * it up in the cluster, `helm template` and `helm lint` cannot, and refuse to guess "anywhere".
 */
export const API_SERVER_TO = [{ ipBlock: { cidr: '172.18.0.2/32' } }];
const apiServer = { apiServer: { to: API_SERVER_TO } };

/**
 * The value sets every test runs: the defaults, and the shapes a platform team picks between.
 * Each one must lint, render, and be admitted by a real API server under the restricted standard.
 */
export const VALUE_SETS: Record<string, object | undefined> = {
  // The defaults, but for the one value a render without a cluster cannot find.
  defaults: { networkPolicy: { gateway: apiServer } },
  'external NATS': {
    networkPolicy: { gateway: apiServer },
    // The scheduled backup, so it is linted and admitted under restricted with the rest.
    backup: { enabled: true, passphraseSecret: { name: 'switchboard-backup' }, upload: { urlSecret: { name: 'backup-target' } } },
    nats: {
      external: {
        url: 'nats://nats.messaging.svc.cluster.local:4222',
        credentialsSecret: { name: 'nats-creds', key: 'switchboard.creds', engineKey: 'engine.creds' },
      },
    },
  },
  'bundled NATS off': {
    nats: { bundled: { enabled: false }, external: { url: 'nats://nats-0.nats:4222,nats://nats-1.nats:4222,nats://nats-2.nats:4222', replicas: 3 } },
    networkPolicy: { gateway: apiServer, engines: { externalNatsPorts: [4222, 7422] } },
  },
  'gateway replicas 3': {
    image: { registry: 'registry.example.com/platform/switchboard', tag: '2026.11.1', pullSecrets: ['regcred'] },
    apiKey: { existingSecret: 'switchboard-admin', existingSecretKey: 'key' },
    baseUrl: 'https://wa.example.com',
    gateway: {
      replicas: 3,
      mediaLifetimeSeconds: 3600,
      service: { type: 'LoadBalancer', port: 443, annotations: { 'example.com/lb': 'internal' } },
      extraEnv: [{ name: 'SWITCHBOARD_HOOK_URL', value: 'https://hooks.example.com/all' }],
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: 'kubernetes.io/hostname',
          whenUnsatisfiable: 'ScheduleAnyway',
          labelSelector: { matchLabels: { 'app.kubernetes.io/component': 'gateway' } },
        },
      ],
    },
    operator: { replicas: 3, workers: 8, leaseName: 'sb-leader', httpPort: 9090 },
    engines: {
      socket: { nodeSelector: { pool: 'engines' }, tolerations: [{ key: 'engines', operator: 'Exists', effect: 'NoSchedule' }] },
      resources: { WEBJS: { requests: { cpu: '500m', memory: '1Gi' }, limits: { memory: '3Gi' } }, NOWEB: { limits: { memory: '1Gi' } } },
      browser: { nodeSelector: { pool: 'browsers' } },
    },
    nats: {
      bundled: {
        persistence: { size: '50Gi', storageClass: 'fast' },
        jetstream: { maxFileStore: '45Gi', maxMemoryStore: '1Gi' },
        pdb: { enabled: false },
      },
    },
    networkPolicy: {
      gateway: { from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress' } } }], ...apiServer },
      operator: { metricsFrom: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }] },
      engines: { probeSourceCIDRs: ['10.0.0.0/24'] },
      nats: { extraFrom: [{ podSelector: { matchLabels: { app: 'nats-backup' } } }] },
    },
  },
  'bundled NATS cluster': { nats: { bundled: { replicas: 3 } }, networkPolicy: { gateway: apiServer } },
  'NATS auth off': { nats: { bundled: { auth: { enabled: false } } }, networkPolicy: { gateway: apiServer } },
  // What the real-node tier installs (test/e2e-node/release.ts): imported images, never pulled.
  'imported images': {
    image: { tag: 'dev', pullPolicy: 'Never' },
    nats: { bundled: { image: { registry: 'localhost', repository: 'switchboard/nats', tag: '2.12.15', pullPolicy: 'Never' } } },
    engines: { extraEnv: [{ name: 'SWITCHBOARD_NOWEB_WS_URL', value: 'ws://10.222.0.1:4000/ws/chat' }], nowebConnectAttempts: 3 },
    networkPolicy: { gateway: { apiServer: { ports: [6443], to: [{ ipBlock: { cidr: '10.222.0.1/32' } }] } } },
    outbound: { allow: ['10.222.0.1'] },
  },
  'network policies off': { networkPolicy: { enabled: false }, gateway: { pdb: { enabled: false } }, operator: { pdb: { enabled: false } } },
};
