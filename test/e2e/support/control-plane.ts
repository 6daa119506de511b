// A real Kubernetes control plane (etcd + kube-apiserver) and a real NATS server with JetStream,
// as local processes on 127.0.0.1, for the e2e suite. No kubelet, scheduler or controller-manager:
// objects are stored, validated, admitted and authorized for real, but nothing acts on them. So
// pods stay Pending, ownerReferences are recorded but never garbage-collected, and a deleted
// namespace stays Terminating: tests should assert on what the operator writes, not on cascades.
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const toolsDir = join(repoRoot, 'test/e2e/tools');

export interface Binaries {
  etcd: string;
  kubeApiserver: string;
  kubectl: string;
  natsServer: string;
}

export interface ControlPlane {
  /** kubeconfig for the admin user (token auth, group system:masters), context namespace "default". */
  kubeconfigPath: string;
  /** https://127.0.0.1:<port> */
  server: string;
  /** Bearer token of the admin user. */
  token: string;
  /** PEM of the CA that signed the serving certificate (also accepted for client certificates). */
  caCert: string;
  caCertPath: string;
  /** http://127.0.0.1:<port>, etcd's client URL (for tests that want to look under the API). */
  etcdUrl: string;
  /** The processes, for tests that check them (e.g. which addresses they listen on). */
  pids: { etcd: number; kubeApiserver: number };
  /** Runs kubectl with this kubeconfig; resolves with stdout, rejects with stderr on failure. */
  kubectl(args: string[], stdin?: string): Promise<string>;
  /** fetch() against the API server with the CA pinned and the admin token set. */
  fetch(path: string, init?: { method?: string; body?: string; headers?: Record<string, string> }): Promise<Response>;
  /**
   * Creates a namespace and its "default" ServiceAccount, which the namespace and serviceaccount
   * controllers would otherwise do. Needed before creating pods there (see ServiceAccount admission).
   */
  ensureNamespace(name: string): Promise<void>;
  /**
   * Stops kube-apiserver (SIGTERM, as a control-plane restart does) and leaves etcd running; every
   * client's calls and watches fail until `startApiServer`.
   */
  stopApiServer(): Promise<void>;
  /** Starts kube-apiserver again on the same port, with the same flags and certificates; resolves once /readyz is ok. */
  startApiServer(): Promise<void>;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Appended to the kube-apiserver command line (later flags win), e.g. feature gates. */
  extraApiServerArgs?: string[];
}

export interface Nats {
  /** nats://127.0.0.1:<port> */
  url: string;
  /** http://127.0.0.1:<port>, the monitoring endpoint (/jsz, /varz, /healthz). */
  monitorUrl: string;
  storeDir: string;
  pid: number;
  stop(): Promise<void>;
}

let binDir: string | undefined;

/**
 * Paths of the pinned binaries. Runs scripts/e2e-binaries.sh once per process: a no-op when they
 * are cached, a cold build otherwise (the vitest global setup runs it first, so tests don't race).
 */
export function e2eBinaries(): Binaries {
  binDir ??= execFileSync(join(repoRoot, 'scripts/e2e-binaries.sh'), { stdio: ['ignore', 'pipe', 'inherit'] })
    .toString()
    .trim()
    .split('\n')
    .at(-1)!;
  const kube = pin('kube', 'k8s.io/kubernetes');
  return {
    etcd: join(binDir, `etcd-${pin('etcd', 'go.etcd.io/etcd/server/v3')}`),
    kubeApiserver: join(binDir, `kube-apiserver-${kube}`),
    kubectl: join(binDir, `kubectl-${kube}`),
    natsServer: join(binDir, `nats-server-${pin('nats', 'github.com/nats-io/nats-server/v2')}`),
  };
}

/** The version test/e2e/tools/<tool>/go.mod pins for module <mod>: the go.mod files are the single source of truth, read by the build scripts too. */
export function pin(tool: string, mod: string): string {
  const match = readFileSync(join(toolsDir, tool, 'go.mod'), 'utf8').match(
    new RegExp(`^\\s*(?:require\\s+)?${mod.replaceAll('.', '\\.')}\\s+(v\\S+)`, 'm'),
  );
  if (!match) throw new Error(`no ${mod} pin in test/e2e/tools/${tool}/go.mod`);
  return match[1]!;
}

/** Starts etcd and kube-apiserver; resolves once /readyz is ok and namespace "default" has its ServiceAccount. */
export function start(options: StartOptions = {}): Promise<ControlPlane> {
  return retryOnPortRace(() => startOnce(options));
}

/** Starts nats-server with JetStream; resolves once its /healthz says JetStream is up. */
export interface NatsOptions {
  /** nats-server configuration beside the flags: the authentication cluster mode runs with. */
  readonly config?: string;
}

