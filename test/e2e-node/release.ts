// The scenarios' side of the real node: the chart installed the way docs/operations.md tells a
// platform team (a namespace that enforces the restricted Pod Security standard, then
// `helm install`), reached the way its NOTES tell them (`kubectl port-forward` to the gateway
// Service), and taken away the same way. One release per file, each in a namespace of its own.
//
// Why port-forward and not the Service's ClusterIP from the host: the node's blackhole route for
// the service range (support/node-cluster.ts) makes a host socket's connect() to a ClusterIP fail
// before kube-proxy's DNAT could rewrite it, and a NodePort would test kube-proxy rather than
// what a platform team does first. Pods reach the Service by ClusterIP and DNS name anyway (the
// gateway and engine pods reach NATS through its Service).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chownSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ApiCall, apiClient } from '@switchboard/testkit';
import type { CommandResult, NodeCluster, NodeClusterInfo } from './support/node-cluster.js';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const chartDir = join(repoRoot, 'charts/switchboard');

/** A Kubernetes object as kubectl prints it; tests look into it freely. */
export type Manifest = any;

/** uid and gid of every Switchboard container (the chart's and the operator's pod specs). */
export const USER_ID = 10001;

/**
 * The bundled NATS's image: docker.io/nats cannot be pulled here, so scripts/nats-image.sh makes
 * one of the pinned nats-server (cached; seconds when warm) and it is imported into containerd.
 */
export async function ensureNatsImage(cluster: NodeCluster): Promise<{ registry: string; repository: string; tag: string }> {
  const ref = await new Promise<string>((done, fail) => {
    execFile('bash', [join(repoRoot, 'scripts/nats-image.sh')], { cwd: repoRoot, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      if (error) fail(new Error(`scripts/nats-image.sh failed:\n${stderr}`));
      else done(stdout.trim().split('\n').at(-1)!);
    });
  });
  await cluster.importImage(join(repoRoot, '.cache/images/nats.oci.tar'));
  const [, repository, tag] = /^localhost\/(.+):(.+)$/.exec(ref)!;
  return { registry: 'localhost', repository: repository!, tag: tag! };
}

/**
 * The values every release here is installed with: the images of `make images` (tag dev),
 * imported, never pulled; and the NetworkPolicy values this node needs, which kube-router enforces
 * here, set as docs/operations.md tells a platform team: the gateway's egress to the API server
 * names where it really listens (a pod's connection to the `kubernetes` Service's 443 is
 * rewritten to the node address and the API server's port before policies see it), and the
 * servers the tests run on the host, at private addresses the chart's egress leaves out, are let
 * in one URL at a time (`hostServers`: URLs the gateway or the engine pods must reach). The
 * chart's outbound address policy denies private ranges too (outbound.deny), so the host's
 * address is allowed there (outbound.allow) whenever a test runs a server on it.
 */
export function nodeValues(
  cluster: NodeCluster,
  nats: { registry: string; repository: string; tag: string },
  extra: Record<string, unknown> = {},
  hostServers: { gateway?: readonly string[]; engines?: readonly string[] } = {},
): Record<string, unknown> {
  const host = { ipBlock: { cidr: `${cluster.hostAddress}/32` } };
  const toHost = (urls: readonly string[] = []) => urls.map((url) => ({ to: [host], ports: [{ port: Number(new URL(url).port), protocol: 'TCP' }] }));
  const reachesHost = [...(hostServers.gateway ?? []), ...(hostServers.engines ?? [])].length > 0;
  return {
    image: { tag: 'dev', pullPolicy: 'Never' },
    ...(reachesHost ? { outbound: { allow: [cluster.hostAddress] } } : {}),
    nats: { bundled: { image: { ...nats, pullPolicy: 'Never' } } },
    networkPolicy: {
      gateway: { apiServer: { ports: [Number(new URL(cluster.apiServerUrl).port)], to: [host] }, extraEgress: toHost(hostServers.gateway) },
      engines: { extraEgress: toHost(hostServers.engines) },
    },
    ...extra,
  };
}

