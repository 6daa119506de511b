// The chart on its own: helm lint, the strict values schema, and what the templates render for
// each value set (images from one place, NATS bundled or external, the restricted pod settings,
// and an environment the gateway's and operator's own config checks accept).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { readConfig as readGatewayConfig } from '@switchboard/gateway';
import { BUILT_ENGINES, webhookSecretName } from '@switchboard/protocol';
import { buildEnginePod, DEFAULT_ENGINE_RESOURCES, readConfig as readOperatorConfig, rolloutConfigMapName } from '@switchboard/operator';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { API_SERVER_TO, chartDir, find, Helm, type Manifest, parseManifests, repoRoot, VALUE_SETS } from './support.js';

const RELEASE = 'sb';
const NS = 'messaging';
const FULL = `${RELEASE}-switchboard`;
const appVersion = (parse(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8')) as { appVersion: string }).appVersion;

/** Pod templates of every workload, with the workload's kind and name. */
function podTemplates(manifests: Manifest[]): { owner: string; spec: any; metadata: any }[] {
  return manifests
    .filter((m) => m.kind === 'Deployment' || m.kind === 'StatefulSet')
    .map((m) => ({ owner: `${m.kind}/${m.metadata.name}`, spec: m.spec.template.spec, metadata: m.spec.template.metadata }));
}

/** A container's env as a plain map; valueFrom entries become a description of their source. */
function envOf(container: any): Record<string, string> {
  const env: Record<string, string> = {};
  for (const e of container.env ?? []) {
    if (e.value !== undefined) env[e.name] = String(e.value);
    else if (e.valueFrom?.fieldRef) env[e.name] = `fieldRef:${e.valueFrom.fieldRef.fieldPath}`;
    else if (e.valueFrom?.secretKeyRef) env[e.name] = `secret:${e.valueFrom.secretKeyRef.name}/${e.valueFrom.secretKeyRef.key}`;
    else env[e.name] = 'valueFrom';
  }
  return env;
}

function container(manifests: Manifest[], deployment: string): any {
  return find(manifests, 'Deployment', deployment).spec.template.spec.containers[0];
}

/** A NATS credentials file's shape, as the config checks read it (not a usable user). */
const CREDS = '-----BEGIN NATS USER JWT-----\nx\n------END NATS USER JWT------\n-----BEGIN USER NKEY SEED-----\ny\n------END USER NKEY SEED------\n';

/** What a pod would see: fieldRefs and the Secrets resolved the way the kubelet would. */
function resolvedEnv(env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === 'fieldRef:metadata.namespace') out[name] = NS;
    else if (value === 'fieldRef:metadata.name') out[name] = 'pod-0';
    else if (value.startsWith('secret:') && value.endsWith('.creds')) out[name] = CREDS;
    else if (value.startsWith('secret:')) out[name] = 'sb_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';
    else out[name] = value;
  }
  return out;
}

