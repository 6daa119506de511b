// The test node agent against a real API server: it must do what kubelet and the scheduler do
// for the pods the operator makes, or every e2e test built on it proves nothing.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { processAlive } from '@switchboard/testkit';
import { type ControlPlane, start } from '../support/control-plane.js';
import { HEALTH_PORT_ENV, type NodeAgent, startNodeAgent } from './node-agent.js';

const NAMESPACE = 'node-agent';

/** Serves /readyz (503 when NEVER_READY is set) and / on SWITCHBOARD_HEALTH_PORT; says so on SIGTERM. */
const WEB = `
const server = require('node:http').createServer((req, res) => {
  if (req.url === '/readyz') res.writeHead(process.env.NEVER_READY ? 503 : 200).end();
  else res.end('hello from ' + process.env.POD_NAME);
});
server.listen(Number(process.env.SWITCHBOARD_HEALTH_PORT), '127.0.0.1', () => console.log('listening'));
process.on('SIGTERM', () => { console.log('got SIGTERM'); server.close(() => process.exit(0)); });
`;
/** Exits with EXIT_CODE after a moment. */
const EXIT = `console.log('running'); setTimeout(() => process.exit(Number(process.env.EXIT_CODE)), 200);`;
/** Ignores SIGTERM, so only SIGKILL ends it. */
const STUBBORN = `process.on('SIGTERM', () => console.log('ignoring SIGTERM')); setInterval(() => {}, 1000); console.log('running');`;

const IMAGES = {
  'test/web:1': { command: process.execPath, args: ['-e', WEB] },
  'test/exit:1': { command: process.execPath, args: ['-e', EXIT] },
  'test/stubborn:1': { command: process.execPath, args: ['-e', STUBBORN] },
};

interface Pod {
  metadata: { name: string; uid: string; deletionTimestamp?: string };
  spec: { nodeName?: string };
  status: {
    phase: string;
    podIP?: string;
    hostIP?: string;
    startTime?: string;
    conditions?: { type: string; status: string; reason?: string }[];
    containerStatuses?: {
      name: string;
      ready: boolean;
      restartCount: number;
      containerID?: string;
      state: { waiting?: { reason: string; message?: string }; running?: { startedAt: string }; terminated?: { exitCode: number } };
      lastState: { terminated?: { exitCode: number } };
    }[];
  };
}

let cp: ControlPlane;
let agent: NodeAgent;
/** The pods the current test made, whose logs a failure prints. */
let podsOfTest: string[] = [];

async function api<T>(path: string, init?: { method?: string; body?: string }): Promise<{ status: number; body: T }> {
  const res = await cp.fetch(path, init);
  return { status: res.status, body: (await res.json()) as T };
}