export function startNats(options: NatsOptions = {}): Promise<Nats> {
  return retryOnPortRace(() => startNatsOnce(options));
}

/**
 * A free port can be taken by another test worker between our probe and the server's bind;
 * that shows as "address already in use" in the log, and a fresh attempt gets fresh ports.
 */
async function retryOnPortRace<T>(attempt: () => Promise<T>): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      if (i === 3 || !/address already in use/.test(String(err))) throw err;
    }
  }
}

async function startOnce(options: StartOptions): Promise<ControlPlane> {
  const bins = e2eBinaries();
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-kube-'));
  const group = new ProcessGroup(dir);
  try {
    const [etcdClient, etcdPeer, apiPort] = await freePorts(3);
    const { url: etcdUrl, args: etcdArgs } = singleEtcd('e2e', join(dir, 'etcd'), etcdClient!, etcdPeer!);
    const etcd = group.spawn('etcd', bins.etcd, etcdArgs);
    await waitUntil(etcd, 'etcd /health', 30_000, async () => {
      const res = await fetch(`${etcdUrl}/health`).catch(() => null);
      return res?.ok === true && ((await res.json()) as { health?: string }).health === 'true';
    });

    const pki = writePki(dir);
    const token = randomBytes(24).toString('hex');
    const tokenFile = join(dir, 'tokens.csv');
    // token,user,uid,"groups": system:masters is bound to cluster-admin by RBAC's bootstrap policy.
    writeFileSync(tokenFile, `${token},e2e-admin,e2e-admin,"system:masters"\n`, { mode: 0o600 });
    const server = `https://127.0.0.1:${apiPort}`;
    const apiserverArgs = [
      `--etcd-servers=${etcdUrl}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      `--tls-cert-file=${pki.servingCert}`,
      `--tls-private-key-file=${pki.servingKey}`,
      `--client-ca-file=${pki.caCert}`,
      `--token-auth-file=${tokenFile}`,
      // What kubeadm runs: Node (for kubelets, harmless without any) then RBAC, so permission
      // failures of operator/gateway service accounts show up here as in a real cluster.
      '--authorization-mode=Node,RBAC',
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${pki.saPublic}`,
      `--service-account-signing-key-file=${pki.saPrivate}`,
      '--service-cluster-ip-range=10.96.0.0/16',
      '--allow-privileged=true',
      // The default admission chain stays on, including ServiceAccount: pods get the projected
      // token volume as in a real cluster. Its one need, a ServiceAccount object, is met by
      // ensureNamespace() in place of the serviceaccount controller we don't run.
      // The "kubernetes" Service's endpoint reconciler would publish 127.0.0.1, which Endpoints
      // validation rejects (loopback) and logs every few seconds; nothing here consumes it.
      '--endpoint-reconciler-type=none',
      '--profiling=false',
      ...(options.extraApiServerArgs ?? []),
    ];
    let apiserver = group.spawn('kube-apiserver', bins.kubeApiserver, apiserverArgs);

    const caCert = readFileSync(pki.caCert, 'utf8');
    const api = pinnedFetch(server, caCert, token);
    const apiserverReady = () =>
      waitUntil(apiserver, 'kube-apiserver /readyz', 120_000, async () => {
        const res = await api('/readyz').catch(() => null);
        return res?.status === 200;
      });
    await apiserverReady();

    const kubeconfigPath = join(dir, 'kubeconfig');
    writeFileSync(kubeconfigPath, kubeconfig(server, caCert, token), { mode: 0o600 });
    // Discovery cache in the temp dir, not ~/.kube/cache (one dir per random port would pile up
    // there), and no user kuberc preferences changing kubectl's output.
    const kubectlEnv = { ...process.env, KUBECACHEDIR: join(dir, 'kube-cache'), KUBERC: 'off' };
    const kubectl = (args: string[], stdin?: string) => run(bins.kubectl, ['--kubeconfig', kubeconfigPath, ...args], kubectlEnv, stdin);

    const ensureNamespace = async (name: string) => {
      await createIfMissing(api, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      await createIfMissing(api, `/api/v1/namespaces/${name}/serviceaccounts`, {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'default' },
      });
    };
    // The API server creates namespace "default" itself, shortly after it is ready.
    await waitUntil(apiserver, 'namespace default', 30_000, async () => (await api('/api/v1/namespaces/default')).ok);
    await ensureNamespace('default');

    return {
      kubeconfigPath,
      server,
      token,
      caCert,
      caCertPath: pki.caCert,
      etcdUrl,
      get pids() {
        return { etcd: etcd.pid!, kubeApiserver: apiserver.pid! };
      },
      kubectl,
      fetch: api,
      ensureNamespace,
      stopApiServer: () => terminate(apiserver, 10_000),
      async startApiServer() {
        if (apiserver.exitCode === null && apiserver.signalCode === null) throw new Error('kube-apiserver is running: stopApiServer first');
        apiserver = group.spawn('kube-apiserver', bins.kubeApiserver, apiserverArgs);
        await apiserverReady();
      },
      stop: () => group.stop(),
    };
  } catch (err) {
    await group.stop();
    throw err;
  }
}

