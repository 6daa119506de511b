import { ANNOTATIONS, LABELS } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { ENGINE_OWN_ENV } from '../src/config.js';
import { buildEnginePod, POD_TEMPLATE_HASH, replacementReason } from '../src/reconcile/engine-pod-spec.js';
import { sessionResource, settings } from './fixtures.js';

const envOf = (pod: ReturnType<typeof buildEnginePod>) =>
  Object.fromEntries(pod.spec!.containers[0]!.env!.map((e) => [e.name, e.value ?? e.valueFrom]));

describe('engine pod spec', () => {
  it('is named after the resource and controlled by it, with the engine labels', () => {
    const pod = buildEnginePod(sessionResource(), settings);
    expect(pod.metadata).toMatchObject({
      name: 'engine-s1',
      namespace: 'ns1',
      labels: { [LABELS.app]: 'switchboard', [LABELS.component]: 'engine', [LABELS.session]: 's1' },
    });
    expect(pod.metadata!.ownerReferences).toEqual([
      { apiVersion: 'switchboard.dev/v1alpha1', kind: 'MessagingSession', name: 's1', uid: 'uid-1', controller: true, blockOwnerDeletion: true },
    ]);
  });

  it('runs one container "engine" with the session, engine, NATS, pod name, metadata, apps and health port', () => {
    const apps = [{ app: 'calls', enabled: true, config: { dm: { reject: true, message: 'busy' }, group: { reject: false } } }];
    const resource = sessionResource({ name: 's-abc', spec: { session: 'My_Session', config: { metadata: { team: 'a' } }, apps } });
    const pod = buildEnginePod(resource, settings);
    expect(pod.spec!.containers.map((c) => c.name)).toEqual(['engine']);
    expect(envOf(pod)).toEqual({
      SWITCHBOARD_SESSION: 'My_Session',
      SWITCHBOARD_ENGINE: 'SANDBOX',
      SWITCHBOARD_NATS_URL: 'nats://nats:4222',
      SWITCHBOARD_POD_NAME: { fieldRef: { fieldPath: 'metadata.name' } },
      SWITCHBOARD_POD_UID: { fieldRef: { fieldPath: 'metadata.uid' } },
      SWITCHBOARD_METADATA: '{"team":"a"}',
      SWITCHBOARD_APPS: JSON.stringify(apps),
      SWITCHBOARD_HEALTH_PORT: '8080',
      NODE_OPTIONS: '--max-semi-space-size=1 --max-old-space-size=96',
    });
  });

  it('socket engines get the engine image, browser engines the browser image; each engine its own resources', () => {
    const container = (engine: string) => buildEnginePod(sessionResource({ spec: { engine } }), settings).spec!.containers[0]!;
    expect(container('SANDBOX').image).toBe(settings.engineImage);
    expect(container('SANDBOX').resources).toEqual({ requests: { cpu: '10m', memory: '64Mi' }, limits: { memory: '128Mi' } });
    expect(container('NOWEB').image).toBe(settings.engineImage);
    expect(container('NOWEB').resources).toEqual({ requests: { cpu: '50m', memory: '96Mi' }, limits: { memory: '256Mi' } });
    expect(container('WEBJS').image).toBe(settings.browserEngineImage);
    expect(container('WEBJS').resources).toEqual({ requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '1536Mi' } });
  });

  it("GOWS gets the Go engine's own image when the release names one, else the socket engines' image (whose Node pod runs it as a child)", () => {
    const gows = (podSettings: typeof settings) => buildEnginePod(sessionResource({ spec: { engine: 'GOWS' } }), podSettings).spec!.containers[0]!;
    expect(gows({ ...settings, gowsEngineImage: 'ghcr.io/switchboard/gows:1' }).image).toBe('ghcr.io/switchboard/gows:1');
    expect(gows(settings).image).toBe(settings.engineImage);
    // The pod spec is the same otherwise: the image's own entry point runs `switchboard-gows nats`.
    expect(gows({ ...settings, gowsEngineImage: 'ghcr.io/switchboard/gows:1' })).not.toHaveProperty('command');
  });

  it("gets the release's image pull secrets, and none without them", () => {
    const pulled = buildEnginePod(sessionResource({ spec: { engine: 'WEBJS' } }), { ...settings, imagePullSecrets: ['regcred', 'mirror'] });
    expect(pulled.spec!.imagePullSecrets).toEqual([{ name: 'regcred' }, { name: 'mirror' }]);
    expect(buildEnginePod(sessionResource(), settings).spec!).not.toHaveProperty('imagePullSecrets');
  });

  it('pull secrets, once named, replace a pod made without them (one stuck pulling gets them); none keep the older hash', () => {
    const before = buildEnginePod(sessionResource(), settings);
    expect(replacementReason(before, buildEnginePod(sessionResource(), { ...settings, imagePullSecrets: ['regcred'] }))).toMatch(/changed/);
    expect(replacementReason(before, buildEnginePod(sessionResource(), { ...settings, imagePullSecrets: [] }))).toBeNull();
  });

  it("with NATS authentication, reads SWITCHBOARD_NATS_CREDS from its resource's own Secret, or from the one every pod shares", () => {
    const minted = buildEnginePod(sessionResource({ name: 's-abc' }), { ...settings, natsCredentials: { kind: 'per-session' } });
    // nats3: users minted before each session had its own object stores (2) or its send queue keys (3) may not use them.
    expect(envOf(minted).SWITCHBOARD_NATS_CREDS).toEqual({ secretKeyRef: { name: 'engine-s-abc-nats3-uid-1', key: 'nats.creds' } });
    const shared = buildEnginePod(sessionResource(), { ...settings, natsCredentials: { kind: 'shared', secret: 'nats-creds', key: 'engine.creds' } });
    expect(envOf(shared).SWITCHBOARD_NATS_CREDS).toEqual({ secretKeyRef: { name: 'nats-creds', key: 'engine.creds' } });
    expect(envOf(buildEnginePod(sessionResource(), settings))).not.toHaveProperty('SWITCHBOARD_NATS_CREDS');
  });

  it('probes /readyz every 2 s and /healthz, on port 8080', () => {
    const container = buildEnginePod(sessionResource(), settings).spec!.containers[0]!;
    expect(container.readinessProbe).toMatchObject({ httpGet: { path: '/readyz', port: 8080 }, periodSeconds: 2 });
    expect(container.livenessProbe).toMatchObject({ httpGet: { path: '/healthz', port: 8080 } });
  });

  it.each(['SANDBOX', 'NOWEB', 'WEBJS'])(
    '%s: a startup probe allows 90 s for /healthz (over 6 times the slowest start measured on a loaded machine); liveness then checks it with no initial delay and 10 s to answer',
    (engine) => {
      const container = buildEnginePod(sessionResource({ spec: { engine } }), settings).spec!.containers[0]!;
      const startup = container.startupProbe!;
      expect(startup.httpGet).toEqual({ path: '/healthz', port: 8080 });
      expect(startup.periodSeconds! * startup.failureThreshold!).toBe(90);
      expect(container.livenessProbe).toEqual({
        httpGet: { path: '/healthz', port: 8080 },
        periodSeconds: 15,
        timeoutSeconds: 10,
        failureThreshold: 3,
      });
      expect(container.readinessProbe!.timeoutSeconds).toBe(5);
    },
  );

  it('meets the restricted Pod Security Standard', () => {
    const pod = buildEnginePod(sessionResource(), settings);
    expect(pod.spec).toMatchObject({
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      securityContext: { runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: 'RuntimeDefault' } },
    });
    expect(pod.spec!.containers[0]!.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 10001,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
  });

  it("sizes a GOWS pod's /tmp for two received files at the media limit (its spool), the engines' SWITCHBOARD_MEDIA_MAX_BYTES or the default", () => {
    const tmp = (engine: string, extraEnv?: { name: string; value: string }[]) =>
      buildEnginePod(sessionResource({ spec: { engine } }), { ...settings, ...(extraEnv ? { extraEnv } : {}) }).spec!.volumes!.find(
        (v) => v.name === 'tmp',
      )!.emptyDir!.sizeLimit;
    expect(tmp('GOWS')).toBe('264Mi');
    expect(tmp('GOWS', [{ name: 'SWITCHBOARD_MEDIA_MAX_BYTES', value: String(10 * 1024 * 1024) }])).toBe('84Mi');
    expect(tmp('NOWEB', [{ name: 'SWITCHBOARD_MEDIA_MAX_BYTES', value: String(10 * 1024 * 1024) }])).toBe('64Mi');
    expect(tmp('SANDBOX')).toBe('64Mi');
  });

  it('copies the restart annotation onto the pod', () => {
    const resource = sessionResource({ annotations: { [ANNOTATIONS.restartedAt]: '2026-11-21T10:00:00Z' } });
    expect(buildEnginePod(resource, settings).metadata!.annotations![ANNOTATIONS.podRestartedAt]).toBe('2026-11-21T10:00:00Z');
    expect(buildEnginePod(sessionResource(), settings).metadata!.annotations).not.toHaveProperty(ANNOTATIONS.podRestartedAt);
  });

  it('is pure: the same resource gives the same pod', () => {
    expect(buildEnginePod(sessionResource(), settings)).toEqual(buildEnginePod(sessionResource(), settings));
  });
});

