// The platform team's path with the real helm against a real API server: install (CRDs from the
// chart's crds/), a session created from examples/, upgrades that change values and the image
// tag while the session and the generated admin key stay, the CRD upgrade path Helm does not
// take itself, and uninstall (which leaves the CRD and the sessions).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ControlPlane, start } from '../support/control-plane.js';
import { chartDir, Helm, kubectl, type Manifest, ok, publishApiServerAddress, repoRoot, restrictedNamespace } from './support.js';

const NS = 'switchboard';
const RELEASE = 'sb';
const FULL = `${RELEASE}-switchboard`;
const CRD = 'crd/messagingsessions.switchboard.dev';

describe('helm install, upgrade and uninstall against a real API server', () => {
  let cp: ControlPlane;
  let helm: Helm;

  beforeAll(async () => {
    cp = await start();
    helm = new Helm(cp.kubeconfigPath);
    await restrictedNamespace(cp, NS);
    // The install looks up where the API server is for the gateway's NetworkPolicy.
    await publishApiServerAddress(cp, '172.18.0.2');
  });
  afterAll(async () => {
    helm?.cleanup();
    await cp?.stop();
  });

  const getJson = async (...args: string[]) =>
    JSON.parse((await ok(kubectl(cp, ['get', '-n', NS, ...args, '-o', 'json']), `get ${args.join(' ')}`)).stdout) as Manifest;
  const adminKey = async () => Buffer.from((await getJson('secret', `${FULL}-api-key`)).data['api-key'], 'base64').toString();
  const envOf = (deployment: Manifest) =>
    Object.fromEntries((deployment.spec.template.spec.containers[0].env as { name: string; value?: string }[]).map((e) => [e.name, e.value]));

  let key = '';
  let sessionUid = '';

  it('installs into a restricted namespace with no warning, creating the CRD from crds/, and prints how to go on', async () => {
    expect((await kubectl(cp, ['get', CRD])).code, 'no CRD before the install').not.toBe(0);
    const r = await helm.run(['install', RELEASE, chartDir, '--namespace', NS]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/warning|would violate/i);
    expect(r.stdout).toContain('STATUS: deployed');
    // NOTES.txt: the port-forward, the key from the Secret, a first session by curl and by kubectl.
    expect(r.stdout).toContain(`kubectl -n ${NS} port-forward svc/${FULL}-gateway 3000:80`);
    expect(r.stdout).toContain(`kubectl -n ${NS} get secret ${FULL}-api-key -o jsonpath='{.data.api-key}' | base64 -d`);
    expect(r.stdout).toContain('curl -s -X POST localhost:3000/api/sessions -H "X-Api-Key: $KEY"');
    expect(r.stdout).toContain(`kubectl -n ${NS} apply -f examples/sandbox-session.yaml`);

    await ok(kubectl(cp, ['wait', '--for=condition=Established', '--timeout=60s', CRD]), 'CRD established');
    const crd = JSON.parse((await ok(kubectl(cp, ['get', CRD, '-o', 'json']), 'get CRD')).stdout) as Manifest;
    expect(crd.spec.versions.map((v: { name: string }) => v.name)).toEqual(['v1alpha1']);

    key = await adminKey();
    expect(key).toMatch(/^sb_[A-Za-z0-9]{43}$/);
    expect((await getJson('deployment', `${FULL}-gateway`)).spec.replicas).toBe(2);
    // No networkPolicy.gateway.apiServer.to given: the API server's address was looked up.
    expect((await getJson('networkpolicy', `${FULL}-gateway`)).spec.egress[2].to).toEqual([{ ipBlock: { cidr: '172.18.0.2/32' } }]);
  });

  it('a session from examples/ is created next to the release', async () => {
    const r = await kubectl(cp, ['apply', '--server-side', '--validate=strict', '-n', NS, '-f', join(repoRoot, 'examples/sandbox-session.yaml')]);
    expect(r.code, r.stderr).toBe(0);
    sessionUid = (await getJson('msess', 'demo')).metadata.uid;
    expect(sessionUid).toBeTruthy();
  });

  it('an upgrade that changes values keeps the session and the generated admin key', async () => {
    const r = await helm.run(['upgrade', RELEASE, chartDir, '--namespace', NS, '--set', 'gateway.replicas=3', '--set', 'operator.workers=8']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('REVISION: 2');

    expect((await getJson('deployment', `${FULL}-gateway`)).spec.replicas).toBe(3);
    expect(envOf(await getJson('deployment', `${FULL}-operator`)).SWITCHBOARD_WORKERS).toBe('8');
    expect(await adminKey()).toBe(key);
    const session = await getJson('msess', 'demo');
    expect(session.metadata.uid).toBe(sessionUid);
    expect(session.metadata.deletionTimestamp).toBeUndefined();
  });

  it('an upgrade to a new image tag moves all four images at once, and still keeps the key', async () => {
    const r = await helm.run(['upgrade', RELEASE, chartDir, '--namespace', NS, '--reuse-values', '--set', 'image.tag=2026.11.1']);
    expect(r.code, r.stderr).toBe(0);
    const gateway = await getJson('deployment', `${FULL}-gateway`);
    const operator = await getJson('deployment', `${FULL}-operator`);
    expect(gateway.spec.replicas).toBe(3); // --reuse-values kept it
    expect(gateway.spec.template.spec.containers[0].image).toBe('localhost/switchboard/gateway:2026.11.1');
    expect(operator.spec.template.spec.containers[0].image).toBe('localhost/switchboard/operator:2026.11.1');
    expect(envOf(operator).SWITCHBOARD_ENGINE_IMAGE).toBe('localhost/switchboard/engine:2026.11.1');
    expect(envOf(operator).SWITCHBOARD_BROWSER_ENGINE_IMAGE).toBe('localhost/switchboard/browser-engine:2026.11.1');
    expect(await adminKey()).toBe(key);
    expect((await getJson('msess', 'demo')).metadata.uid).toBe(sessionUid);
  });

  it('the CRD upgrade path of docs/operations.md: helm show crds | kubectl apply --server-side', async () => {
    const crds = await ok(helm.run(['show', 'crds', chartDir]), 'helm show crds');
    // helm prints each CRD file followed by a newline.
    expect(crds.stdout.trimEnd()).toBe(readFileSync(join(chartDir, 'crds/messagingsession.yaml'), 'utf8').trimEnd());
    const r = await kubectl(cp, ['apply', '--server-side', '--force-conflicts', '-f', '-'], crds.stdout);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('customresourcedefinition.apiextensions.k8s.io/messagingsessions.switchboard.dev serverside-applied');
    expect((await getJson('msess', 'demo')).metadata.uid).toBe(sessionUid);
  });

  it('a rollback to revision 1 restores its values, and the key', async () => {
    const r = await helm.run(['rollback', RELEASE, '1', '--namespace', NS]);
    expect(r.code, r.stderr).toBe(0);
    expect((await getJson('deployment', `${FULL}-gateway`)).spec.replicas).toBe(2);
    expect(await adminKey()).toBe(key);
  });

  it('rotating the generated key as docs/operations.md says: delete the Secret, upgrade; the new key then stays', async () => {
    await ok(kubectl(cp, ['delete', 'secret', '-n', NS, `${FULL}-api-key`]), 'delete the key Secret');
    const r = await helm.run(['upgrade', RELEASE, chartDir, '--namespace', NS]);
    expect(r.code, r.stderr).toBe(0);
    const rotated = await adminKey();
    expect(rotated).toMatch(/^sb_[A-Za-z0-9]{43}$/);
    expect(rotated).not.toBe(key);
    await ok(helm.run(['upgrade', RELEASE, chartDir, '--namespace', NS, '--set', 'gateway.replicas=4']), 'helm upgrade');
    expect(await adminKey()).toBe(rotated);
    key = rotated;
  });

  it('uninstall removes the release and its Secret, and leaves the CRD and the sessions', async () => {
    const r = await helm.run(['uninstall', RELEASE, '--namespace', NS]);
    expect(r.code, r.stderr).toBe(0);
    expect((await kubectl(cp, ['get', '-n', NS, 'deployment', `${FULL}-gateway`])).code).not.toBe(0);
    expect((await kubectl(cp, ['get', '-n', NS, 'secret', `${FULL}-api-key`])).code).not.toBe(0);
    expect((await kubectl(cp, ['get', CRD])).code).toBe(0);
    expect((await getJson('msess', 'demo')).metadata.uid).toBe(sessionUid);
  });
});