async function startNatsOnce(options: NatsOptions): Promise<Nats> {
  const bins = e2eBinaries();
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-nats-'));
  const group = new ProcessGroup(dir);
  try {
    const [port, monitorPort] = await freePorts(2);
    const storeDir = join(dir, 'jetstream');
    const configArgs: string[] = [];
    if (options.config !== undefined) {
      writeFileSync(join(dir, 'nats.conf'), options.config, { mode: 0o600 });
      configArgs.push('-c', join(dir, 'nats.conf'));
    }
    // -a binds the client port and, by default, the monitoring port to loopback.
    const nats = group.spawn('nats-server', bins.natsServer, [
      ...configArgs,
      '-js',
      '-sd',
      storeDir,
      '-a',
      '127.0.0.1',
      '-p',
      String(port),
      '-m',
      String(monitorPort),
      '-n',
      'e2e',
    ]);
    const monitorUrl = `http://127.0.0.1:${monitorPort}`;
    await waitUntil(nats, 'nats-server /healthz', 30_000, async () => {
      const res = await fetch(`${monitorUrl}/healthz?js-enabled-only=true`).catch(() => null);
      return res?.ok === true;
    });
    return { url: `nats://127.0.0.1:${port}`, monitorUrl, storeDir, pid: nats.pid!, stop: () => group.stop() };
  } catch (err) {
    await group.stop();
    throw err;
  }
}

// ---- processes -------------------------------------------------------------------------------

const live = new Set<ChildProcess>();
// A normal exit of the test process (including vitest tearing a worker down cleanly).
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/**
 * The servers of one start() and their temp dir. A watchdog shell holds a pipe from this process;
 * when the pipe closes because this process died in any way (even SIGKILL), it kills the servers
 * and removes the dir, so nothing outlives a test run.
 */
class ProcessGroup {
  private readonly children: ChildProcess[] = [];
  private readonly watchdog: ChildProcess;
  private readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
    this.watchdog = spawn('sh', ['-c', 'pids=; while read -r p; do pids="$pids $p"; done; kill -9 $pids 2>/dev/null; rm -rf "$0"', dir], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
    });
    this.watchdog.unref();
    (this.watchdog.stdin as Socket).unref();
  }

  /** Starts a server with its output in <dir>/<name>.log. */
  spawn(name: string, binary: string, args: string[]): ChildProcess {
    if (!existsSync(binary)) throw new Error(`${binary} is missing: run scripts/e2e-binaries.sh`);
    const logPath = join(this.dir, `${name}.log`);
    const log = openSync(logPath, 'a');
    const child = spawn(binary, args, { stdio: ['ignore', log, log] });
    closeSync(log);
    Object.assign(child, { logPath, label: name });
    this.watchdog.stdin!.write(`${child.pid}\n`);
    live.add(child);
    child.once('exit', () => live.delete(child));
    this.children.push(child);
    return child;
  }

  /** SIGTERM in reverse start order (API server before etcd), SIGKILL after 10 s, then cleanup. */
  async stop(): Promise<void> {
    for (const child of [...this.children].reverse()) await terminate(child, 10_000);
    this.watchdog.kill('SIGKILL');
    if (process.env.SWITCHBOARD_E2E_KEEP) console.error(`e2e: kept ${this.dir}`);
    else rmSync(this.dir, { recursive: true, force: true });
  }
}

async function terminate(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Polls `ready` until true; fails early, with the log's tail, if the process exits. */
async function waitUntil(child: ChildProcess, what: string, timeoutMs: number, ready: () => Promise<boolean>) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${what}: process exited\n${logTail(child)}`);
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what}: not ready after ${timeoutMs} ms\n${logTail(child)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function logTail(child: ChildProcess): string {
  const { logPath, label } = child as ChildProcess & { logPath: string; label: string };
  const lines = readFileSync(logPath, 'utf8').trimEnd().split('\n').slice(-30);
  return `--- last lines of ${label} (${logPath}) ---\n${lines.join('\n')}`;
}

function run(binary: string, args: string[], env: NodeJS.ProcessEnv, stdin?: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = execFile(binary, args, { env, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${binary} ${args.join(' ')}: ${stderr || err.message}`));
      else resolvePromise(stdout);
    });
    child.stdin!.end(stdin ?? '');
  });
}