export async function must(result: Promise<CommandResult>, what: string): Promise<string> {
  const r = await result;
  if (r.code !== 0) throw new Error(`${what} exited ${r.code}:\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

export class Release {
  readonly full: string;
  private forward: { url: string; child: ChildProcess } | null = null;
  private key = '';
  private revision = 0;
  private removed = false;
  /** NATS volumes made so far (servers 0 to volumes - 1). */
  private volumes = 0;

  constructor(
    readonly cluster: NodeCluster,
    private readonly info: NodeClusterInfo,
    readonly namespace: string,
    readonly name = 'sb',
  ) {
    this.full = name.includes('switchboard') ? name : `${name}-switchboard`;
  }

  kubectl(args: readonly string[], input?: string): Promise<CommandResult> {
    return this.cluster.kubectl(['-n', this.namespace, ...args], input === undefined ? {} : { input });
  }

  async json(...args: string[]): Promise<Manifest> {
    return JSON.parse(await must(this.kubectl(['get', ...args, '-o', 'json']), `kubectl get ${args.join(' ')}`));
  }

  /**
   * docs/operations.md, "Install": the namespace with the restricted standard enforced, then
   * `helm install` (which creates the CRD from crds/ when it is not there yet). The bundled NATS's
   * volumes are hostPath PersistentVolumes made here, one per server, each bound to its claim by
   * name: this node has no StorageClass, as a bare cluster has none. Resolves when helm's --wait
   * does: every Deployment and the StatefulSet ready.
   */
  async install(values: Record<string, unknown>): Promise<number> {
    const started = Date.now();
    await must(this.cluster.kubectl(['create', 'namespace', this.namespace]), 'create namespace');
    await must(
      this.cluster.kubectl([
        'label',
        'namespace',
        this.namespace,
        'pod-security.kubernetes.io/enforce=restricted',
        'pod-security.kubernetes.io/warn=restricted',
        'pod-security.kubernetes.io/audit=restricted',
      ]),
      'label namespace',
    );
    await this.natsVolumes(values);
    await must(this.helm(['install', this.name, chartDir, '--wait', '--timeout', '10m', ...this.valuesArgs(values)]), 'helm install');
    return Date.now() - started;
  }

  /** `helm upgrade` with these values (only these: no --reuse-values), the volumes of added NATS servers made first. */
  async upgrade(values: Record<string, unknown>): Promise<void> {
    await this.natsVolumes(values);
    await must(this.helm(['upgrade', this.name, chartDir, '--wait', '--timeout', '10m', ...this.valuesArgs(values)]), 'helm upgrade');
  }

  /**
   * `helm upgrade --reuse-values` with these values laid over the release's (docs/operations.md,
   * "From 1 server to 3"), the volumes of added NATS servers made first.
   */
  async upgradeReusing(values: Record<string, unknown>): Promise<void> {
    await this.natsVolumes(values);
    await must(
      this.helm(['upgrade', this.name, chartDir, '--reuse-values', '--wait', '--timeout', '10m', ...this.valuesArgs(values)]),
      'helm upgrade --reuse-values',
    );
  }

  /** A hostPath PersistentVolume for each NATS server's claim (`data-<fullname>-nats-<n>`) not made yet. */
  private async natsVolumes(values: Record<string, unknown>): Promise<void> {
    const servers = Number((values as Manifest).nats?.bundled?.replicas ?? 1);
    for (let n = this.volumes; n < servers; n++) {
      const volume = join(this.cluster.dir, 'volumes', this.namespace, `nats-${n}`);
      mkdirSync(volume, { recursive: true });
      chownSync(volume, USER_ID, USER_ID);
      const pv = {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: this.volumeName(n) },
        spec: {
          capacity: { storage: '10Gi' },
          accessModes: ['ReadWriteOnce'],
          persistentVolumeReclaimPolicy: 'Retain',
          hostPath: { path: volume, type: 'Directory' },
          claimRef: { namespace: this.namespace, name: `data-${this.full}-nats-${n}` },
        },
      };
      await must(this.cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify(pv) }), `apply NATS volume ${n}`);
      this.volumes = n + 1;
    }
  }

  helm(args: readonly string[]): Promise<CommandResult> {
    return this.cluster.helm([...args, '--namespace', this.namespace]);
  }

  /** `-f my-values.yaml`, as the docs have it (JSON is YAML), in the run dir. */
  private valuesArgs(values: Record<string, unknown>): string[] {
    const file = join(this.cluster.dir, `values-${this.namespace}-${++this.revision}.json`);
    writeFileSync(file, JSON.stringify(values, null, 2));
    return ['-f', file];
  }

  private volumeName(n: number): string {
    return `${this.namespace}-nats-data-${n}`;
  }

  /** The admin key from the Secret the chart generated (NOTES.txt). */
  async apiKey(): Promise<string> {
    if (!this.key) {
      const secret = await this.json('secret', `${this.full}-api-key`);
      this.key = Buffer.from(secret.data['api-key'] as string, 'base64').toString();
    }
    return this.key;
  }

  /**
   * The gateway's API through `kubectl port-forward svc/<gateway> :80`. The forward goes to one
   * pod: when that pod goes (an upgrade, a deleted pod), kubectl's forward breaks, and the next
   * call opens a new one.
   */
  api: ApiCall = async (method, path, body, key) => {
    for (let attempt = 1; ; attempt++) {
      const forward = await this.gatewayForward();
      try {
        return await apiClient(forward.url, await this.apiKey())(method, path, body, key);
      } catch (error) {
        if (attempt >= 5) throw error;
        forward.child.kill();
        if (this.forward === forward) this.forward = null;
        await new Promise((r) => setTimeout(r, 1_000));
      }
    }
  };

  /** The gateway's base URL through the port-forward: a new forward when the last one broke (for /ws clients). */
  async gatewayUrl(): Promise<string> {
    return (await this.gatewayForward()).url;
  }

  private opening: Promise<{ url: string; child: ChildProcess }> | null = null;

  /** One forward at a time: concurrent callers (a load of sends in flight) share the one being opened. */
  private async gatewayForward(): Promise<{ url: string; child: ChildProcess }> {
    if (this.forward && this.forward.child.exitCode === null && this.forward.child.signalCode === null) return this.forward;
    this.opening ??= this.openForward().finally(() => (this.opening = null));
    return this.opening;
  }

  private async openForward(): Promise<{ url: string; child: ChildProcess }> {
    this.forward = await new Promise((done, fail) => {
      const child = spawn(
        this.info.tools.kubectl,
        ['--kubeconfig', this.info.kubeconfig, '-n', this.namespace, 'port-forward', '--address', '127.0.0.1', `svc/${this.full}-gateway`, ':80'],
        { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, KUBERC: 'off' } },
      );
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const port = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(out)?.[1];
        if (port) done({ url: `http://127.0.0.1:${port}`, child });
      });
      child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.once('exit', (code) => fail(new Error(`kubectl port-forward exited ${code}: ${out}`)));
    });
    return this.forward!;
  }

  async status(session: string): Promise<string> {
    const res = await this.api('GET', `/api/sessions/${session}`);
    return res.status === 200 ? (res.body.status as string) : `HTTP ${res.status}`;
  }

  async waitForStatus(session: string, status: string, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      last = await this.status(session);
      if (last === status) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`session '${session}' did not reach ${status} within ${timeoutMs} ms (last: ${last})`);
  }

  /** The engine pod of a session resource; null when there is none. */
  async enginePod(resource: string): Promise<Manifest> {
    const res = await this.kubectl(['get', 'pod', `engine-${resource}`, '-o', 'json']);
    return res.code === 0 ? JSON.parse(res.stdout) : null;
  }

  /** The engine container's id as the CRI knows it (containerd://<id> without the scheme). */
  async engineContainerId(resource: string): Promise<string> {
    const pod = await this.enginePod(resource);
    const id = pod?.status?.containerStatuses?.[0]?.containerID as string | undefined;
    if (!id) throw new Error(`engine-${resource} has no container yet`);
    return id.replace(/^containerd:\/\//, '');
  }

  /** `node -e <script>` inside the engine container (kubectl exec: API server, kubelet, CRI); its stdout. */
  async inEngine(resource: string, script: string): Promise<string> {
    return must(this.kubectl(['exec', `engine-${resource}`, '-c', 'engine', '--', 'node', '-e', script]), `exec in engine-${resource}`);
  }

  /** Pods of the namespace, by name. */
  async podNames(): Promise<string[]> {
    const list = await this.json('pods');
    return (list.items as Manifest[]).map((pod) => pod.metadata.name as string);
  }

  /**
   * docs/operations.md, "Removing Switchboard": the sessions first (while the operator runs),
   * then the release, then what uninstall keeps on purpose, then the namespace and our volume.
   * Once: a file's last test removes the release, its afterAll does when a test failed before.
   */
  async remove(): Promise<void> {
    if (this.removed) return;
    this.removed = true;
    this.forward?.child.kill();
    this.forward = null;
    await this.kubectl(['annotate', 'msess', '--all', '--overwrite', 'switchboard.dev/logout-on-delete=true']);
    await this.kubectl(['delete', 'msess', '--all', '--timeout=120s']);
    await this.helm(['uninstall', this.name, '--wait', '--timeout', '5m']);
    for (let n = 0; n < this.volumes; n++) {
      await this.kubectl(['delete', 'pvc', `data-${this.full}-nats-${n}`, '--ignore-not-found', '--timeout=60s']);
    }
    await this.cluster.kubectl(['delete', 'namespace', this.namespace, '--ignore-not-found', '--timeout=180s']);
    for (let n = 0; n < this.volumes; n++) {
      await this.cluster.kubectl(['delete', 'pv', this.volumeName(n), '--ignore-not-found', '--timeout=60s']);
    }
  }
}

