// The rendered chart against a real kube-apiserver: every value set applied server-side into a
// namespace that enforces the restricted Pod Security standard, its pods admitted, RBAC checked
// with `kubectl auth can-i` as each ServiceAccount, the examples valid against the CRD, and the
// real operator and gateway running with the chart's env and nothing but their ServiceAccount's
// token.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { createClusterGateway, readConfig as readGatewayConfig } from '@switchboard/gateway';
import { readConfig as readOperatorConfig, startOperator } from '@switchboard/operator';
import { waitFor, WebhookReceiver } from '@switchboard/testkit';
import { connect } from 'nats';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startEnginePod } from '../../../gateway/test/cluster/kube-support.js';
import { type ControlPlane, type Nats, start, startNats } from '../support/control-plane.js';
import {
  applyCrds,
  CHART_WAIT_MS,
  find,
  Helm,
  kubectl,
  type Manifest,
  ok,
  parseManifests,
  repoRoot,
  restrictedNamespace,
  serviceAccountKubeconfig,
  VALUE_SETS,
} from './support.js';

const RELEASE = 'sb';
const FULL = `${RELEASE}-switchboard`;
// Warnings: a failing run shows why (the operator logs a 403 from a missing RBAC rule at warn).
const log = pino({ level: 'warn' });