async function createPod(
  name: string,
  image: string,
  options: { restartPolicy?: string; env?: Record<string, string>; graceSeconds?: number; probe?: boolean } = {},
): Promise<Pod> {
  const container = {
    name: 'main',
    image,
    env: [
      // What the operator sets; the agent puts the pod's own host port in its place.
      { name: HEALTH_PORT_ENV, value: '8080' },
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      ...Object.entries(options.env ?? {}).map(([envName, value]) => ({ name: envName, value })),
    ],
    ports: [{ name: 'health', containerPort: 8080 }],
    ...(options.probe ? { readinessProbe: { httpGet: { path: '/readyz', port: 8080 }, periodSeconds: 10 } } : {}),
  };
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { 'app.kubernetes.io/component': 'engine' } },
    spec: {
      containers: [container],
      restartPolicy: options.restartPolicy ?? 'Always',
      terminationGracePeriodSeconds: options.graceSeconds ?? 5,
    },
  };
  podsOfTest.push(name);
  const created = await api<Pod>(`/api/v1/namespaces/${NAMESPACE}/pods`, { method: 'POST', body: JSON.stringify(pod) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

async function readPod(name: string, namespace = NAMESPACE): Promise<Pod | undefined> {
  const read = await api<Pod>(`/api/v1/namespaces/${namespace}/pods/${name}`);
  return read.status === 404 ? undefined : read.body;
}

async function deletePod(name: string): Promise<void> {
  const deleted = await api(`/api/v1/namespaces/${NAMESPACE}/pods/${name}`, { method: 'DELETE' });
  expect(deleted.status).toBe(200);
}

function condition(pod: Pod | undefined, type: string): string | undefined {
  return pod?.status.conditions?.find((candidate) => candidate.type === type)?.status;
}

function poll<T>(read: () => Promise<T> | T, timeout = 20_000) {
  return expect.poll(read, { timeout, interval: 100 });
}

beforeAll(async () => {
  cp = await start();
  await cp.ensureNamespace(NAMESPACE);
  agent = await startNodeAgent({
    kubeconfigPath: cp.kubeconfigPath,
    namespace: NAMESPACE,
    labelSelector: 'app.kubernetes.io/component=engine',
    images: IMAGES,
    restartBackoff: { initialMs: 100, maxMs: 1_000 },
    heartbeatMs: 500,
  });
});

beforeEach(() => {
  podsOfTest = [];
});

// A failing e2e test should say why: the agent's log and the logs of the test's pods.
afterEach((context) => {
  if (context.task.result?.state !== 'fail' || !agent || !existsSync(agent.logPath)) return;
  const pods = podsOfTest.map((name) => agent.logs(NAMESPACE, name)).join('\n');
  console.error(`----- ${agent.logPath}\n${readFileSync(agent.logPath, 'utf8')}\n${pods}`);
});

afterAll(async () => {
  await agent?.stop();
  await cp?.stop();
});

describe('node', () => {
  it('registers a Ready node, lifts the not-ready taint and holds a node lease', async () => {
    const node = await api<{
      metadata: { labels: Record<string, string> };
      spec: { taints?: { key: string }[] };
      status: { conditions: { type: string; status: string }[]; addresses: { type: string; address: string }[] };
    }>(`/api/v1/nodes/${agent.nodeName}`);
    expect(node.status).toBe(200);
    expect(node.body.status.conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(node.body.status.addresses).toContainEqual({ type: 'InternalIP', address: '127.0.0.1' });
    expect(node.body.spec.taints ?? []).not.toContainEqual(expect.objectContaining({ key: 'node.kubernetes.io/not-ready' }));
    expect(node.body.metadata.labels['kubernetes.io/os']).toBe('linux');

    const lease = await api<{ spec: { holderIdentity: string; renewTime: string } }>(
      `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${agent.nodeName}`,
    );
    expect(lease.status).toBe(200);
    expect(lease.body.spec.holderIdentity).toBe(agent.nodeName);
  });

  it('renews the lease and the Ready heartbeat on every beat', async () => {
    const heartbeat = async () => {
      const lease = await api<{ spec: { renewTime: string } }>(`/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${agent.nodeName}`);
      const node = await api<{ status: { conditions: { type: string; lastHeartbeatTime: string }[] } }>(`/api/v1/nodes/${agent.nodeName}`);
      return { lease: lease.body.spec.renewTime, node: node.body.status.conditions.find((c) => c.type === 'Ready')?.lastHeartbeatTime };
    };
    const first = await heartbeat();
    await poll(async () => (await heartbeat()).lease).not.toBe(first.lease);
    // The condition's time has whole seconds, so it moves on at most a second later.
    await poll(async () => (await heartbeat()).node).not.toBe(first.node);
  });
});

describe('scheduling and running a pod', () => {
  it('binds the pod, runs its process, and reports it Running then Ready when its probe passes', async () => {
    await createPod('web', 'test/web:1', { probe: true });

    await poll(async () => condition(await readPod('web'), 'Ready')).toBe('True');
    const pod = (await readPod('web'))!;
    expect(pod.spec.nodeName).toBe(agent.nodeName);
    expect(pod.status).toMatchObject({ phase: 'Running', podIP: '127.0.0.1', hostIP: '127.0.0.1' });
    expect(pod.status.startTime).toBeDefined();
    expect(pod.status.containerStatuses?.[0]).toMatchObject({ name: 'main', ready: true, restartCount: 0, state: { running: {} } });
    for (const type of ['PodScheduled', 'Initialized', 'ContainersReady']) expect(condition(pod, type)).toBe('True');
  });

  it('gives the process its own host port for the probe port, in SWITCHBOARD_HEALTH_PORT, and resolves fieldRef env', async () => {
    const port = agent.pod(NAMESPACE, 'web')?.ports['8080'];
    expect(port).toBeGreaterThan(0);
    expect(port).not.toBe(8080);
    const res = await fetch(`http://127.0.0.1:${port}/`);
    expect(await res.text()).toBe('hello from web');
  });

  it('keeps a pod whose readiness probe fails Running but not Ready', async () => {
    await createPod('never-ready', 'test/web:1', { probe: true, env: { NEVER_READY: '1' } });
    await poll(async () => (await readPod('never-ready'))?.status.phase).toBe('Running');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const pod = await readPod('never-ready');
    expect(condition(pod, 'Ready')).toBe('False');
    expect(pod?.status.conditions?.find((c) => c.type === 'Ready')?.reason).toBe('ContainersNotReady');
  });

  it('reports Ready as soon as the process runs when the container has no readiness probe', async () => {
    await createPod('no-probe', 'test/stubborn:1');
    await poll(async () => condition(await readPod('no-probe'), 'Ready')).toBe('True');
  });

  it('leaves a pod of an unknown image Pending with ErrImagePull, naming the image', async () => {
    await createPod('unknown-image', 'registry.invalid/nothing:1');
    await poll(async () => (await readPod('unknown-image'))?.status.containerStatuses?.[0]?.state.waiting?.reason).toBe('ErrImagePull');
    const pod = (await readPod('unknown-image'))!;
    expect(pod.status.phase).toBe('Pending');
    expect(pod.status.containerStatuses?.[0]?.state.waiting?.message).toContain('registry.invalid/nothing:1');
  });
});

describe('restart policy', () => {
  it('Always: restarts a process that exits, and counts the restarts', async () => {
    await createPod('crashing', 'test/exit:1', { env: { EXIT_CODE: '3' } });
    await poll(async () => (await readPod('crashing'))?.status.containerStatuses?.[0]?.restartCount ?? 0).toBeGreaterThanOrEqual(2);
    const pod = (await readPod('crashing'))!;
    expect(pod.status.phase).toBe('Running');
    expect(pod.status.containerStatuses?.[0]?.lastState.terminated?.exitCode).toBe(3);
    // Real processes, really exited: the status counts what the log shows.
    const logs = agent.logs(NAMESPACE, 'crashing');
    expect(logs.match(/exited with code 3$/gm)?.length).toBeGreaterThanOrEqual(2);
    expect(logs.match(/started pid \d+ \(restart \d+\)/g)?.length).toBeGreaterThanOrEqual(3);
  });

  it('Never: a process that exits 0 makes the pod Succeeded, and one that exits non-zero makes it Failed', async () => {
    await createPod('succeeds', 'test/exit:1', { restartPolicy: 'Never', env: { EXIT_CODE: '0' } });
    await createPod('fails', 'test/exit:1', { restartPolicy: 'Never', env: { EXIT_CODE: '3' } });
    await poll(async () => (await readPod('succeeds'))?.status.phase).toBe('Succeeded');
    await poll(async () => (await readPod('fails'))?.status.phase).toBe('Failed');
    const failed = (await readPod('fails'))!;
    expect(failed.status.containerStatuses?.[0]).toMatchObject({ restartCount: 0, state: { terminated: { exitCode: 3 } } });
  });

  it('OnFailure: restarts a process that exits non-zero, not one that exits 0', async () => {
    await createPod('on-failure', 'test/exit:1', { restartPolicy: 'OnFailure', env: { EXIT_CODE: '0' } });
    await poll(async () => (await readPod('on-failure'))?.status.phase).toBe('Succeeded');
    expect((await readPod('on-failure'))?.status.containerStatuses?.[0]?.restartCount).toBe(0);
  });
});

describe('deletion', () => {
  it('sends SIGTERM, and once the process is gone removes the pod object', async () => {
    await createPod('doomed', 'test/web:1', { probe: true });
    await poll(async () => condition(await readPod('doomed'), 'Ready')).toBe('True');
    const pid = agent.pod(NAMESPACE, 'doomed')!.containers[0]!.pid!;
    expect(processAlive(pid)).toBe(true);

    await deletePod('doomed');
    await poll(() => readPod('doomed')).toBeUndefined();
    expect(processAlive(pid)).toBe(false);
    expect(agent.logs(NAMESPACE, 'doomed')).toMatch(/got SIGTERM[\s\S]*exited with code 0/);
  });

  it('sends SIGKILL when the process outlives terminationGracePeriodSeconds', async () => {
    await createPod('stubborn', 'test/stubborn:1', { graceSeconds: 1 });
    // Running from the spawn on; the SIGTERM handler is in place once the script says so.
    await poll(() => agent.logs(NAMESPACE, 'stubborn')).toMatch(/^running$/m);
    const pid = agent.pod(NAMESPACE, 'stubborn')!.containers[0]!.pid!;

    const deletedAt = Date.now();
    await deletePod('stubborn');
    await poll(() => readPod('stubborn')).toBeUndefined();
    expect(Date.now() - deletedAt).toBeGreaterThanOrEqual(1_000);
    expect(processAlive(pid)).toBe(false);
    expect(agent.logs(NAMESPACE, 'stubborn')).toMatch(/ignoring SIGTERM[\s\S]*exited with code 137 \(SIGKILL\)/);
  });

  it('kills the process of a pod deleted outright (grace period 0)', async () => {
    await createPod('forced', 'test/stubborn:1');
    await poll(async () => (await readPod('forced'))?.status.phase).toBe('Running');
    const pid = agent.pod(NAMESPACE, 'forced')!.containers[0]!.pid!;

    const deleted = await api(`/api/v1/namespaces/${NAMESPACE}/pods/forced?gracePeriodSeconds=0`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    await poll(() => processAlive(pid), 5_000).toBe(false);
  });
});

describe('stop', () => {
  it('kills every process it started', async () => {
    await createPod('last', 'test/stubborn:1');
    await poll(async () => (await readPod('last'))?.status.phase).toBe('Running');
    const pid = agent.pod(NAMESPACE, 'last')!.containers[0]!.pid!;
    await agent.stop();
    expect(processAlive(pid)).toBe(false);
  });
});

describe('the CLI, killed with SIGKILL', () => {
  const here = dirname(fileURLToPath(import.meta.url));
  const workDir = mkdtempSync(join(tmpdir(), 'switchboard-node-agent-cli-'));
  let cli: ChildProcess | undefined;
  afterAll(() => {
    cli?.kill('SIGKILL');
    rmSync(workDir, { recursive: true, force: true });
  });

  it('leaves no process behind', async () => {
    execFileSync(join(here, '../../../node_modules/.bin/tsc'), ['-p', here], { stdio: 'inherit' });
    await cp.ensureNamespace('node-agent-cli');
    cli = spawn(
      process.execPath,
      [
        join(here, 'dist/main.js'),
        '--kubeconfig',
        cp.kubeconfigPath,
        '--node-name',
        'cli-node',
        '--namespace',
        'node-agent-cli',
        '--work-dir',
        workDir,
        '--image',
        `test/stubborn:1=${process.execPath} -e setInterval(()=>{},1000)`,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'orphan' }, spec: { containers: [{ name: 'main', image: 'test/stubborn:1' }] } };
    expect((await api('/api/v1/namespaces/node-agent-cli/pods', { method: 'POST', body: JSON.stringify(pod) })).status).toBe(201);
    await poll(async () => (await readPod('orphan', 'node-agent-cli'))?.status.phase).toBe('Running');
    const containerId = (await readPod('orphan', 'node-agent-cli'))!.status.containerStatuses![0]!.containerID!;
    const pid = Number(containerId.replace('node-agent://', ''));
    expect(processAlive(pid)).toBe(true);

    cli.kill('SIGKILL');
    await poll(() => processAlive(pid), 5_000).toBe(false);
  });
});