/** containerd's own name for an image this node has: `ctr images tag`, as a registry would serve a new tag. */
export async function retag(info: NodeClusterInfo, from: string, to: string): Promise<void> {
  await new Promise<void>((done, fail) => {
    execFile(
      info.tools.ctr,
      ['--address', info.tools.containerdSocket, '--namespace', 'k8s.io', 'images', 'tag', '--force', from, to],
      (error, _stdout, stderr) => (error ? fail(new Error(`ctr images tag ${from} ${to}: ${stderr}`)) : done()),
    );
  });
}

/**
 * Drops a name `retag` gave (`ctr images rm`: the name only, the content stays under its others).
 * A file that retags cleans up after itself: the CRI reports a container's image by one of the
 * names its image has, so a name left behind shows up in the next file's checks.
 */
export async function untag(info: NodeClusterInfo, ref: string): Promise<void> {
  await new Promise<void>((done, fail) => {
    execFile(info.tools.ctr, ['--address', info.tools.containerdSocket, '--namespace', 'k8s.io', 'images', 'rm', ref], (error, _stdout, stderr) =>
      error ? fail(new Error(`ctr images rm ${ref}: ${stderr}`)) : done(),
    );
  });
}

/** Seconds with one decimal, for the printed measurements. */
export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The example manifests, as a platform team has them in the checkout. */
export const example = (name: string) => readFileSync(join(repoRoot, 'examples', name), 'utf8');
