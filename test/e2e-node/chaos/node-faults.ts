// The node-level hands of the chaos tier: a container's process killed, a node component (the API
// server, containerd) stopped and started again with the same command line, and a pod's network
// namespace cut off from NATS by nftables rules inside it. All run as root on the node's host.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive, waitFor } from '@switchboard/testkit';
import { must } from '../release.js';
import type { CommandResult, NodeCluster } from '../support/node-cluster.js';

function run(command: string, args: readonly string[], input?: string): Promise<CommandResult> {
  return new Promise((done) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (code) => done({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/** The CRI sandbox of a pod (crictl pods), and the path of its network namespace. */
export async function podSandbox(cluster: NodeCluster, namespace: string, pod: string): Promise<{ id: string; netns: string }> {
  const id = (await must(cluster.crictl(['pods', '--namespace', namespace, '--name', `^${pod}$`, '--state', 'ready', '-q']), 'crictl pods'))
    .trim()
    .split('\n')[0];
  if (!id) throw new Error(`no ready sandbox for pod ${namespace}/${pod}`);
  const spec = JSON.parse(await must(cluster.crictl(['inspectp', id]), 'crictl inspectp')).info.runtimeSpec;
  const netns = (spec.linux.namespaces as { type: string; path?: string }[]).find((ns) => ns.type === 'network')?.path;
  if (!netns) throw new Error(`pod ${pod} has no network namespace path`);
  return { id, netns };
}

/** SIGKILL to a running container's process (its pid from crictl inspect), as the OOM killer or a crash would end it. */
export async function killContainer(cluster: NodeCluster, containerId: string): Promise<void> {
  const pid = JSON.parse(await must(cluster.crictl(['inspect', containerId]), 'crictl inspect')).info.pid as number;
  if (!pid) throw new Error(`container ${containerId} has no process`);
  process.kill(pid, 'SIGKILL');
}

/** The running container of a pod by its container name. */
export async function containerOf(cluster: NodeCluster, sandbox: string, name: string): Promise<string> {
  const id = (await must(cluster.crictl(['ps', '--pod', sandbox, '--name', `^${name}$`, '--state', 'running', '-q']), 'crictl ps'))
    .trim()
    .split('\n')[0];
  if (!id) throw new Error(`no running container ${name} in sandbox ${sandbox}`);
  return id;
}

const TABLE = 'switchboard_chaos';

/**
 * Drops every packet to and from NATS's client port inside the pod's network namespace (before
 * kube-proxy's DNAT, which happens on the host: the pod addresses the Service, port 4222 either
 * way). Connections stay open and stall, as with a partition, rather than being refused.
 */
export async function cutFromNats(netns: string, port = 4222): Promise<void> {
  const rules = `table inet ${TABLE} {
  chain out { type filter hook output priority 0; tcp dport ${port} drop; }
  chain in { type filter hook input priority 0; tcp sport ${port} drop; }
}
`;
  const r = await run('nsenter', [`--net=${netns}`, 'nft', '-f', '-'], rules);
  if (r.code !== 0) throw new Error(`nft in ${netns}: ${r.stderr}`);
}

export async function healNats(netns: string): Promise<void> {
  const r = await run('nsenter', [`--net=${netns}`, 'nft', 'delete', 'table', 'inet', TABLE]);
  if (r.code !== 0 && !/No such file/.test(r.stderr)) throw new Error(`nft delete in ${netns}: ${r.stderr}`);
}

/** The node component's process: its executable's name starts with `name` and its command line names the run dir. */
function componentPid(dir: string, name: string): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const exe = readlinkSync(`/proc/${entry}/exe`).split('/').at(-1)!;
      if ((exe === name || exe.startsWith(`${name}-v`)) && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(dir)) return Number(entry);
    } catch {
      // Gone meanwhile, or a kernel thread.
    }
  }
  throw new Error(`no ${name} process of ${dir}`);
}

/**
 * Stops a node component (SIGTERM, as systemd's restart does) and starts it again with the same
 * executable, arguments, environment and working directory, its output appended to its log. The
 * new process is the global setup's to clean up like any leftover of the run (its command line
 * names the run dir). Resolves once it runs; the caller waits for what it serves.
 */
export async function restartComponent(cluster: NodeCluster, name: string): Promise<void> {
  const pid = componentPid(cluster.dir, name);
  const exe = readlinkSync(`/proc/${pid}/exe`).replace(/ \(deleted\)$/, '');
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  const env = Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
  const cwd = readlinkSync(`/proc/${pid}/cwd`);
  process.kill(pid, 'SIGTERM');
  await waitFor(() => !processAlive(pid), `${name} (${pid}) to exit`, 60_000, 100).catch(() => process.kill(pid, 'SIGKILL'));
  await waitFor(() => !processAlive(pid), `${name} (${pid}) to exit after SIGKILL`, 10_000, 100);
  const log = openSync(join(cluster.dir, 'logs', `${name}.log`), 'a');
  const child = spawn(exe, argv.slice(1), { cwd, env, stdio: ['ignore', log, log], detached: true });
  closeSync(log);
  child.unref();
}