describe('engine pod placement', () => {
  const placed = {
    ...settings,
    placement: {
      socket: { nodeSelector: { pool: 'engines' }, tolerations: [{ key: 'engines', operator: 'Exists' as const, effect: 'NoSchedule' as const }] },
      browser: { nodeSelector: { pool: 'browsers' }, tolerations: [] },
    },
  };

  it('a socket engine gets the socket nodeSelector and tolerations; a browser engine the browser ones', () => {
    const socket = buildEnginePod(sessionResource(), placed);
    expect(socket.spec!.nodeSelector).toEqual({ pool: 'engines' });
    expect(socket.spec!.tolerations).toEqual([{ key: 'engines', operator: 'Exists', effect: 'NoSchedule' }]);
    const browser = buildEnginePod(sessionResource({ spec: { engine: 'WEBJS' } }), placed);
    expect(browser.spec!.nodeSelector).toEqual({ pool: 'browsers' });
    expect(browser.spec!).not.toHaveProperty('tolerations');
  });

  it('without placement settings the pod may run anywhere', () => {
    const pod = buildEnginePod(sessionResource(), settings);
    expect(pod.spec!).not.toHaveProperty('nodeSelector');
    expect(pod.spec!).not.toHaveProperty('tolerations');
  });

  it('a change of placement replaces the pod', () => {
    const before = buildEnginePod(sessionResource(), settings);
    expect(replacementReason(before, buildEnginePod(sessionResource(), placed))).toMatch(/changed/);
  });
});

