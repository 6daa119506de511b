// From `helm install` to a paired session, on a real cluster with real pods (kind): the images
// built from docker/Dockerfile, the chart's Deployments, StatefulSet, RBAC, NetworkPolicies and
// the restricted Pod Security standard all in force. Run by `make kind-up`, which exports:
//   SWITCHBOARD_KIND_KUBECONFIG, SWITCHBOARD_KIND_NAMESPACE, SWITCHBOARD_KIND_RELEASE, SWITCHBOARD_KIND_KUBECTL
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ApiCall, apiClient, waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exec, type Manifest, ok, repoRoot } from '../support.js';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run these scenarios with make kind-up`);
  return value;
}

const kubeconfig = required('SWITCHBOARD_KIND_KUBECONFIG');
const ns = required('SWITCHBOARD_KIND_NAMESPACE');
const release = required('SWITCHBOARD_KIND_RELEASE');
const kubectlBinary = required('SWITCHBOARD_KIND_KUBECTL');
const full = release.includes('switchboard') ? release : `${release}-switchboard`;

const kubectl = (args: string[], stdin?: string) => exec(kubectlBinary, ['--kubeconfig', kubeconfig, '-n', ns, ...args], { stdin });
const getJson = async (...args: string[]) =>
  JSON.parse((await ok(kubectl(['get', ...args, '-o', 'json']), `get ${args.join(' ')}`)).stdout) as Manifest;

/** `kubectl port-forward` to the gateway Service; resolves with the local URL once it forwards. */
function portForward(): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(kubectlBinary, ['--kubeconfig', kubeconfig, '-n', ns, 'port-forward', `svc/${full}-gateway`, ':80'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const port = out.match(/Forwarding from 127\.0\.0\.1:(\d+)/)?.[1];
      if (port) resolve({ url: `http://127.0.0.1:${port}`, child });
    });
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`kubectl port-forward exited ${code}: ${out}`)));
  });
}

describe('kind: from helm install to a paired session', () => {
  let forward: { url: string; child: ChildProcess };
  let api: ApiCall;

  const statusOf = async (session: string) => (await api('GET', `/api/sessions/${session}`)).body?.status as string | undefined;
  const waitForStatus = (session: string, status: string, timeoutMs = 120_000) =>
    waitFor(async () => (await statusOf(session)) === status, `${session} ${status}`, timeoutMs);

  beforeAll(async () => {
    const secret = await getJson('secret', `${full}-api-key`);
    const key = Buffer.from(secret.data['api-key'], 'base64').toString();
    forward = await portForward();
    api = apiClient(forward.url, key);
  });
  afterAll(() => {
    forward?.child.kill();
  });

  it('runs every pod of the release, ready, in a namespace that enforces the restricted standard', async () => {
    const namespace = JSON.parse(
      (await ok(exec(kubectlBinary, ['--kubeconfig', kubeconfig, 'get', 'namespace', ns, '-o', 'json']), 'ns')).stdout,
    ) as Manifest;
    expect(namespace.metadata.labels['pod-security.kubernetes.io/enforce']).toBe('restricted');
    const pods = (await getJson('pods', '-l', `app.kubernetes.io/instance=${release}`)).items as Manifest[];
    const components = pods.map((p) => p.metadata.labels['app.kubernetes.io/component']);
    expect(components).toEqual(expect.arrayContaining(['gateway', 'operator']));
    for (const pod of pods) {
      expect(pod.status.conditions.find((c: { type: string }) => c.type === 'Ready')?.status, pod.metadata.name).toBe('True');
    }
    expect((await api('GET', '/api/sessions', undefined, 'wrong-key')).status).toBe(401);
  });

  it('pairs a SANDBOX session created through the API, and sends a message', async () => {
    const created = await api('POST', '/api/sessions', { name: 'kind-demo', engine: 'SANDBOX' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await waitForStatus('kind-demo', 'SCAN_QR_CODE');
    const engine = await getJson('pod', 'engine-kind-demo');
    expect(engine.spec.containers[0].image).toMatch(/\/engine:/);
    expect(engine.status.conditions.find((c: { type: string }) => c.type === 'Ready')?.status).toBe('True');

    expect((await api('GET', '/api/kind-demo/auth/qr?format=raw')).status).toBe(200);
    expect((await api('POST', '/api/kind-demo/sandbox/simulate', { kind: 'scan' })).status).toBe(201);
    await waitForStatus('kind-demo', 'WORKING');
    const resource = await getJson('msess', 'kind-demo');
    expect(resource.status.status).toBe('WORKING');
    expect(resource.status.conditions.find((c: { type: string }) => c.type === 'Ready')?.status).toBe('True');

    const sent = await api('POST', '/api/sendText', { session: 'kind-demo', chatId: '15551234567@c.us', text: 'Hello from kind' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
  });

  it('runs a session applied from examples/ with kubectl', async () => {
    const text = readFileSync(join(repoRoot, 'examples/sandbox-session.yaml'), 'utf8');
    await ok(kubectl(['apply', '-f', '-'], text), 'apply example');
    await waitForStatus('demo', 'SCAN_QR_CODE');
  });

  it('survives the loss of the operator leader: another replica takes the Lease and reconciles', async () => {
    const leaseName = `${full}-operator`;
    const leader = (await getJson('lease', leaseName)).spec.holderIdentity as string;
    expect(leader).toMatch(new RegExp(`^${full}-operator-`));
    await ok(kubectl(['delete', 'pod', leader, '--wait=false']), 'delete the leader');
    await waitFor(
      async () => {
        const holder = (await getJson('lease', leaseName)).spec.holderIdentity as string;
        return holder && holder !== leader;
      },
      'a new leader',
      60_000,
    );
    const created = await api('POST', '/api/sessions', { name: 'after-failover', engine: 'SANDBOX' });
    expect(created.status).toBe(201);
    await waitForStatus('after-failover', 'SCAN_QR_CODE');
  });

  it('deletes sessions through the API: the finalizer logs out, the pod and the resource go', async () => {
    for (const name of ['kind-demo', 'demo', 'after-failover']) {
      const deleted = await api('DELETE', `/api/sessions/${name}`);
      expect(deleted.status, `${name}: ${JSON.stringify(deleted.body)}`).toBe(200);
      await waitFor(async () => (await kubectl(['get', 'msess', name])).code !== 0, `${name} gone`, 60_000);
      await waitFor(async () => (await kubectl(['get', 'pod', `engine-${name}`])).code !== 0, `engine-${name} gone`, 60_000);
    }
  });
});