describe('chart: lint, schema and templates', () => {
  const helm = new Helm();
  afterAll(() => helm.cleanup());
  // Over the defaults' one required value (where the API server is), as a platform team's values file would be.
  const render = async (values?: object) => parseManifests(await helm.template(RELEASE, NS, VALUE_SETS.defaults, values));

  it('ships the CRD byte for byte as crds/messagingsession.yaml (generated from the protocol)', () => {
    expect(readFileSync(join(chartDir, 'crds/messagingsession.yaml'), 'utf8')).toBe(
      readFileSync(join(repoRoot, 'crds/messagingsession.yaml'), 'utf8'),
    );
  });

  it('takes its appVersion from the root package.json version', () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    expect(appVersion).toBe(pkg.version);
  });

  it.each(Object.entries(VALUE_SETS))('helm lint --strict passes: %s', async (_, values) => {
    const r = await helm.run(['lint', chartDir, '--strict', '--namespace', NS, ...helm.valuesArgs(values)]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('0 chart(s) failed');
    expect(r.stdout).not.toMatch(/\[(WARNING|ERROR)\]/);
  });

  it.each([
    ['a misspelt top-level key', { gatewy: { replicas: 3 } }, "additional properties 'gatewy' not allowed"],
    ['a misspelt nested key', { gateway: { replica: 3 } }, "additional properties 'replica' not allowed"],
    [
      'a CPU limit for engines (the operator sets none)',
      { engines: { resources: { NOWEB: { limits: { cpu: '1' } } } } },
      "additional properties 'cpu' not allowed",
    ],
    [
      'a memory request that is not a quantity',
      { engines: { resources: { WEBJS: { requests: { memory: 'lots' } } } } },
      '/engines/resources/WEBJS/requests/memory',
    ],
    [
      'resources for an engine this build does not have',
      { engines: { resources: { TELEGRAM: { limits: { memory: '1Gi' } } } } },
      "additional properties 'TELEGRAM' not allowed",
    ],
    [
      'the per-kind resources of earlier versions',
      { engines: { socket: { resources: { limits: { memory: '1Gi' } } } } },
      "additional properties 'resources' not allowed",
    ],
    ['a pull secret that is not a Secret name', { image: { pullSecrets: ['Reg Cred'] } }, '/image/pullSecrets/0'],
    ['an unknown engine', { gateway: { defaultEngine: 'TELEGRAM' } }, '/gateway/defaultEngine'],
    ['a NATS URL that is not one', { nats: { external: { url: 'http://nats:4222' } } }, '/nats/external/url'],
    ['too many workers', { operator: { workers: 100 } }, '/operator/workers'],
    ['more NATS replicas than JetStream keeps', { nats: { external: { url: 'nats://nats:4222', replicas: 7 } } }, '/nats/external/replicas'],
    ['a bundled NATS of two servers (no quorum to spare)', { nats: { bundled: { replicas: 2 } } }, '/nats/bundled/replicas'],
  ])('the schema rejects %s', async (_, values, message) => {
    const r = await helm.run(['template', RELEASE, chartDir, ...helm.valuesArgs(values)]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(message);
  });

  it('refuses to render with no NATS at all', async () => {
    const r = await helm.run(['template', RELEASE, chartDir, ...helm.valuesArgs(VALUE_SETS.defaults), '--set', 'nats.bundled.enabled=false']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('NATS: set nats.external.url, or leave nats.bundled.enabled true');
  });

  it('takes every Switchboard image from image.registry, image.tag (default appVersion) and one repository name each', async () => {
    const imagesOf = (manifests: Manifest[]) => {
      const op = envOf(container(manifests, `${FULL}-operator`));
      return {
        gateway: container(manifests, `${FULL}-gateway`).image,
        operator: container(manifests, `${FULL}-operator`).image,
        engine: op.SWITCHBOARD_ENGINE_IMAGE,
        browserEngine: op.SWITCHBOARD_BROWSER_ENGINE_IMAGE,
        gowsEngine: op.SWITCHBOARD_GOWS_ENGINE_IMAGE,
      };
    };
    expect(imagesOf(await render())).toEqual({
      gateway: `localhost/switchboard/gateway:${appVersion}`,
      operator: `localhost/switchboard/operator:${appVersion}`,
      engine: `localhost/switchboard/engine:${appVersion}`,
      browserEngine: `localhost/switchboard/browser-engine:${appVersion}`,
      gowsEngine: `localhost/switchboard/gows:${appVersion}`,
    });
    const custom = await render({ image: { registry: 'registry.example.com/sb/', tag: '2026.12.0-rc1', repositories: { engine: 'engine-socket' } } });
    expect(imagesOf(custom)).toEqual({
      gateway: 'registry.example.com/sb/gateway:2026.12.0-rc1',
      operator: 'registry.example.com/sb/operator:2026.12.0-rc1',
      engine: 'registry.example.com/sb/engine-socket:2026.12.0-rc1',
      browserEngine: 'registry.example.com/sb/browser-engine:2026.12.0-rc1',
      gowsEngine: 'registry.example.com/sb/gows:2026.12.0-rc1',
    });
    // No other image anywhere but the bundled NATS.
    const all = podTemplates(custom).flatMap((t) => t.spec.containers.map((c: any) => c.image));
    expect(all.filter((image) => !image.startsWith('registry.example.com/sb/'))).toEqual(['docker.io/nats:2.12.15-alpine']);
  });

  it.each(Object.entries(VALUE_SETS))(
    'every pod meets the restricted standard, with a read-only root and /tmp on an emptyDir: %s',
    async (_, values) => {
      const manifests = await render(values);
      const templates = podTemplates(manifests);
      expect(templates.length).toBeGreaterThanOrEqual(2);
      for (const { owner, spec } of templates) {
        expect(spec.securityContext, owner).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: 'RuntimeDefault' } });
        expect(spec.hostNetwork ?? false, owner).toBe(false);
        for (const c of [...spec.containers, ...(spec.initContainers ?? [])]) {
          expect(c.securityContext, `${owner} ${c.name}`).toEqual({
            runAsNonRoot: true,
            runAsUser: 10001,
            runAsGroup: 10001,
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ['ALL'] },
            seccompProfile: { type: 'RuntimeDefault' },
          });
          expect(c.resources?.requests?.memory, `${owner} ${c.name} requests memory`).toBeTruthy();
          expect(c.resources?.limits?.memory, `${owner} ${c.name} limits memory`).toBeTruthy();
          const volumes = new Map<string, any>(spec.volumes?.map((v: any) => [v.name, v]) ?? []);
          const tmp = c.volumeMounts?.find((m: any) => m.mountPath === '/tmp');
          // Node writes to /tmp; NATS writes only to its data volume.
          if (c.name !== 'nats') expect(volumes.get(tmp?.name)?.emptyDir, `${owner} ${c.name} /tmp`).toBeDefined();
        }
      }
    },
  );

  it('defaults: bundled NATS (StatefulSet with a volume, Services, PDB), 2 gateways, 2 operators, PDBs, NetworkPolicies', async () => {
    const m = await render();
    const natsUrl = `nats://${FULL}-nats.${NS}.svc:4222`;
    expect(envOf(container(m, `${FULL}-gateway`)).SWITCHBOARD_NATS_URL).toBe(natsUrl);
    expect(envOf(container(m, `${FULL}-operator`)).SWITCHBOARD_NATS_URL).toBe(natsUrl);
    expect(envOf(container(m, `${FULL}-operator`)).SWITCHBOARD_NATS_REPLICAS).toBe('1');

    const sts = find(m, 'StatefulSet', `${FULL}-nats`);
    expect(sts.spec.replicas).toBe(1);
    expect(sts.spec.volumeClaimTemplates[0].spec.resources.requests.storage).toBe('10Gi');
    expect(sts.spec.template.spec.containers[0].readinessProbe.httpGet).toEqual({ path: '/healthz?js-enabled-only=true', port: 'monitor' });
    const conf = find(m, 'ConfigMap', `${FULL}-nats`).data['nats.conf'];
    expect(conf).toMatch(/jetstream \{\s+store_dir: \/data\s+max_file_store: 8Gi/);
    expect(find(m, 'Service', `${FULL}-nats`).spec.ports[0].port).toBe(4222);
    expect(find(m, 'Service', `${FULL}-nats-headless`).spec.clusterIP).toBe('None');

    expect(find(m, 'Deployment', `${FULL}-gateway`).spec.replicas).toBe(2);
    expect(find(m, 'Deployment', `${FULL}-operator`).spec.replicas).toBe(2);
    expect(
      m
        .filter((x) => x.kind === 'PodDisruptionBudget')
        .map((x) => x.metadata.name)
        .sort(),
    ).toEqual([`${FULL}-gateway`, `${FULL}-nats`, `${FULL}-operator`]);
    expect(
      m
        .filter((x) => x.kind === 'NetworkPolicy')
        .map((x) => x.metadata.name)
        .sort(),
    ).toEqual([`${FULL}-engines`, `${FULL}-gateway`, `${FULL}-nats`, `${FULL}-operator`]);
    // The generated admin key: 256 random bits, like the gateway's own keys.
    const secret = find(m, 'Secret', `${FULL}-api-key`);
    expect(Buffer.from(secret.data['api-key'], 'base64').toString()).toMatch(/^sb_[A-Za-z0-9]{43}$/);
    expect(envOf(container(m, `${FULL}-gateway`)).SWITCHBOARD_API_KEY).toBe(`secret:${FULL}-api-key/api-key`);
  });

  it('bundled NATS of 3: a JetStream cluster routed by pod names, its port open between NATS pods only, spread over nodes, 3 copies asked for', async () => {
    const m = await render(VALUE_SETS['bundled NATS cluster']);
    for (const part of ['gateway', 'operator']) {
      expect(envOf(container(m, `${FULL}-${part}`)).SWITCHBOARD_NATS_REPLICAS).toBe('3');
      // Missing streams are made first on server 0, where a single server's are after an upgrade from 1.
      expect(envOf(container(m, `${FULL}-${part}`)).SWITCHBOARD_NATS_SEED).toBe(`${FULL}-nats-0`);
    }
    expect(readOperatorConfig(resolvedEnv(envOf(container(m, `${FULL}-operator`))), new KubeConfig())).toMatchObject({
      natsReplicas: 3,
      natsSeed: `${FULL}-nats-0`,
    });

    const sts = find(m, 'StatefulSet', `${FULL}-nats`);
    expect(sts.spec.replicas).toBe(3);
    const nats = sts.spec.template.spec.containers[0];
    expect(nats.ports).toContainEqual({ name: 'cluster', containerPort: 6222, protocol: 'TCP' });
    expect(find(m, 'Service', `${FULL}-nats-headless`).spec.ports).toContainEqual({
      name: 'cluster',
      port: 6222,
      targetPort: 'cluster',
      protocol: 'TCP',
    });
    // Clients reach the client port only.
    expect(find(m, 'Service', `${FULL}-nats`).spec.ports.map((p: any) => p.port)).toEqual([4222]);
    const headless = `${FULL}-nats-headless.${NS}.svc`;
    const conf: string = find(m, 'ConfigMap', `${FULL}-nats`).data['nats.conf'];
    const cluster = /\ncluster \{\n {2}name: (\S+)\n {2}port: 6222\n {2}routes: \[\n([^\]]*)\]/.exec(conf);
    expect(cluster?.[1]).toBe(`${FULL}-nats`);
    expect(cluster?.[2]?.trim().split(/\s+/)).toEqual([0, 1, 2].map((i) => `nats-route://${FULL}-nats-${i}.${headless}:6222`));
    // server_name from the pod: JetStream tells servers apart by it; the pod name is its tag too, the seed's placement.
    expect(conf).toContain('server_name: $POD_NAME');
    expect(conf).toContain('server_tags: [$POD_NAME]');

    const selector = find(m, 'StatefulSet', `${FULL}-nats`).spec.selector.matchLabels;
    expect(sts.spec.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution).toEqual([
      { weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: selector } } },
    ]);
    expect(find(m, 'PodDisruptionBudget', `${FULL}-nats`).spec.maxUnavailable).toBe(1);

    const ingress = find(m, 'NetworkPolicy', `${FULL}-nats`).spec.ingress;
    const routes = ingress.filter((rule: any) => rule.ports.some((p: any) => p.port === 6222));
    expect(routes).toEqual([{ ports: [{ port: 6222, protocol: 'TCP' }], from: [{ podSelector: { matchLabels: selector } }] }]);
    expect(ingress.find((rule: any) => rule.ports.some((p: any) => p.port === 4222)).ports).toEqual([{ port: 4222, protocol: 'TCP' }]);

    // One server: no cluster, no route port anywhere, no anti-affinity of the chart's.
    const single = await render();
    expect(find(single, 'ConfigMap', `${FULL}-nats`).data['nats.conf']).not.toContain('cluster {');
    expect(JSON.stringify(single)).not.toContain('6222');
    expect(JSON.stringify(single)).not.toContain('SWITCHBOARD_NATS_SEED');
    expect(find(single, 'StatefulSet', `${FULL}-nats`).spec.template.spec.affinity).toBeUndefined();
  });

  it('external NATS: no bundled NATS objects, the URL and the replicas asked for passed to the gateway and operator, engines may reach its ports', async () => {
    for (const values of [VALUE_SETS['external NATS'], VALUE_SETS['bundled NATS off']] as any[]) {
      const m = await render(values);
      expect(m.filter((x) => x.metadata.name.startsWith(`${FULL}-nats`))).toEqual([]);
      for (const component of ['gateway', 'operator']) {
        expect(envOf(container(m, `${FULL}-${component}`))).toMatchObject({
          SWITCHBOARD_NATS_URL: values.nats.external.url,
          SWITCHBOARD_NATS_REPLICAS: String(values.nats.external.replicas ?? 1),
        });
      }
      expect(readOperatorConfig(resolvedEnv(envOf(container(m, `${FULL}-operator`))), new KubeConfig()).natsReplicas).toBe(
        values.nats.external.replicas ?? 1,
      );
      const egress = find(m, 'NetworkPolicy', `${FULL}-engines`).spec.egress;
      const natsRule = egress.find((rule: any) => rule.ports.some((p: any) => p.port === 4222));
      expect(natsRule.to).toBeUndefined();
    }
  });

  it('NATS authentication: on by default, from the Secret the operator makes; off on request; an external NATS takes credentials from a Secret', async () => {
    const authSecret = `${FULL}-nats-auth`;
    const rbacRules = (m: Manifest[]) => find(m, 'Role', `${FULL}-operator`).rules.filter((rule: any) => rule.resources.includes('secrets'));
    const m = await render();
    expect(find(m, 'ConfigMap', `${FULL}-nats`).data['nats.conf']).toMatch(/\ninclude \.\/auth\.conf\n?$/);
    // The server's config volume holds auth.conf from the operator's Secret: the pod waits for it.
    const volume = find(m, 'StatefulSet', `${FULL}-nats`).spec.template.spec.volumes.find((v: any) => v.name === 'config');
    expect(volume.projected.sources).toEqual([
      { configMap: { name: `${FULL}-nats` } },
      { secret: { name: authSecret, items: [{ key: 'auth.conf', path: 'auth.conf' }] } },
    ]);
    expect(envOf(container(m, `${FULL}-gateway`)).SWITCHBOARD_NATS_CREDS).toBe(`secret:${authSecret}/gateway.creds`);
    expect(envOf(container(m, `${FULL}-operator`)).SWITCHBOARD_NATS_AUTH_SECRET).toBe(authSecret);
    const operator = readOperatorConfig(resolvedEnv(envOf(container(m, `${FULL}-operator`))), new KubeConfig());
    expect(operator.natsAuthSecret).toBe(authSecret);
    expect(operator.pods.natsCredentials).toEqual({ kind: 'per-session' });
    expect(readGatewayConfig(resolvedEnv(envOf(container(m, `${FULL}-gateway`)))).natsCredentials).toBe(CREDS);
    // The operator may create Secrets (one per engine pod) and read only the one of the keys.
    expect(rbacRules(m)).toEqual([
      { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
      { apiGroups: [''], resources: ['secrets'], resourceNames: [authSecret], verbs: ['get'] },
    ]);

    const off = await render(VALUE_SETS['NATS auth off']);
    expect(find(off, 'ConfigMap', `${FULL}-nats`).data['nats.conf']).not.toContain('include');
    expect(find(off, 'StatefulSet', `${FULL}-nats`).spec.template.spec.volumes.find((v: any) => v.name === 'config')).toEqual({
      name: 'config',
      configMap: { name: `${FULL}-nats` },
    });
    expect(envOf(container(off, `${FULL}-gateway`))).not.toHaveProperty('SWITCHBOARD_NATS_CREDS');
    expect(envOf(container(off, `${FULL}-operator`))).not.toHaveProperty('SWITCHBOARD_NATS_AUTH_SECRET');
    expect(rbacRules(off)).toEqual([]);

    const external = await render(VALUE_SETS['external NATS']);
    expect(envOf(container(external, `${FULL}-gateway`)).SWITCHBOARD_NATS_CREDS).toBe('secret:nats-creds/switchboard.creds');
    expect(envOf(container(external, `${FULL}-operator`))).toMatchObject({
      SWITCHBOARD_NATS_CREDS: 'secret:nats-creds/switchboard.creds',
      SWITCHBOARD_ENGINE_NATS_CREDS_SECRET: 'nats-creds/engine.creds',
    });
    const externalOperator = readOperatorConfig(resolvedEnv(envOf(container(external, `${FULL}-operator`))), new KubeConfig());
    expect(externalOperator.natsCredentials).toBe(CREDS);
    expect(externalOperator.pods.natsCredentials).toEqual({ kind: 'shared', secret: 'nats-creds', key: 'engine.creds' });
    expect(rbacRules(external)).toEqual([]);
    // Without credentials, an external NATS is reached without any.
    const bare = await render(VALUE_SETS['bundled NATS off']);
    expect(envOf(container(bare, `${FULL}-gateway`))).not.toHaveProperty('SWITCHBOARD_NATS_CREDS');
    expect(envOf(container(bare, `${FULL}-operator`))).not.toHaveProperty('SWITCHBOARD_NATS_CREDS');
  });

  it('gateway: replicas, the Service, GET /health probes on its port, the admin key from an existing Secret', async () => {
    const m = await render(VALUE_SETS['gateway replicas 3']);
    const deployment = find(m, 'Deployment', `${FULL}-gateway`);
    expect(deployment.spec.replicas).toBe(3);
    const c = deployment.spec.template.spec.containers[0];
    for (const probe of ['readinessProbe', 'livenessProbe', 'startupProbe']) {
      expect(c[probe].httpGet, probe).toEqual({ path: '/health', port: 'http' });
    }
    expect(c.ports).toEqual([{ name: 'http', containerPort: 3000, protocol: 'TCP' }]);
    expect(find(m, 'Service', `${FULL}-gateway`).spec).toMatchObject({ type: 'LoadBalancer', ports: [{ port: 443, targetPort: 'http' }] });
    expect(m.some((x) => x.kind === 'Secret')).toBe(false);
    expect(envOf(c).SWITCHBOARD_API_KEY).toBe('secret:switchboard-admin/key');
    expect(envOf(c).SWITCHBOARD_HOOK_URL).toBe('https://hooks.example.com/all');
    expect(deployment.spec.template.spec.imagePullSecrets).toEqual([{ name: 'regcred' }]);
  });

  it('operator: liveness on /healthz and readiness on /readyz at its HTTP port, the port it is told to listen on', async () => {
    for (const [values, port] of [
      [undefined, 8080],
      [VALUE_SETS['gateway replicas 3'], 9090],
    ] as const) {
      const op = container(await render(values), `${FULL}-operator`);
      expect(op.ports).toEqual([{ name: 'http', containerPort: port, protocol: 'TCP' }]);
      expect(op.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(op.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
      expect(op.startupProbe).toBeUndefined();
      expect(readOperatorConfig(resolvedEnv(envOf(op)), new KubeConfig()).httpPort).toBe(port);
    }
    await expect(render({ operator: { httpPort: 80 } })).rejects.toThrow(/httpPort/);
  });

  it('operator: leader election on the Lease its Role may update, engine images and per-kind settings in its env', async () => {
    const m = await render(VALUE_SETS['gateway replicas 3']);
    const env = envOf(container(m, `${FULL}-operator`));
    expect(env).toMatchObject({
      SWITCHBOARD_LEASE_NAME: 'sb-leader',
      SWITCHBOARD_IDENTITY: 'fieldRef:metadata.name',
      SWITCHBOARD_NAMESPACE: 'fieldRef:metadata.namespace',
      SWITCHBOARD_WORKERS: '8',
      SWITCHBOARD_ENGINE_IMAGE_PULL_SECRETS: '["regcred"]',
      SWITCHBOARD_SOCKET_NODE_SELECTOR: '{"pool":"engines"}',
      SWITCHBOARD_SOCKET_TOLERATIONS: '[{"effect":"NoSchedule","key":"engines","operator":"Exists"}]',
      SWITCHBOARD_BROWSER_NODE_SELECTOR: '{"pool":"browsers"}',
      SWITCHBOARD_BROWSER_TOLERATIONS: '[]',
    });
    const role = find(m, 'Role', `${FULL}-operator`);
    const leaseRule = role.rules.find((r: any) => r.resourceNames && r.resources.includes('leases'));
    expect(leaseRule).toEqual({
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      resourceNames: ['sb-leader'],
      verbs: ['get', 'update', 'list', 'watch'],
    });
  });

  it("engine pods: each engine's resources, the chart's defaults the operator's own, one engine's field overridden alone; the pull secrets", async () => {
    const defaults = readOperatorConfig(resolvedEnv(envOf(container(await render(), `${FULL}-operator`))), new KubeConfig());
    expect(defaults.pods.resources).toEqual(DEFAULT_ENGINE_RESOURCES);
    expect(defaults.pods.imagePullSecrets).toBeUndefined();
    const custom = readOperatorConfig(
      resolvedEnv(envOf(container(await render(VALUE_SETS['gateway replicas 3']), `${FULL}-operator`))),
      new KubeConfig(),
    );
    expect(custom.pods.resources).toEqual({
      SANDBOX: DEFAULT_ENGINE_RESOURCES.SANDBOX,
      NOWEB: { requests: DEFAULT_ENGINE_RESOURCES.NOWEB.requests, limits: { memory: '1Gi' } },
      WEBJS: { requests: { cpu: '500m', memory: '1Gi' }, limits: { memory: '3Gi' } },
      GOWS: DEFAULT_ENGINE_RESOURCES.GOWS,
      WPP: DEFAULT_ENGINE_RESOURCES.WPP,
    });
    expect(custom.pods.imagePullSecrets).toEqual(['regcred']);
    const resource = {
      apiVersion: 'switchboard.dev/v1alpha1',
      kind: 'MessagingSession',
      metadata: { name: 's1', namespace: NS, uid: 'uid-1', generation: 1, resourceVersion: '1' },
      spec: { engine: 'NOWEB' as const, desiredState: 'Running' as const, config: {}, apps: [] },
    };
    const pod = buildEnginePod(resource, custom.pods);
    expect(pod.spec!.imagePullSecrets).toEqual([{ name: 'regcred' }]);
    expect(pod.spec!.containers[0]!.resources).toEqual(custom.pods.resources.NOWEB);
  });

  it('RBAC: Roles in the release namespace only; the gateway reads and writes Secrets by name (no list or watch), the operator reads none of them', async () => {
    const m = await render();
    expect(m.filter((x) => x.kind === 'ClusterRole' || x.kind === 'ClusterRoleBinding')).toEqual([]);
    const gateway = find(m, 'Role', `${FULL}-gateway`);
    expect(gateway.metadata.namespace).toBe(NS);
    expect(gateway.rules).toEqual([
      { apiGroups: ['switchboard.dev'], resources: ['messagingsessions'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'create', 'update', 'delete'] },
    ]);
    // Its only Secret rules are NATS authentication's: create, and get of that one Secret by name.
    const operator = find(m, 'Role', `${FULL}-operator`);
    const readsSecrets = operator.rules.some(
      (rule: any) =>
        rule.resources.includes('secrets') && !rule.resourceNames && rule.verbs.some((verb: string) => ['get', 'list', 'watch'].includes(verb)),
    );
    expect(readsSecrets).toBe(false);
  });

  it("Secrets: every Secret the gateway's Role lets it write is held by a ValidatingAdmissionPolicy to the gateway's own (name and label), for its ServiceAccount in the release namespace; off on request", async () => {
    const m = await render();
    const name = `${FULL}-${NS}-gateway-secrets`;
    const policy = find(m, 'ValidatingAdmissionPolicy', name);
    expect(policy.apiVersion).toBe('admissionregistration.k8s.io/v1');
    expect(policy.spec.failurePolicy).toBe('Fail');
    // Every write verb the Role grants on Secrets, and no Secret left out.
    const writes = find(m, 'Role', `${FULL}-gateway`)
      .rules.filter((rule: any) => rule.resources.includes('secrets'))
      .flatMap((rule: any) => rule.verbs.filter((verb: string) => verb !== 'get'));
    expect(writes.sort()).toEqual(['create', 'delete', 'update']);
    expect(policy.spec.matchConstraints.resourceRules).toEqual([
      { apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'], operations: ['CREATE', 'UPDATE', 'DELETE'] },
    ]);
    expect(policy.spec.matchConditions).toEqual([
      { name: 'gateway-service-account', expression: `request.userInfo.username == 'system:serviceaccount:${NS}:${FULL}-gateway'` },
    ]);
    // The name and label the gateway writes (gateway/src/cluster/session-secrets.ts), before and after.
    const rules = policy.spec.validations.map((v: any) => v.expression).join('\n');
    expect(rules).toContain("object.metadata.name.endsWith('-webhook-secrets')");
    expect(rules).toContain("oldObject.metadata.name.endsWith('-webhook-secrets')");
    expect(rules).toContain("== 'webhook-secrets'");
    expect(webhookSecretName('x')).toBe('x-webhook-secrets');
    expect(find(m, 'ValidatingAdmissionPolicyBinding', name).spec).toEqual({
      policyName: name,
      validationActions: ['Deny'],
      matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': NS } } },
    });
    const off = await render({ gateway: { secretsAdmissionPolicy: { enabled: false } } });
    expect(off.filter((x) => x.kind.startsWith('ValidatingAdmissionPolicy'))).toEqual([]);
  });

  it.each(Object.entries(VALUE_SETS))("the gateway's and operator's own config checks accept the env the chart gives them: %s", async (_, values) => {
    const m = await render(values);
    const gatewayEnv = resolvedEnv(envOf(container(m, `${FULL}-gateway`)));
    const gateway = readGatewayConfig(gatewayEnv);
    expect(gateway).toMatchObject({ mode: 'cluster', port: 3000, host: '0.0.0.0', namespace: NS });

    const operatorEnv = resolvedEnv(envOf(container(m, `${FULL}-operator`)));
    const operator = readOperatorConfig(operatorEnv, new KubeConfig());
    expect(operator.namespace).toBe(NS);
    expect(operator.natsUrl).toBe(gateway.natsUrl);
    expect(operator.pods.resources).toMatchObject(JSON.parse(operatorEnv.SWITCHBOARD_ENGINE_RESOURCES ?? '{}'));
    expect(operator.pods.placement?.socket.nodeSelector).toEqual(JSON.parse(operatorEnv.SWITCHBOARD_SOCKET_NODE_SELECTOR ?? '{}'));
    expect(operator.pods.placement?.browser.tolerations).toEqual(JSON.parse(operatorEnv.SWITCHBOARD_BROWSER_TOLERATIONS ?? '[]'));
  });

  it('media: baseUrl reaches the gateway and (for engine pods) the operator; the lifetime reaches the gateway', async () => {
    const m = await render(VALUE_SETS['gateway replicas 3']);
    const gateway = readGatewayConfig(resolvedEnv(envOf(container(m, `${FULL}-gateway`))));
    expect(gateway).toMatchObject({ baseUrl: 'https://wa.example.com', mediaLifetimeMs: 3_600_000 });
    const operator = readOperatorConfig(resolvedEnv(envOf(container(m, `${FULL}-operator`))), new KubeConfig());
    expect(operator.pods.baseUrl).toBe('https://wa.example.com');
    const defaults = await render();
    expect(envOf(container(defaults, `${FULL}-gateway`))).toMatchObject({ SWITCHBOARD_MEDIA_LIFETIME_SECONDS: '86400' });
    expect(envOf(container(defaults, `${FULL}-operator`))).not.toHaveProperty('SWITCHBOARD_BASE_URL');
    await expect(render({ baseUrl: 'wa.example.com' })).rejects.toThrow(/baseUrl/);
  });

  it('gateway.conversions reach the gateway, and size its /tmp and (unless given) its memory limit; gateway.wsMaxConnectionsPerKey reaches it', async () => {
    const sized = async (values?: object) => {
      const deployment = find(await render(values), 'Deployment', `${FULL}-gateway`);
      const c = deployment.spec.template.spec.containers[0];
      const tmp = deployment.spec.template.spec.volumes.find((volume: { name: string }) => volume.name === 'tmp');
      return {
        config: readGatewayConfig(resolvedEnv(envOf(c))),
        tmp: tmp.emptyDir.sizeLimit,
        limits: c.resources.limits,
        requests: c.resources.requests,
      };
    };
    // Each running conversion: its input and output (32 MiB each) in /tmp, 512 MiB of memory.
    expect(await sized()).toMatchObject({
      config: { conversions: { running: 1, waiting: 8, perKey: 2 }, wsMaxConnectionsPerKey: 10 },
      tmp: '96Mi',
      limits: { memory: '896Mi' },
      requests: { cpu: '100m', memory: '128Mi' },
    });
    expect(await sized({ gateway: { conversions: { running: 3, waiting: 0, perKey: 1 }, wsMaxConnectionsPerKey: 4 } })).toMatchObject({
      config: { conversions: { running: 3, waiting: 0, perKey: 1 }, wsMaxConnectionsPerKey: 4 },
      tmp: '224Mi',
      limits: { memory: '1920Mi' },
    });
    // A memory limit given is kept, beside any other limit.
    expect((await sized({ gateway: { resources: { limits: { memory: '2Gi', cpu: '2' } } } })).limits).toEqual({ memory: '2Gi', cpu: '2' });
    await expect(render({ gateway: { conversions: { running: 0, waiting: 8, perKey: 2 } } })).rejects.toThrow(/conversions\/running/);
  });

  it('gateway.dashboard reaches every gateway replica as SWITCHBOARD_DASHBOARD, on by default', async () => {
    const on = readGatewayConfig(resolvedEnv(envOf(container(await render(), `${FULL}-gateway`))));
    expect(on.dashboard).toBe(true);
    const off = readGatewayConfig(resolvedEnv(envOf(container(await render({ gateway: { dashboard: false } }), `${FULL}-gateway`))));
    expect(off.dashboard).toBe(false);
    await expect(render({ gateway: { dashboard: 'no' } })).rejects.toThrow(/dashboard/);
  });

  it('engines.nowebConnectAttempts reaches the operator (for NOWEB pods) only when set, and must be 1 to 1000', async () => {
    const set = await render({ engines: { nowebConnectAttempts: 4 } });
    const operator = readOperatorConfig(resolvedEnv(envOf(container(set, `${FULL}-operator`))), new KubeConfig());
    expect(operator.pods.nowebConnectAttempts).toBe(4);
    expect(envOf(container(await render(), `${FULL}-operator`))).not.toHaveProperty('SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS');
    await expect(render({ engines: { nowebConnectAttempts: 0 } })).rejects.toThrow(/nowebConnectAttempts/);
  });

  it('engines.silenceTimeoutMs reaches the operator (for socket engine pods) only when set, and must be 1000 to 120000', async () => {
    const set = await render({ engines: { silenceTimeoutMs: 5000 } });
    const operator = readOperatorConfig(resolvedEnv(envOf(container(set, `${FULL}-operator`))), new KubeConfig());
    expect(operator.pods.silenceTimeoutMs).toBe(5000);
    expect(envOf(container(await render(), `${FULL}-operator`))).not.toHaveProperty('SWITCHBOARD_SILENCE_TIMEOUT_MS');
    await expect(render({ engines: { silenceTimeoutMs: 500 } })).rejects.toThrow(/silenceTimeoutMs/);
  });

  it("engines.clientVersions reach the operator (for each engine's pods) only when set, and must be WhatsApp Web versions", async () => {
    const set = await render({ engines: { clientVersions: { NOWEB: '2.3000.1023456789', GOWS: '' } } });
    const env = envOf(container(set, `${FULL}-operator`));
    expect(env).not.toHaveProperty('SWITCHBOARD_GOWS_CLIENT_VERSION');
    expect(readOperatorConfig(resolvedEnv(env), new KubeConfig()).pods.clientVersions).toEqual({ NOWEB: '2.3000.1023456789' });
    const unset = envOf(container(await render(), `${FULL}-operator`));
    expect(Object.keys(unset).filter((name) => name.endsWith('_CLIENT_VERSION'))).toEqual([]);
    await expect(render({ engines: { clientVersions: { NOWEB: '2.3000' } } })).rejects.toThrow(/clientVersions/);
    await expect(render({ engines: { clientVersions: { WEBJS: '2.3000.1' } } })).rejects.toThrow(/clientVersions/);
  });

  it("engines.rollout reaches the operator (its defaults the operator's own), checked by the schema; the operator may write only the rollouts' ConfigMaps", async () => {
    const operatorOf = async (values?: object) =>
      readOperatorConfig(resolvedEnv(envOf(container(await render(values), `${FULL}-operator`))), new KubeConfig());
    expect((await operatorOf()).rollout).toEqual(
      readOperatorConfig(
        { SWITCHBOARD_NATS_URL: 'nats://n:4222', SWITCHBOARD_ENGINE_IMAGE: 'e', SWITCHBOARD_BROWSER_ENGINE_IMAGE: 'b' },
        new KubeConfig(),
      ).rollout,
    );
    const set = await operatorOf({ engines: { rollout: { canary: '5%', maxUnavailable: '3', workingTimeoutSeconds: 60 } } });
    expect(set.rollout).toEqual({ canary: { percent: 5 }, maxUnavailable: { count: 3 }, workingTimeoutMs: 60_000 });
    await expect(render({ engines: { rollout: { canary: '0' } } })).rejects.toThrow(/canary/);
    await expect(render({ engines: { rollout: { maxUnavailable: '150%' } } })).rejects.toThrow(/maxUnavailable/);
    await expect(render({ engines: { rollout: { workingTimeoutSeconds: 5 } } })).rejects.toThrow(/workingTimeoutSeconds/);
    const rules = find(await render(), 'Role', `${FULL}-operator`).rules.filter((rule: any) => rule.resources.includes('configmaps'));
    expect(rules).toEqual([
      { apiGroups: [''], resources: ['configmaps'], verbs: ['list', 'create'] },
      { apiGroups: [''], resources: ['configmaps'], resourceNames: BUILT_ENGINES.map(rolloutConfigMapName), verbs: ['get', 'update'] },
    ]);
  });

  it('image.pullPolicy and engines.extraEnv reach engine pods through the operator; extraEnv may not name what the operator sets', async () => {
    const extraEnv = [{ name: 'SWITCHBOARD_NOWEB_WS_URL', value: 'ws://10.222.0.1:4000/ws/chat' }];
    const set = await render({ image: { pullPolicy: 'Never' }, engines: { extraEnv } });
    expect(container(set, `${FULL}-gateway`).imagePullPolicy).toBe('Never');
    expect(container(set, `${FULL}-operator`).imagePullPolicy).toBe('Never');
    const operator = readOperatorConfig(resolvedEnv(envOf(container(set, `${FULL}-operator`))), new KubeConfig());
    expect(operator.pods).toMatchObject({ pullPolicy: 'Never', extraEnv });
    const engine = buildEnginePod(
      {
        apiVersion: 'switchboard.dev/v1alpha1',
        kind: 'MessagingSession',
        metadata: { name: 'n1', namespace: NS, uid: 'u1' },
        spec: { engine: 'NOWEB', desiredState: 'Running', config: {}, apps: [] },
      },
      operator.pods,
    ).spec!.containers[0]!;
    expect(engine.imagePullPolicy).toBe('Never');
    expect(engine.env).toEqual(expect.arrayContaining(extraEnv));

    const defaults = readOperatorConfig(resolvedEnv(envOf(container(await render(), `${FULL}-operator`))), new KubeConfig());
    expect(defaults.pods).not.toHaveProperty('pullPolicy');
    expect(defaults.pods).not.toHaveProperty('extraEnv');
    await expect(render({ engines: { extraEnv: [{ name: 'SWITCHBOARD_NATS_URL', value: 'nats://x:4222' }] } })).rejects.toThrow(/extraEnv/);
    await expect(render({ engines: { extraEnv: [{ name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] } })).rejects.toThrow(
      /extraEnv/,
    );
    await expect(render({ image: { pullPolicy: 'Sometimes' } })).rejects.toThrow(/pullPolicy/);
  });

  it('outbound address policy: loopback and the private and shared ranges denied by default for the gateway and (through the operator) engine pods, the values passed as given', async () => {
    const defaults = await render();
    const deny = '127.0.0.0/8,::1/128,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,100.64.0.0/10,fc00::/7';
    for (const deployment of [`${FULL}-gateway`, `${FULL}-operator`]) {
      expect(envOf(container(defaults, deployment)), deployment).toMatchObject({ SWITCHBOARD_OUTBOUND_DENY: deny, SWITCHBOARD_OUTBOUND_ALLOW: '' });
    }
    const gateway = readGatewayConfig(resolvedEnv(envOf(container(defaults, `${FULL}-gateway`))));
    expect(gateway.outbound?.refusalOf('127.0.0.1')).toMatchObject({ rule: '127.0.0.0/8' });
    expect(gateway.outbound?.refusalOf('::1')).toMatchObject({ rule: '::1/128' });
    expect(gateway.outbound?.refusalOf('169.254.169.254')).toMatchObject({ source: 'built-in' });
    // Other pods, Services and nodes: webhooks and downloads stay out of the cluster's networks.
    for (const [address, rule] of [
      ['10.96.0.1', '10.0.0.0/8'],
      ['172.18.0.2', '172.16.0.0/12'],
      ['192.168.1.10', '192.168.0.0/16'],
      ['100.64.0.5', '100.64.0.0/10'],
      ['fd12::1', 'fc00::/7'],
    ]) {
      expect(gateway.outbound?.refusalOf(address!), address).toMatchObject({ rule });
    }
    expect(gateway.outbound?.refusalOf('93.184.216.34')).toBeNull();
    const operator = readOperatorConfig(resolvedEnv(envOf(container(defaults, `${FULL}-operator`))), new KubeConfig());
    expect(operator.pods.outbound).toEqual({ deny, allow: '' });
    // values.yaml's way to allow every private address: only loopback in deny.
    const loopbackOnly = await render({ outbound: { deny: ['127.0.0.0/8', '::1/128'] } });
    expect(readGatewayConfig(resolvedEnv(envOf(container(loopbackOnly, `${FULL}-gateway`)))).outbound?.refusalOf('10.1.2.3')).toBeNull();

    const privateToo = await render({ outbound: { deny: ['127.0.0.0/8', '10.0.0.0/8', 'fc00::/7'], allow: ['hooks.tools.svc.cluster.local'] } });
    const configured = readGatewayConfig(resolvedEnv(envOf(container(privateToo, `${FULL}-gateway`))));
    expect(configured.outbound?.refusalOf('10.1.2.3')).toMatchObject({ rule: '10.0.0.0/8' });
    expect(configured.outbound?.refusalOf('10.1.2.3', 'hooks.tools.svc.cluster.local')).toBeNull();
    await expect(render({ outbound: { deny: '10.0.0.0/8' } })).rejects.toThrow(/outbound/);
  });

  it('sets no operator env var the operator does not read', async () => {
    const dir = join(repoRoot, 'operator/src');
    const source = readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => readFileSync(join(dir, file), 'utf8'))
      .join('\n');
    const env = Object.keys(envOf(container(await render(), `${FULL}-operator`)));
    const unread = env.filter((name) => !source.includes(name));
    expect(unread).toEqual([]);
  });

  it("NetworkPolicies: engine pods' health port to networkPolicy.engines.metricsFrom only (their /metrics), beside the probes' CIDRs", async () => {
    const prometheus = [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }];
    const engines = async (values: object) => find(await render(values), 'NetworkPolicy', `${FULL}-engines`).spec;
    // Without it, nothing may connect to the engine pods.
    expect((await engines({})).ingress).toEqual([]);
    expect((await engines({ networkPolicy: { engines: { metricsFrom: prometheus } } })).ingress).toEqual([
      { ports: [{ port: 8080, protocol: 'TCP' }], from: prometheus },
    ]);
    expect((await engines({ networkPolicy: { engines: { metricsFrom: prometheus, probeSourceCIDRs: ['10.0.0.0/24'] } } })).ingress).toEqual([
      { ports: [{ port: 8080, protocol: 'TCP' }], from: [{ ipBlock: { cidr: '10.0.0.0/24' } }] },
      { ports: [{ port: 8080, protocol: 'TCP' }], from: prometheus },
    ]);
  });

  it('NetworkPolicies: gateway port open and egress to DNS, NATS, the API server and webhook receivers outside private ranges only, operator port to metricsFrom only, engines egress to DNS, NATS and the internet only, NATS from our pods only', async () => {
    const m = await render(VALUE_SETS['gateway replicas 3']);
    expect(find(m, 'NetworkPolicy', `${FULL}-gateway`).spec.ingress).toEqual([
      { ports: [{ port: 'http', protocol: 'TCP' }], from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress' } } }] },
    ]);
    expect(find(m, 'NetworkPolicy', `${FULL}-operator`).spec).toMatchObject({
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        {
          ports: [{ port: 'http', protocol: 'TCP' }],
          from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
        },
      ],
    });
    // Without metricsFrom, nothing may connect to the operator.
    expect(find(await render(), 'NetworkPolicy', `${FULL}-operator`).spec).toMatchObject({ policyTypes: ['Ingress', 'Egress'], ingress: [] });

    const engines = find(m, 'NetworkPolicy', `${FULL}-engines`).spec;
    // The labels the operator puts on engine pods (operator/src/reconcile/engine-pod-spec.ts).
    expect(engines.podSelector).toEqual({ matchLabels: { 'app.kubernetes.io/name': 'switchboard', 'app.kubernetes.io/component': 'engine' } });
    expect(engines.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(engines.ingress).toEqual([{ ports: [{ port: 8080, protocol: 'TCP' }], from: [{ ipBlock: { cidr: '10.0.0.0/24' } }] }]);
    const [dns, nats, internet, ...engineExtra] = engines.egress;
    expect(engineExtra).toEqual([]);
    expect(dns.ports.map((p: any) => `${p.port}/${p.protocol}`)).toEqual(['53/UDP', '53/TCP']);
    // DNS to the cluster's DNS pods only (not port 53 of any host on the internet), unless emptied.
    expect(dns.to).toEqual([
      {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
        podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
      },
    ]);
    const anyDns = find(await render({ networkPolicy: { dns: { to: [] } } }), 'NetworkPolicy', `${FULL}-engines`).spec.egress[0];
    expect(anyDns).toEqual({ ports: dns.ports });
    const nodeLocal = [{ ipBlock: { cidr: '169.254.20.10/32' } }];
    const toNodeLocal = find(await render({ networkPolicy: { dns: { to: nodeLocal } } }), 'NetworkPolicy', `${FULL}-gateway`).spec.egress[0];
    expect(toNodeLocal).toEqual({ ports: dns.ports, to: nodeLocal });
    expect(nats).toEqual({
      ports: [{ port: 4222, protocol: 'TCP' }],
      to: [
        {
          podSelector: {
            matchLabels: { 'app.kubernetes.io/name': 'switchboard', 'app.kubernetes.io/instance': RELEASE, 'app.kubernetes.io/component': 'nats' },
          },
        },
      ],
    });
    expect(internet.to[0].ipBlock.except).toContain('10.0.0.0/8');
    expect(internet.to[1].ipBlock).toEqual({ cidr: '::/0', except: ['fc00::/7', 'fe80::/10'] });
    // A proxy on a private network, which internetExcept leaves out, let in by one more rule.
    const toProxy = { ports: [{ port: 3128, protocol: 'TCP' }], to: [{ ipBlock: { cidr: '10.1.2.3/32' } }] };
    const withProxy = find(await render({ networkPolicy: { engines: { extraEgress: [toProxy] } } }), 'NetworkPolicy', `${FULL}-engines`).spec.egress;
    expect(withProxy.slice(0, 3)).toEqual([dns, nats, internet]);
    expect(withProxy[3]).toEqual(toProxy);

    const natsFrom = find(m, 'NetworkPolicy', `${FULL}-nats`).spec.ingress[0].from;
    expect(natsFrom.map((peer: any) => peer.podSelector.matchLabels['app.kubernetes.io/component'] ?? peer.podSelector.matchLabels.app)).toEqual([
      'gateway',
      'operator',
      'engine',
      'nats-backup',
    ]);

    const gateway = find(m, 'NetworkPolicy', `${FULL}-gateway`).spec;
    expect(gateway.policyTypes).toEqual(['Ingress', 'Egress']);
    const [gatewayDns, gatewayNats, apiServer, webhooks, ...extra] = gateway.egress;
    expect(gatewayDns).toEqual(dns);
    expect(gatewayNats).toEqual(nats);
    expect(apiServer).toEqual({
      ports: [
        { port: 443, protocol: 'TCP' },
        { port: 6443, protocol: 'TCP' },
      ],
      to: API_SERVER_TO,
    });
    expect(webhooks).toEqual({
      ports: [
        { port: 443, protocol: 'TCP' },
        { port: 80, protocol: 'TCP' },
      ],
      to: [
        { ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16'] } },
        { ipBlock: { cidr: '::/0', except: ['fc00::/7', 'fe80::/10'] } },
      ],
    });
    expect(extra).toEqual([]);
    // The operator: DNS, NATS and the same API server as the gateway, nothing else (extraEgress for more).
    expect(find(m, 'NetworkPolicy', `${FULL}-operator`).spec.egress).toEqual([dns, nats, apiServer]);
    const toIssuer = { ports: [{ port: 443, protocol: 'TCP' }], to: [{ ipBlock: { cidr: '10.9.9.9/32' } }] };
    const operatorExtra = find(await render({ networkPolicy: { operator: { extraEgress: [toIssuer] } } }), 'NetworkPolicy', `${FULL}-operator`);
    expect(operatorExtra.spec.egress).toEqual([dns, nats, apiServer, toIssuer]);
    const narrowed = find(
      await render({
        networkPolicy: {
          gateway: {
            apiServer: { ports: [6443], to: [{ ipBlock: { cidr: '172.18.0.2/32' } }] },
            webhookPorts: [8443],
            extraEgress: [{ ports: [{ port: 8080, protocol: 'TCP' }], to: [{ namespaceSelector: { matchLabels: { team: 'hooks' } } }] }],
          },
        },
      }),
      'NetworkPolicy',
      `${FULL}-gateway`,
    ).spec.egress;
    expect(narrowed[2]).toEqual({ ports: [{ port: 6443, protocol: 'TCP' }], to: [{ ipBlock: { cidr: '172.18.0.2/32' } }] });
    expect(narrowed[3].ports).toEqual([{ port: 8443, protocol: 'TCP' }]);
    expect(narrowed[4]).toEqual({ ports: [{ port: 8080, protocol: 'TCP' }], to: [{ namespaceSelector: { matchLabels: { team: 'hooks' } } }] });
    // With an external NATS, the gateway may reach its ports as engine pods do.
    const external = find(await render(VALUE_SETS['bundled NATS off']), 'NetworkPolicy', `${FULL}-gateway`).spec.egress;
    expect(external[1]).toEqual({
      ports: [
        { port: 4222, protocol: 'TCP' },
        { port: 7422, protocol: 'TCP' },
      ],
    });

    const off = await render(VALUE_SETS['network policies off']);
    expect(off.filter((x) => x.kind === 'NetworkPolicy')).toEqual([]);
  });

  it("NetworkPolicies: the gateway's API server egress always names where the API server is; with no cluster to look it up in, the chart asks for it", async () => {
    // Every value set with policies: the rule has a `to`, so 443 is never open to every address
    // (which would cancel webhookExcept on the same port).
    for (const [name, values] of Object.entries(VALUE_SETS)) {
      const policy = (await render(values)).find((m) => m.kind === 'NetworkPolicy' && m.metadata.name === `${FULL}-gateway`);
      if (!policy) continue;
      const toApiServer = policy.spec.egress.filter(
        (rule: any) => rule.ports.some((p: any) => p.port === 6443 || p.port === 443) && !rule.to?.[0]?.ipBlock?.except,
      );
      expect(toApiServer.length, name).toBeGreaterThan(0);
      for (const rule of toApiServer)
        expect(rule.to, name).toEqual(expect.arrayContaining([expect.objectContaining({ ipBlock: expect.anything() })]));
    }
    // helm template has no cluster: the `kubernetes` endpoints cannot be looked up, so the value is required.
    const message = "networkPolicy.gateway.apiServer.to is empty and the API server's address could not be looked up";
    for (const args of [[], ['--set-json', 'networkPolicy.gateway.apiServer.to=[]']]) {
      const r = await helm.run(['template', RELEASE, chartDir, '--namespace', NS, ...args]);
      expect(r.code, args.join(' ')).not.toBe(0);
      expect(r.stderr).toContain(message);
      expect(r.stderr).toContain('networkPolicy.enabled=false');
    }
    // Without policies there is nothing to ask for.
    const off = await helm.run(['template', RELEASE, chartDir, '--namespace', NS, '--set', 'networkPolicy.enabled=false']);
    expect(off.code, off.stderr).toBe(0);
  });
});