describe('chart against a real API server', () => {
  let cp: ControlPlane;
  let nats: Nats;
  const helm = new Helm();
  /** The defaults, applied into this namespace by the first test that needs them. */
  const DEFAULTS_NS = 'chart-defaults';
  let defaults: Manifest[] | undefined;
  async function ensureDefaults(): Promise<Manifest[]> {
    if (!defaults) {
      await restrictedNamespace(cp, DEFAULTS_NS);
      const text = await helm.template(RELEASE, DEFAULTS_NS, VALUE_SETS.defaults);
      await applyText(DEFAULTS_NS, text);
      defaults = parseManifests(text);
    }
    return defaults;
  }

  beforeAll(async () => {
    [cp, nats] = await Promise.all([start(), startNats()]);
    await applyCrds(cp);
  });
  afterAll(async () => {
    helm.cleanup();
    await nats?.stop();
    await cp?.stop();
  });

  /** Server-side apply of the rendered chart; returns its text. */
  async function applyText(namespace: string, text: string): Promise<void> {
    const r = await kubectl(cp, ['apply', '--server-side', '--validate=strict', '--field-manager=chart-test', '-n', namespace, '-f', '-'], text);
    expect(r.code, r.stderr).toBe(0);
    // No warning of any kind: no PodSecurity "would violate" on the pod templates, no deprecated API.
    expect(r.stderr).toBe('');
  }

  /**
   * Creates a Pod from each workload's template, as its controller would (there is no
   * controller-manager here): Pod Security admission enforces on Pods, so this is where the
   * restricted standard really bites. A StatefulSet's claim templates become PVCs of pod 0.
   */
  async function admitPods(namespace: string, manifests: Manifest[]): Promise<string[]> {
    const created: string[] = [];
    for (const workload of manifests.filter((m) => m.kind === 'Deployment' || m.kind === 'StatefulSet')) {
      const name = workload.metadata.name;
      const spec = structuredClone(workload.spec.template.spec);
      if (workload.kind === 'StatefulSet') {
        for (const claim of workload.spec.volumeClaimTemplates ?? []) {
          const claimName = `${claim.metadata.name}-${name}-0`;
          const pvc = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { ...claim.metadata, name: claimName }, spec: claim.spec };
          await ok(kubectl(cp, ['create', '--validate=strict', '-n', namespace, '-f', '-'], JSON.stringify(pvc)), `create PVC ${claimName}`);
          spec.volumes = [...(spec.volumes ?? []), { name: claim.metadata.name, persistentVolumeClaim: { claimName } }];
        }
      }
      const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { ...workload.spec.template.metadata, name: `${name}-admitted` }, spec };
      const r = await kubectl(cp, ['create', '--validate=strict', '-n', namespace, '-f', '-'], JSON.stringify(pod));
      expect(r.code, `${workload.kind}/${name}: ${r.stderr}`).toBe(0);
      expect(r.stderr, `${workload.kind}/${name}`).toBe('');
      created.push(pod.metadata.name);
    }
    return created;
  }

  async function canI(namespace: string, serviceAccount: string, ...args: string[]): Promise<boolean> {
    const r = await kubectl(cp, ['auth', 'can-i', `--as=system:serviceaccount:${namespace}:${serviceAccount}`, '-n', namespace, ...args]);
    if (r.stdout.trim() !== 'yes' && r.stdout.trim() !== 'no') throw new Error(`kubectl auth can-i ${args.join(' ')}: ${r.stderr}`);
    return r.stdout.trim() === 'yes';
  }

  it('a pod that breaks the restricted standard is refused in these namespaces (the check below is real)', async () => {
    await restrictedNamespace(cp, 'chart-control');
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'root' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
    const r = await kubectl(cp, ['create', '-n', 'chart-control', '-f', '-'], JSON.stringify(pod));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('violates PodSecurity "restricted:latest"');
  });

  it.each(Object.entries(VALUE_SETS))(
    'applies server-side with zero rejections or warnings, and its pods are admitted under restricted: %s',
    async (label, values) => {
      const namespace = `chart-set-${label.replaceAll(' ', '-').toLowerCase()}`;
      await restrictedNamespace(cp, namespace);
      const text = await helm.template(RELEASE, namespace, values);
      await applyText(namespace, text);
      const manifests = parseManifests(text);
      // Everything is stored: read each object back.
      for (const m of manifests) {
        const kind = `${m.kind}.${m.apiVersion.includes('/') ? m.apiVersion.split('/')[0] : ''}`.replace(/\.$/, '');
        await ok(kubectl(cp, ['get', '-n', namespace, kind, m.metadata.name, '-o', 'name']), `get ${kind}/${m.metadata.name}`);
      }
      const pods = await admitPods(namespace, manifests);
      expect(pods.length).toBe(manifests.filter((m) => m.kind === 'Deployment' || m.kind === 'StatefulSet').length);
      // Applying the same manifests again conflicts with nothing.
      await applyText(namespace, text);
    },
  );

  it('RBAC: the operator may do what it does and nothing else', async () => {
    await ensureDefaults();
    const ns = DEFAULTS_NS;
    const sa = `${FULL}-operator`;
    const allowed = [
      ['get', 'messagingsessions.switchboard.dev'],
      ['list', 'messagingsessions.switchboard.dev'],
      ['watch', 'messagingsessions.switchboard.dev'],
      ['patch', 'messagingsessions.switchboard.dev'],
      ['patch', 'messagingsessions.switchboard.dev', '--subresource=status'],
      ['update', 'messagingsessions.switchboard.dev', '--subresource=finalizers'],
      ['create', 'pods'],
      ['delete', 'pods'],
      ['get', 'pods'],
      ['list', 'pods'],
      ['watch', 'pods'],
      ['create', 'events'],
      ['create', 'leases.coordination.k8s.io'],
      ['get', `leases.coordination.k8s.io/${FULL}-operator`],
      ['update', `leases.coordination.k8s.io/${FULL}-operator`],
      ['watch', `leases.coordination.k8s.io/${FULL}-operator`],
      // NATS authentication: the Secret of its keys, and one of credentials per engine pod.
      ['create', 'secrets'],
      ['get', `secrets/${FULL}-nats-auth`],
    ];
    const refused = [
      ['get', 'secrets'],
      ['list', 'secrets'],
      ['update', `secrets/${FULL}-nats-auth`],
      ['delete', 'secrets'],
      ['get', 'secrets', '-n', 'kube-system'],
      ['get', 'configmaps'],
      ['create', 'messagingsessions.switchboard.dev'],
      ['delete', 'messagingsessions.switchboard.dev'],
      ['patch', 'pods'],
      ['update', 'pods'],
      ['create', 'pods', '--subresource=exec'],
      ['create', 'pods', '-n', 'default'],
      ['list', 'pods', '-n', 'default'],
      ['update', 'leases.coordination.k8s.io/someone-elses-lease'],
      ['delete', 'leases.coordination.k8s.io'],
      ['create', 'deployments.apps'],
      ['create', 'rolebindings.rbac.authorization.k8s.io'],
      ['list', 'namespaces'],
    ];
    for (const args of allowed) expect(await canI(ns, sa, ...args), `operator ${args.join(' ')}`).toBe(true);
    for (const args of refused) expect(await canI(ns, sa, ...args), `operator ${args.join(' ')}`).toBe(false);
  });

  it("RBAC: the gateway may manage MessagingSessions and its namespace's Secrets by name, and is refused pods, listing Secrets, other namespaces and status", async () => {
    await ensureDefaults();
    const ns = DEFAULTS_NS;
    const sa = `${FULL}-gateway`;
    for (const verb of ['get', 'list', 'watch', 'create', 'patch', 'delete']) {
      expect(await canI(ns, sa, verb, 'messagingsessions.switchboard.dev'), `gateway ${verb} msess`).toBe(true);
    }
    // Webhook secrets: read by name for deliveries, a session's own Secret written and deleted.
    for (const verb of ['get', 'create', 'update', 'delete']) expect(await canI(ns, sa, verb, 'secrets'), `gateway ${verb} secrets`).toBe(true);
    const refused = [
      ['create', 'pods'],
      ['get', 'pods'],
      ['list', 'pods'],
      ['delete', 'pods'],
      ['list', 'secrets'],
      ['watch', 'secrets'],
      ['patch', 'secrets'],
      ['get', 'secrets', '-n', 'kube-system'],
      ['get', 'secrets', '-n', 'default'],
      ['create', 'secrets', '-n', 'default'],
      ['patch', 'messagingsessions.switchboard.dev', '--subresource=status'],
      ['update', 'messagingsessions.switchboard.dev', '--subresource=finalizers'],
      ['list', 'messagingsessions.switchboard.dev', '-n', 'default'],
      ['create', 'leases.coordination.k8s.io'],
      ['create', 'events'],
    ];
    for (const args of refused) expect(await canI(ns, sa, ...args), `gateway ${args.join(' ')}`).toBe(false);
    // NATS runs with no API access at all.
    for (const args of [
      ['get', 'pods'],
      ['get', 'secrets'],
      ['list', 'messagingsessions.switchboard.dev'],
    ]) {
      expect(await canI(ns, `${FULL}-nats`, ...args), `nats ${args.join(' ')}`).toBe(false);
    }
  });

  it("Secrets: the API server refuses the gateway's ServiceAccount every write of a Secret but its own (the chart's ValidatingAdmissionPolicy); others are not held to it", async () => {
    await ensureDefaults();
    const ns = DEFAULTS_NS;
    const asGateway = `--as=system:serviceaccount:${ns}:${FULL}-gateway`;
    const own = { 'app.kubernetes.io/name': 'switchboard', 'app.kubernetes.io/component': 'webhook-secrets' };
    const secret = (name: string, labels: Record<string, string>, value = 'v') =>
      JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: ns, labels }, stringData: { k: value } });
    const asGatewayDo = (args: string[], stdin?: string) => kubectl(cp, [...args, asGateway, '-n', ns], stdin);
    const policyMessage = 'the gateway may write only its own Secrets';
    // The API server enforces a policy once it has loaded it: the first refusal says it has.
    const first = await waitFor(
      async () => {
        const r = await asGatewayDo(['create', '-f', '-'], secret('stray', {}));
        if (r.code !== 0) return r.stderr;
        await kubectl(cp, ['delete', '-n', ns, 'secret', 'stray']);
        return null;
      },
      'the policy to be enforced',
      CHART_WAIT_MS,
    );
    expect(first).toContain('ValidatingAdmissionPolicy');
    expect(first).toContain(policyMessage);
    // Its own name without its label, its label on another name: both refused.
    for (const [name, labels] of [
      ['demo-webhook-secrets', {}],
      ['stray', own],
    ] as const) {
      const r = await asGatewayDo(['create', '-f', '-'], secret(name, labels));
      expect(r.code, name).not.toBe(0);
      expect(r.stderr, name).toContain(policyMessage);
    }
    // The admin key's Secret: neither replaced nor deleted (the Role alone allowed both).
    const apiKey = `${FULL}-api-key`;
    const stored = JSON.parse((await ok(kubectl(cp, ['get', 'secret', '-n', ns, apiKey, '-o', 'json']), 'get')).stdout) as Manifest;
    const replaced = await asGatewayDo(
      ['replace', '-f', '-'],
      JSON.stringify({ ...stored, data: { 'api-key': Buffer.from('sb_mine').toString('base64') } }),
    );
    expect(replaced.code).not.toBe(0);
    expect(replaced.stderr).toContain(
      `only its own Secrets, named <resource>-webhook-secrets and labelled app.kubernetes.io/component=webhook-secrets; not ${apiKey}`,
    );
    const deleted = await asGatewayDo(['delete', 'secret', apiKey]);
    expect(deleted.code).not.toBe(0);
    expect(deleted.stderr).toContain('the gateway may change or delete only its own Secrets');
    expect((await ok(kubectl(cp, ['get', 'secret', '-n', ns, apiKey, '-o', 'json']), 'get')).stdout).toContain(stored.data['api-key']);
    // What it does write: its own Secret created, replaced, and deleted; stripping the label is refused.
    await ok(asGatewayDo(['create', '-f', '-'], secret('demo-webhook-secrets', own)), 'create its own Secret');
    await ok(asGatewayDo(['replace', '-f', '-'], secret('demo-webhook-secrets', own, 'w')), 'replace its own Secret');
    const unlabelled = await asGatewayDo(['replace', '-f', '-'], secret('demo-webhook-secrets', {}, 'w'));
    expect(unlabelled.code).not.toBe(0);
    expect(unlabelled.stderr).toContain(policyMessage);
    await ok(asGatewayDo(['delete', 'secret', 'demo-webhook-secrets']), 'delete its own Secret');
    // Anyone else (here the admin) is not held to it.
    await ok(kubectl(cp, ['create', '-n', ns, '-f', '-'], secret('stray', {})), 'create as admin');
    await ok(kubectl(cp, ['delete', '-n', ns, 'secret', 'stray']), 'delete as admin');
  });

  it("NetworkPolicies: with networkPolicy.gateway.apiServer.to empty, a render against the cluster finds the API server's addresses (the `kubernetes` EndpointSlice or Endpoints), and fails without them", async () => {
    // This API server publishes no endpoints of its own (--endpoint-reconciler-type=none in
    // control-plane.ts): the test writes what a cluster's API servers keep there.
    const slice = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'kubernetes', namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['172.18.0.2'] }, { addresses: ['172.18.0.3'] }],
      ports: [{ name: 'https', port: 6443, protocol: 'TCP' }],
    };
    const endpoints = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'kubernetes', namespace: 'default' },
      subsets: [{ addresses: [{ ip: '192.168.49.2' }], ports: [{ name: 'https', port: 8443, protocol: 'TCP' }] }],
    };
    // helm install and upgrade look up as this does (--dry-run=server: lookup reaches the cluster).
    const clusterHelm = new Helm(cp.kubeconfigPath);
    const render = () =>
      clusterHelm.run(['template', RELEASE, join(repoRoot, 'charts/switchboard'), '--namespace', 'chart-lookup', '--dry-run=server']);
    const apiServerRule = async () =>
      find(parseManifests((await ok(render(), 'helm template')).stdout), 'NetworkPolicy', `${FULL}-gateway`).spec.egress[2];
    const ports = [
      { port: 443, protocol: 'TCP' },
      { port: 6443, protocol: 'TCP' },
    ];
    try {
      const none = await render();
      expect(none.code).not.toBe(0);
      expect(none.stderr).toContain("networkPolicy.gateway.apiServer.to is empty and the API server's address could not be looked up");

      await ok(kubectl(cp, ['create', '-f', '-'], JSON.stringify(endpoints)), 'create Endpoints');
      // A cluster without EndpointSlices (or a user who may read only Endpoints): the Endpoints.
      expect(await apiServerRule()).toEqual({ ports, to: [{ ipBlock: { cidr: '192.168.49.2/32' } }] });

      await ok(kubectl(cp, ['create', '-f', '-'], JSON.stringify(slice)), 'create EndpointSlice');
      expect(await apiServerRule()).toEqual({ ports, to: [{ ipBlock: { cidr: '172.18.0.2/32' } }, { ipBlock: { cidr: '172.18.0.3/32' } }] });
    } finally {
      clusterHelm.cleanup();
      await kubectl(cp, ['delete', '-n', 'default', 'endpointslice/kubernetes', 'endpoints/kubernetes', '--ignore-not-found']);
    }
  });

  it('the examples are valid MessagingSessions: stored with no field pruned or rejected', async () => {
    const ns = 'chart-examples';
    await restrictedNamespace(cp, ns);
    for (const file of ['examples/sandbox-session.yaml', 'examples/noweb-session.yaml']) {
      const text = readFileSync(join(repoRoot, file), 'utf8');
      const input = parse(text) as Manifest;
      const r = await kubectl(cp, ['apply', '--server-side', '--validate=strict', '-n', ns, '-f', '-'], text);
      expect(r.code, `${file}: ${r.stderr}`).toBe(0);
      expect(r.stderr, file).toBe('');
      const stored = JSON.parse((await ok(kubectl(cp, ['get', '-n', ns, 'msess', input.metadata.name, '-o', 'json']), 'get')).stdout) as Manifest;
      // What was written is what is stored (plus the CRD's defaults).
      expect(stored.spec, file).toMatchObject(input.spec);
    }
    const noweb = JSON.parse((await ok(kubectl(cp, ['get', '-n', ns, 'msess', 'support-line', '-o', 'json']), 'get')).stdout) as Manifest;
    expect(noweb.spec.apps).toEqual([
      {
        app: 'calls',
        enabled: true,
        config: { dm: { reject: true, message: 'Sorry, we cannot take calls here. Please send us a message instead.' }, group: { reject: true } },
      },
    ]);
    expect(noweb.spec.config.webhooks).toHaveLength(2);
  });

  it("the real operator and gateway run with the chart's env and only their ServiceAccounts' tokens: a session created through the API gets its engine pod, its webhook secrets a Secret", async () => {
    const defaults = await ensureDefaults();
    const ns = DEFAULTS_NS;
    const resolve = async (container: any, overrides: Record<string, string>) => {
      const env: Record<string, string> = {};
      for (const e of container.env) {
        if (e.value !== undefined) env[e.name] = String(e.value);
        else if (e.valueFrom.fieldRef?.fieldPath === 'metadata.namespace') env[e.name] = ns;
        else if (e.valueFrom.fieldRef?.fieldPath === 'metadata.name') env[e.name] = `${container.name}-0`;
        else if (e.valueFrom.secretKeyRef) {
          const { name, key } = e.valueFrom.secretKeyRef;
          // A dot in a key (gateway.creds) is escaped, or jsonpath reads it as a path.
          const path = `{.data.${String(key).replaceAll('.', '\\.')}}`;
          const data = (await ok(kubectl(cp, ['get', 'secret', '-n', ns, name, '-o', `jsonpath=${path}`]), 'get secret')).stdout;
          env[e.name] = Buffer.from(data, 'base64').toString();
        } else throw new Error(`unexpected env source ${JSON.stringify(e)}`);
      }
      return { ...env, ...overrides };
    };
    const kubeConfigOf = async (sa: string) => {
      const kc = new KubeConfig();
      kc.loadFromFile(await serviceAccountKubeconfig(cp, ns, sa));
      return kc;
    };
    // The one change: NATS is the test's, since the chart's points at in-cluster DNS.
    const operatorContainer = find(defaults, 'Deployment', `${FULL}-operator`).spec.template.spec.containers[0];
    // And the operator's HTTP port is any free one: this host is not a pod of its own.
    const operatorEnv = await resolve(operatorContainer, { SWITCHBOARD_NATS_URL: nats.url, SWITCHBOARD_HTTP_PORT: '0' });
    const operator = await startOperator(readOperatorConfig(operatorEnv, await kubeConfigOf(`${FULL}-operator`)), { log });
    try {
      await waitFor(async () => operator.isLeader, 'the operator to lead', CHART_WAIT_MS);
      // The chart's probes, as the kubelet would call them.
      for (const probe of [operatorContainer.livenessProbe, operatorContainer.readinessProbe]) {
        await waitFor(
          async () => (await fetch(`http://127.0.0.1:${operator.httpPort}${probe.httpGet.path}`)).status === 200,
          `the operator's ${probe.httpGet.path} to answer 200`,
          CHART_WAIT_MS,
        );
      }
      const gatewayContainer = find(defaults, 'Deployment', `${FULL}-gateway`).spec.template.spec.containers[0];
      // The test's webhook receiver listens on loopback, which the chart's outbound policy denies.
      const gatewayEnv = await resolve(gatewayContainer, {
        SWITCHBOARD_NATS_URL: nats.url,
        HOST: '127.0.0.1',
        PORT: '0',
        SWITCHBOARD_OUTBOUND_ALLOW: '127.0.0.1/32',
      });
      const gateway = await createClusterGateway({
        ...readGatewayConfig(gatewayEnv),
        kubeConfig: await kubeConfigOf(`${FULL}-gateway`),
        logger: log,
      });
      try {
        const base = await gateway.listen();
        const key = gatewayEnv.SWITCHBOARD_API_KEY!;
        expect(key).toMatch(/^sb_[A-Za-z0-9]{43}$/);
        const api = (path: string, init: { method?: string; body?: unknown; key?: string } = {}) =>
          fetch(`${base}${path}`, {
            method: init.method ?? 'GET',
            headers: { 'x-api-key': init.key ?? key, ...(init.body ? { 'content-type': 'application/json' } : {}) },
            body: init.body ? JSON.stringify(init.body) : undefined,
          });

        expect((await api('/api/sessions', { key: 'wrong' })).status).toBe(401);
        const created = await api('/api/sessions', { method: 'POST', body: { name: 'chart-demo', engine: 'SANDBOX' } });
        expect(created.status, await created.clone().text()).toBe(201);

        // The operator, with its token only, made the pod, added its finalizer, wrote the status,
        // recorded an Event and holds the Lease.
        const pod = await waitFor(
          async () => {
            const r = await kubectl(cp, ['get', 'pod', '-n', ns, 'engine-chart-demo', '-o', 'json']);
            return r.code === 0 ? (JSON.parse(r.stdout) as Manifest) : null;
          },
          'the engine pod',
          CHART_WAIT_MS,
        );
        expect(pod.spec.containers[0].image).toBe(operatorEnv.SWITCHBOARD_ENGINE_IMAGE);
        // The chart's default for SANDBOX (values.yaml, engines.resources), which is the operator's own.
        expect(pod.spec.containers[0].resources).toEqual({ requests: { cpu: '25m', memory: '96Mi' }, limits: { memory: '256Mi' } });
        const resource = await waitFor(
          async () => {
            const r = JSON.parse((await ok(kubectl(cp, ['get', 'msess', '-n', ns, 'chart-demo', '-o', 'json']), 'get')).stdout) as Manifest;
            // The pod's name comes in a status write of its own, after the first STARTING.
            return r.metadata.finalizers?.includes('switchboard.dev/logout') && r.status?.status === 'STARTING' && r.status?.podName ? r : null;
          },
          'finalizer and status',
          CHART_WAIT_MS,
        );
        expect(resource.status.podName).toBe('engine-chart-demo');
        const lease = JSON.parse(
          (await ok(kubectl(cp, ['get', 'lease', '-n', ns, `${FULL}-operator`, '-o', 'json']), 'get lease')).stdout,
        ) as Manifest;
        expect(lease.spec.holderIdentity).toBe('operator-0');
        await waitFor(
          async () => (await kubectl(cp, ['get', 'events', '-n', ns, '-o', 'json'])).stdout.includes('PodCreated'),
          'a PodCreated event',
          CHART_WAIT_MS,
        );

        const listed = (await (await api('/api/sessions?all=true')).json()) as { name: string }[];
        expect(listed.map((s) => s.name)).toContain('chart-demo');

        // Webhook secrets, with the gateway's token only: written into a Secret the resource
        // owns, shown by no `get`, and read back to sign each delivery.
        const [hmacKey, token] = ['chart-hmac-key-0123', 'chart-header-token-0123'];
        const rx = await new WebhookReceiver(hmacKey).start();
        const nc = await connect({ servers: nats.url });
        try {
          const hooked = await api('/api/sessions', {
            method: 'POST',
            body: {
              name: 'chart-hooks',
              engine: 'SANDBOX',
              config: {
                webhooks: [{ url: rx.url, events: ['session.status'], hmac: { key: hmacKey }, customHeaders: [{ name: 'X-Token', value: token }] }],
              },
            },
          });
          expect(hooked.status, await hooked.clone().text()).toBe(201);
          const shown = [
            (await ok(kubectl(cp, ['get', 'msess', '-n', ns, 'chart-hooks', '-o', 'yaml']), 'get msess')).stdout,
            await (await api('/api/sessions/chart-hooks')).text(),
            await (await api('/api/sessions?all=true')).text(),
          ];
          for (const text of shown) {
            expect(text).not.toContain(hmacKey);
            expect(text).not.toContain(token);
          }
          expect(shown[0]).toContain('secretKeyRef');
          // An engine of the session's publishes its events (the pod stays Pending: there is no kubelet).
          const engine = await startEnginePod(nc, 'chart-hooks');
          try {
            const hook = await waitFor(() => rx.received.find((r) => r.body.event === 'session.status'), 'a signed webhook', CHART_WAIT_MS);
            expect(hook.hmacValid).toBe(true);
            expect(hook.headers['x-token']).toBe(token);
          } finally {
            await engine.stop();
          }
        } finally {
          await nc.close();
          await rx.stop();
        }

        // Delete through the API: the gateway marks it, the operator's finalizer lets it go.
        const deleted = await api('/api/sessions/chart-demo', { method: 'DELETE' });
        expect(deleted.status, await deleted.clone().text()).toBeLessThan(300);
        await waitFor(async () => (await kubectl(cp, ['get', 'msess', '-n', ns, 'chart-demo'])).code !== 0, 'the resource to be gone', CHART_WAIT_MS);
      } finally {
        await gateway.close();
      }
    } finally {
      await operator.stop();
    }
  });
});