describe('engine pod replacement', () => {
  const running = buildEnginePod(sessionResource(), settings);

  it('a pod built from the same resource is kept', () => {
    expect(replacementReason(running, buildEnginePod(sessionResource(), settings))).toBeNull();
  });

  it('marks an engine pod for scraping at its health port; the marks replace no pod made without them', () => {
    const scrape = { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '8080', 'prometheus.io/path': '/metrics' };
    expect(running.metadata!.annotations).toMatchObject(scrape);
    expect(running.spec!.containers[0]!.ports).toEqual([{ name: 'health', containerPort: 8080, protocol: 'TCP' }]);
    const { 'prometheus.io/scrape': _scrape, 'prometheus.io/port': _port, 'prometheus.io/path': _path, ...older } = running.metadata!.annotations!;
    expect(Object.keys(older)).toEqual([POD_TEMPLATE_HASH]);
    const madeBefore = { ...running, metadata: { ...running.metadata, annotations: older } };
    expect(replacementReason(madeBefore, buildEnginePod(sessionResource(), settings))).toBeNull();
    // The Go engine's own pod serves the same series (natshost/metrics.go), on the same port.
    const goPod = buildEnginePod(sessionResource({ spec: { engine: 'GOWS' } }), { ...settings, gowsEngineImage: 'gows:1' });
    expect(goPod.metadata!.annotations).toMatchObject(scrape);
  });

  it('a new restarted-at annotation replaces the pod', () => {
    const restarted = sessionResource({ annotations: { [ANNOTATIONS.restartedAt]: '2026-11-21T11:00:00Z' } });
    expect(replacementReason(running, buildEnginePod(restarted, settings))).toMatch(/restart requested/);
  });

  it('another engine replaces the pod; metadata alone does not (it is sent to the running engine)', () => {
    expect(replacementReason(running, buildEnginePod(sessionResource({ spec: { engine: 'NOWEB' } }), settings))).toMatch(/engine/);
    const metadata = sessionResource({ spec: { config: { metadata: { team: 'b' } } } });
    expect(replacementReason(running, buildEnginePod(metadata, settings))).toBeNull();
    expect(running.metadata!.annotations![POD_TEMPLATE_HASH]).toMatch(/^[0-9a-f]{16}$/);
  });

  it('passes the gateway base URL for media.url only when configured, so older pods keep their hash', () => {
    expect(envOf(buildEnginePod(sessionResource(), settings))).not.toHaveProperty('SWITCHBOARD_BASE_URL');
    const withBase = buildEnginePod(sessionResource(), { ...settings, baseUrl: 'https://api.example.com' });
    expect(envOf(withBase).SWITCHBOARD_BASE_URL).toBe('https://api.example.com');
  });

  it('passes the outbound address policy for files sent by URL only when configured, so older pods keep their hash', () => {
    expect(envOf(buildEnginePod(sessionResource(), settings))).not.toHaveProperty('SWITCHBOARD_OUTBOUND_DENY');
    const pod = buildEnginePod(sessionResource(), { ...settings, outbound: { deny: '127.0.0.0/8,::1/128', allow: '' } });
    expect(envOf(pod)).toMatchObject({ SWITCHBOARD_OUTBOUND_DENY: '127.0.0.0/8,::1/128', SWITCHBOARD_OUTBOUND_ALLOW: '' });
  });

  it('passes the config engine settings as JSON only when there are some; a change replaces the pod', () => {
    const plain = buildEnginePod(sessionResource({ spec: { engine: 'NOWEB' } }), settings);
    expect(envOf(plain)).not.toHaveProperty('SWITCHBOARD_ENGINE_SETTINGS');
    const proxied = buildEnginePod(
      sessionResource({ spec: { engine: 'NOWEB', config: { proxy: { server: 'proxy:3128' }, metadata: { a: 'b' } } } }),
      settings,
    );
    expect(JSON.parse(envOf(proxied).SWITCHBOARD_ENGINE_SETTINGS as string)).toEqual({ proxy: { server: 'proxy:3128' } });
    expect(replacementReason(plain, proxied)).not.toBeNull();
  });

  it("gives the engine the proxy's password from the Secret the resource names: the pod spec holds no password", () => {
    const passwordFrom = { secretKeyRef: { name: 's1-webhook-secrets', key: 'proxy-password' } };
    const proxy = { server: 'proxy:3128', username: 'u', passwordFrom };
    const pod = buildEnginePod(sessionResource({ spec: { engine: 'NOWEB', config: { proxy } } }), settings);
    const env = pod.spec!.containers[0]!.env!;
    expect(env.find((e) => e.name === 'SWITCHBOARD_PROXY_PASSWORD')).toEqual({ name: 'SWITCHBOARD_PROXY_PASSWORD', valueFrom: passwordFrom });
    expect(JSON.parse(envOf(pod).SWITCHBOARD_ENGINE_SETTINGS as string)).toEqual({ proxy: { server: 'proxy:3128', username: 'u' } });
    expect(env.every((e) => e.value === undefined || !e.value.includes('password'))).toBe(true);
    // Another Secret (a kubectl user's) is another pod: the engine takes it at start.
    const other = { ...proxy, passwordFrom: { secretKeyRef: { name: 'my-proxy', key: 'password' } } };
    expect(replacementReason(pod, buildEnginePod(sessionResource({ spec: { engine: 'NOWEB', config: { proxy: other } } }), settings))).not.toBeNull();
  });

  it('passes the NOWEB connection attempts to NOWEB pods only, and only when configured', () => {
    const noweb = sessionResource({ spec: { engine: 'NOWEB' } });
    expect(envOf(buildEnginePod(noweb, settings))).not.toHaveProperty('SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS');
    expect(envOf(buildEnginePod(noweb, { ...settings, nowebConnectAttempts: 4 })).SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS).toBe('4');
    expect(envOf(buildEnginePod(sessionResource(), { ...settings, nowebConnectAttempts: 4 }))).not.toHaveProperty(
      'SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS',
    );
  });

  it('passes the silence timeout to NOWEB and GOWS pods only, and only when configured', () => {
    const noweb = sessionResource({ spec: { engine: 'NOWEB' } });
    const gows = sessionResource({ spec: { engine: 'GOWS' } });
    expect(envOf(buildEnginePod(noweb, settings))).not.toHaveProperty('SWITCHBOARD_SILENCE_TIMEOUT_MS');
    expect(envOf(buildEnginePod(noweb, { ...settings, silenceTimeoutMs: 5_000 })).SWITCHBOARD_SILENCE_TIMEOUT_MS).toBe('5000');
    expect(envOf(buildEnginePod(gows, { ...settings, silenceTimeoutMs: 5_000 })).SWITCHBOARD_SILENCE_TIMEOUT_MS).toBe('5000');
    expect(envOf(buildEnginePod(sessionResource(), { ...settings, silenceTimeoutMs: 5_000 }))).not.toHaveProperty('SWITCHBOARD_SILENCE_TIMEOUT_MS');
  });

  it("gives each socket engine's pods the release's client version for that engine, only when set, and replaces them when it changes", () => {
    const clientVersions = { NOWEB: '2.3000.1', GOWS: '2.3000.2' };
    const noweb = sessionResource({ spec: { engine: 'NOWEB' } });
    const plain = buildEnginePod(noweb, settings);
    expect(envOf(plain)).not.toHaveProperty('SWITCHBOARD_NOWEB_CLIENT_VERSION');
    const pinned = buildEnginePod(noweb, { ...settings, clientVersions });
    expect(envOf(pinned).SWITCHBOARD_NOWEB_CLIENT_VERSION).toBe('2.3000.1');
    expect(envOf(pinned)).not.toHaveProperty('SWITCHBOARD_GOWS_CLIENT_VERSION');
    expect(
      envOf(buildEnginePod(sessionResource({ spec: { engine: 'GOWS' } }), { ...settings, clientVersions })).SWITCHBOARD_GOWS_CLIENT_VERSION,
    ).toBe('2.3000.2');
    expect(envOf(buildEnginePod(sessionResource(), { ...settings, clientVersions }))).not.toHaveProperty('SWITCHBOARD_NOWEB_CLIENT_VERSION');
    expect(replacementReason(plain, pinned)).not.toBeNull();
    expect(
      replacementReason(pinned, buildEnginePod(noweb, { ...settings, clientVersions: { ...clientVersions, NOWEB: '2.3000.3' } })),
    ).not.toBeNull();
  });

  it('adds the release extra env last and uses its pull policy, only when set, so older pods keep their hash', () => {
    const extraEnv = [
      { name: 'SWITCHBOARD_NOWEB_WS_URL', value: 'ws://10.0.0.1:4000/ws/chat' },
      { name: 'SWITCHBOARD_SANDBOX_QR_RENEW_MS', value: '2000' },
    ];
    const pod = buildEnginePod(sessionResource(), { ...settings, extraEnv, pullPolicy: 'Never' });
    const container = pod.spec!.containers[0]!;
    expect(container.env!.slice(-2)).toEqual(extraEnv);
    expect(container.imagePullPolicy).toBe('Never');
    expect(replacementReason(running, pod)).not.toBeNull();
    const plain = buildEnginePod(sessionResource(), settings);
    expect(plain.spec!.containers[0]!.imagePullPolicy).toBe('IfNotPresent');
    expect(replacementReason(running, plain)).toBeNull();
  });

  it('ENGINE_OWN_ENV names every variable the operator sets, so extra env can override none of them', () => {
    const proxy = { server: 'proxy:3128', username: 'u', passwordFrom: { secretKeyRef: { name: 'p', key: 'k' } } };
    const everything = buildEnginePod(sessionResource({ spec: { engine: 'NOWEB', config: { proxy, sending: { perMinute: 5, maxQueued: 10 } } } }), {
      ...settings,
      natsCredentials: { kind: 'per-session' },
      baseUrl: 'https://api.example.com',
      nowebConnectAttempts: 3,
      clientVersions: { NOWEB: '2.3000.1' },
      silenceTimeoutMs: 5_000,
      outbound: { deny: '127.0.0.0/8', allow: '' },
    });
    // The Go engine's pod sets Go's memory limit where a Node pod sets NODE_OPTIONS.
    const goPod = buildEnginePod(sessionResource({ spec: { engine: 'GOWS' } }), {
      ...settings,
      gowsEngineImage: 'gows:1',
      clientVersions: { GOWS: '2.3000.2' },
    });
    const names = new Set([everything, goPod].flatMap((pod) => pod.spec!.containers[0]!.env!.map((e) => e.name)));
    expect([...names].sort()).toEqual([...ENGINE_OWN_ENV].sort());
  });

  it("runs each engine's node with a young generation sized for one session and an old generation held below the pod's memory limit", () => {
    const noweb = envOf(buildEnginePod(sessionResource({ spec: { engine: 'NOWEB' } }), settings)).NODE_OPTIONS;
    expect(noweb).toContain('--max-semi-space-size=1');
    // 3/4 of NOWEB's limit, in MiB.
    const nowebLimit = settings.resources.NOWEB.limits.memory;
    expect(noweb).toContain(`--max-old-space-size=${Math.floor((Number.parseInt(nowebLimit, 10) * 3) / 4)}`);
    expect(nowebLimit).toMatch(/^\d+Mi$/);
    // A release that raises the limit raises the old generation's with it; the pod is replaced once.
    const raised = { ...settings, resources: { ...settings.resources, NOWEB: { ...settings.resources.NOWEB, limits: { memory: '2Gi' } } } };
    const bigger = buildEnginePod(sessionResource({ spec: { engine: 'NOWEB' } }), raised);
    expect(envOf(bigger).NODE_OPTIONS).toContain('--max-old-space-size=1536');
    expect(replacementReason(buildEnginePod(sessionResource({ spec: { engine: 'NOWEB' } }), settings), bigger)).not.toBeNull();
  });

  it("gives the Go engine's pod a Go soft memory limit at 4/5 of its memory limit, and no NODE_OPTIONS; GOWS in a Node pod gets V8's", () => {
    const goSettings = { ...settings, gowsEngineImage: 'gows:1' };
    const goEnv = envOf(buildEnginePod(sessionResource({ spec: { engine: 'GOWS' } }), goSettings));
    // The fixture's GOWS limit is 192Mi: 4/5 of it, in whole MiB.
    expect(settings.resources.GOWS.limits.memory).toBe('192Mi');
    expect(goEnv.GOMEMLIMIT).toBe('153MiB');
    expect(goEnv).not.toHaveProperty('NODE_OPTIONS');
    const raised = { ...goSettings, resources: { ...settings.resources, GOWS: { ...settings.resources.GOWS, limits: { memory: '1Gi' } } } };
    expect(envOf(buildEnginePod(sessionResource({ spec: { engine: 'GOWS' } }), raised)).GOMEMLIMIT).toBe('819MiB');
    const nodeHosted = envOf(buildEnginePod(sessionResource({ spec: { engine: 'GOWS' } }), settings));
    expect(nodeHosted).not.toHaveProperty('GOMEMLIMIT');
    expect(nodeHosted.NODE_OPTIONS).toContain('--max-old-space-size=96');
  });

  it('passes paced sending as SWITCHBOARD_SENDING only when set; a change does not replace the pod (it is sent to the running engine)', () => {
    expect(envOf(running)).not.toHaveProperty('SWITCHBOARD_SENDING');
    const paced = buildEnginePod(sessionResource({ spec: { config: { sending: { perMinute: 5, maxQueued: 10 } } } }), settings);
    expect(JSON.parse(envOf(paced).SWITCHBOARD_SENDING as string)).toEqual({ perMinute: 5, maxQueued: 10 });
    expect(replacementReason(running, paced)).toBeNull();
  });

  it('apps alone do not replace the pod either (they are sent to the running engine)', () => {
    const apps = sessionResource({ spec: { apps: [{ app: 'calls', enabled: true, config: { dm: { reject: true }, group: { reject: true } } }] } });
    expect(replacementReason(running, buildEnginePod(apps, settings))).toBeNull();
  });
});