/** Ports free right now; held open together so the OS hands out distinct ones. */
/** A one-member etcd on loopback, as both tiers run it: its client URL and its arguments. */
export function singleEtcd(name: string, dataDir: string, clientPort: number, peerPort: number): { url: string; args: string[] } {
  const url = `http://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const args = [
    `--name=${name}`,
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${url}`,
    `--advertise-client-urls=${url}`,
    `--listen-peer-urls=${peerUrl}`,
    `--initial-advertise-peer-urls=${peerUrl}`,
    `--initial-cluster=${name}=${peerUrl}`,
    // A throwaway store: skipping fsync makes API writes several times faster on slow disks.
    '--unsafe-no-fsync',
    '--log-level=warn',
  ];
  return { url, args };
}

export async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  const ports = await Promise.all(
    servers.map(
      (s) =>
        new Promise<number>((done, fail) => {
          s.once('error', fail);
          s.listen(0, '127.0.0.1', () => done((s.address() as { port: number }).port));
        }),
    ),
  );
  await Promise.all(servers.map((s) => new Promise((done) => s.close(done))));
  return ports;
}

// ---- PKI, kubeconfig, HTTP -------------------------------------------------------------------

/**
 * A CA and a serving certificate for 127.0.0.1 (openssl: node:crypto cannot sign certificates),
 * and the service-account token key pair (node:crypto). Valid for a day; each start makes new ones.
 */
export function writePki(dir: string, extraSans: readonly string[] = []) {
  const p = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    openssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=switchboard-e2e-ca',
      '-keyout',
      p('ca.key'),
      '-out',
      p('ca.crt'),
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
    openssl(
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      '/CN=kube-apiserver',
      '-keyout',
      p('apiserver.key'),
      '-out',
      p('apiserver.csr'),
    );
    // The in-cluster names and the Service IP too, so the same cert would do if traffic ever came that way.
    writeFileSync(
      p('apiserver.ext'),
      [
        `subjectAltName=${['IP:127.0.0.1', 'IP:10.96.0.1', ...extraSans].join(',')},DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local`,
        'extendedKeyUsage=serverAuth',
        'keyUsage=critical,digitalSignature,keyEncipherment',
      ].join('\n'),
    );
    openssl(
      'x509',
      '-req',
      '-in',
      p('apiserver.csr'),
      '-CA',
      p('ca.crt'),
      '-CAkey',
      p('ca.key'),
      '-set_serial',
      `0x${randomBytes(8).toString('hex')}`,
      '-days',
      '1',
      '-extfile',
      p('apiserver.ext'),
      '-out',
      p('apiserver.crt'),
    );
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`openssl failed (Debian package "openssl" needed): ${stderr || (err as Error).message}`, { cause: err });
  }
  const sa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  writeFileSync(p('sa.key'), sa.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  writeFileSync(p('sa.pub'), sa.publicKey.export({ type: 'spki', format: 'pem' }));
  return {
    caCert: p('ca.crt'),
    servingCert: p('apiserver.crt'),
    servingKey: p('apiserver.key'),
    saPrivate: p('sa.key'),
    saPublic: p('sa.pub'),
  };
}

/** A kubeconfig with one token user, the CA pinned; the admin's, or a ServiceAccount's in a test. */
export function kubeconfig(server: string, caCert: string, token: string, user = 'e2e-admin', namespace = 'default'): string {
  return `apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: ${server}
    certificate-authority-data: ${Buffer.from(caCert).toString('base64')}
users:
- name: ${user}
  user:
    token: ${token}
contexts:
- name: e2e
  context:
    cluster: e2e
    user: ${user}
    namespace: ${namespace}
current-context: e2e
`;
}

/**
 * fetch()-shaped client for the API server. Why not the global fetch: it cannot be given a CA
 * without undici's Agent (not a dependency), and trusting our CA process-wide would be a side effect.
 */
function pinnedFetch(server: string, ca: string, token: string): ControlPlane['fetch'] {
  return (path, init = {}) =>
    new Promise<Response>((resolvePromise, reject) => {
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
      if (init.body !== undefined) headers['content-type'] = 'application/json';
      const req = httpsRequest(new URL(path, server), { method: init.method ?? 'GET', ca, headers: { ...headers, ...init.headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const out = new Headers();
          for (const [k, v] of Object.entries(res.headers)) for (const one of [v ?? []].flat()) out.append(k, one);
          const status = res.statusCode ?? 0;
          const body = status === 204 || status === 304 ? null : Buffer.concat(chunks);
          resolvePromise(new Response(body, { status, statusText: res.statusMessage ?? '', headers: out }));
        });
      });
      req.on('error', reject);
      req.end(init.body);
    });
}

async function createIfMissing(api: ControlPlane['fetch'], collection: string, object: unknown): Promise<void> {
  const res = await api(collection, { method: 'POST', body: JSON.stringify(object) });
  if (!res.ok && res.status !== 409) throw new Error(`POST ${collection}: ${res.status} ${await res.text()}`);
}
