import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../src/config.js';
import { DEFAULT_ENGINE_RESOURCES, NODE_HOSTED_GOWS_RESOURCES } from '../src/engine-resources.js';

const kubeConfig = new KubeConfig();
const required = {
  SWITCHBOARD_NATS_URL: 'nats://nats:4222',
  SWITCHBOARD_ENGINE_IMAGE: 'engine:1',
  SWITCHBOARD_BROWSER_ENGINE_IMAGE: 'engine-browser:1',
};

describe('operator configuration', () => {
  it('has the documented defaults', () => {
    const config = readConfig(required, kubeConfig);
    expect(config).toMatchObject({
      namespace: 'default',
      natsUrl: 'nats://nats:4222',
      leaseName: 'switchboard-operator',
      logLevel: 'info',
      httpPort: 8080,
      pods: {
        engineImage: 'engine:1',
        browserEngineImage: 'engine-browser:1',
        // No Go engine image: GOWS runs in the Node pod, sized as such.
        resources: { ...DEFAULT_ENGINE_RESOURCES, GOWS: NODE_HOSTED_GOWS_RESOURCES },
      },
    });
    expect(config.pods.imagePullSecrets).toBeUndefined();
    // No image of the Go engine: GOWS pods run the socket engines' image.
    expect(config.pods.gowsEngineImage).toBeUndefined();
    const withGoImage = readConfig({ ...required, SWITCHBOARD_GOWS_ENGINE_IMAGE: 'gows:1' }, kubeConfig).pods;
    expect(withGoImage.gowsEngineImage).toBe('gows:1');
    expect(withGoImage.resources).toEqual(DEFAULT_ENGINE_RESOURCES);
    // What a release sets is kept either way.
    const sized = readConfig({ ...required, SWITCHBOARD_ENGINE_RESOURCES: '{"GOWS":{"limits":{"memory":"1Gi"}}}' }, kubeConfig).pods.resources.GOWS;
    expect(sized).toEqual({ requests: NODE_HOSTED_GOWS_RESOURCES.requests, limits: { memory: '1Gi' } });
    expect(config.identity).toMatch(/_\d+$/);
    expect(config.kubeConfig).toBe(kubeConfig);
  });

  it('takes every setting from its variable', () => {
    const config = readConfig(
      {
        ...required,
        SWITCHBOARD_NAMESPACE: 'sessions',
        SWITCHBOARD_IDENTITY: 'operator-0',
        SWITCHBOARD_LEASE_NAME: 'my-lease',
        SWITCHBOARD_ENGINE_RESOURCES: '{"WEBJS":{"limits":{"memory":"3Gi"}}}',
        SWITCHBOARD_LOG_LEVEL: 'debug',
        SWITCHBOARD_HTTP_PORT: '9090',
      },
      kubeConfig,
    );
    expect(config).toMatchObject({ namespace: 'sessions', identity: 'operator-0', leaseName: 'my-lease', logLevel: 'debug', httpPort: 9090 });
    expect(config.pods.resources.WEBJS.limits.memory).toBe('3Gi');
  });

  it('engine resources: per engine, each field over its measured default, a memory request above its limit refused by engine', () => {
    const resources = readConfig(
      { ...required, SWITCHBOARD_ENGINE_RESOURCES: '{"NOWEB":{"requests":{"cpu":"100m"},"limits":{"memory":"1Gi"}},"SANDBOX":{}}' },
      kubeConfig,
    ).pods.resources;
    expect(resources.NOWEB).toEqual({ requests: { cpu: '100m', memory: DEFAULT_ENGINE_RESOURCES.NOWEB.requests.memory }, limits: { memory: '1Gi' } });
    expect(resources.SANDBOX).toEqual(DEFAULT_ENGINE_RESOURCES.SANDBOX);
    expect(resources.WEBJS).toEqual(DEFAULT_ENGINE_RESOURCES.WEBJS);

    const refused = (value: string) => () => readConfig({ ...required, SWITCHBOARD_ENGINE_RESOURCES: value }, kubeConfig);
    expect(refused('{"NOWEB":{"requests":{"memory":"2Gi"},"limits":{"memory":"1Gi"}}}')).toThrow(
      'SWITCHBOARD_ENGINE_RESOURCES: NOWEB: the memory request (2Gi) is above the memory limit (1Gi)',
    );
    expect(refused('{"WEBJS":{"limits":{"memory":"500M"}}}')).toThrow(/WEBJS: the memory request \(1Gi\) is above the memory limit \(500M\)/);
    expect(refused('{"TELEGRAM":{}}')).toThrow(/SWITCHBOARD_ENGINE_RESOURCES/);
    expect(refused('{"NOWEB":{"limits":{"cpu":"1"}}}')).toThrow(/SWITCHBOARD_ENGINE_RESOURCES/);
    expect(refused('{"NOWEB":{"requests":{"memory":"lots"}}}')).toThrow(/SWITCHBOARD_ENGINE_RESOURCES.*a Kubernetes quantity/);
    expect(refused('NOWEB=1Gi')).toThrow(/SWITCHBOARD_ENGINE_RESOURCES: must be JSON/);
  });

  it('the per-kind resource variables of earlier versions are refused by name, not silently ignored', () => {
    const read = () => readConfig({ ...required, SWITCHBOARD_SOCKET_MEMORY_LIMIT: '256Mi', SWITCHBOARD_BROWSER_CPU_REQUEST: '1' }, kubeConfig);
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(/SWITCHBOARD_SOCKET_MEMORY_LIMIT, SWITCHBOARD_BROWSER_CPU_REQUEST: no longer read; set SWITCHBOARD_ENGINE_RESOURCES/);
  });

  it('image pull secrets for engine pods: a JSON list of Secret names, each once', () => {
    const read = (value: string) => readConfig({ ...required, SWITCHBOARD_ENGINE_IMAGE_PULL_SECRETS: value }, kubeConfig).pods.imagePullSecrets;
    expect(read('["regcred","mirror-creds"]')).toEqual(['regcred', 'mirror-creds']);
    expect(read('[]')).toBeUndefined();
    expect(() => read('["Reg_Cred"]')).toThrow(/SWITCHBOARD_ENGINE_IMAGE_PULL_SECRETS.*a Secret name/);
    expect(() => read('["regcred","regcred"]')).toThrow(/SWITCHBOARD_ENGINE_IMAGE_PULL_SECRETS.*each Secret at most once/);
    expect(() => read('regcred')).toThrow(/SWITCHBOARD_ENGINE_IMAGE_PULL_SECRETS: must be JSON/);
  });

  it('reads engine placement as JSON: node selectors and tolerations per engine kind', () => {
    const config = readConfig(
      {
        ...required,
        SWITCHBOARD_SOCKET_NODE_SELECTOR: '{"pool":"engines"}',
        SWITCHBOARD_SOCKET_TOLERATIONS: '[{"key":"engines","operator":"Exists","effect":"NoSchedule"}]',
      },
      kubeConfig,
    );
    expect(config.pods.placement).toEqual({
      socket: { nodeSelector: { pool: 'engines' }, tolerations: [{ key: 'engines', operator: 'Exists', effect: 'NoSchedule' }] },
      browser: { nodeSelector: {}, tolerations: [] },
    });
    const bad = () => readConfig({ ...required, SWITCHBOARD_BROWSER_TOLERATIONS: '[{"effect":"Sometimes"}]' }, kubeConfig);
    expect(bad).toThrow(/SWITCHBOARD_BROWSER_TOLERATIONS/);
    expect(() => readConfig({ ...required, SWITCHBOARD_SOCKET_NODE_SELECTOR: 'pool=engines' }, kubeConfig)).toThrow(
      /SWITCHBOARD_SOCKET_NODE_SELECTOR: must be JSON/,
    );
  });

  it('reads the gateway base URL for engine pods, without its trailing slash, and refuses a non-http one', () => {
    expect(readConfig({ ...required, SWITCHBOARD_BASE_URL: 'https://api.example.com/' }, kubeConfig).pods.baseUrl).toBe('https://api.example.com');
    expect(readConfig(required, kubeConfig).pods.baseUrl).toBeUndefined();
    expect(() => readConfig({ ...required, SWITCHBOARD_BASE_URL: 'ftp://x' }, kubeConfig)).toThrow(/SWITCHBOARD_BASE_URL/);
  });

  it('reads the outbound address policy for engine pods, refusing a bad entry by name, unset by default', () => {
    expect(readConfig(required, kubeConfig).pods.outbound).toBeUndefined();
    const pods = readConfig({ ...required, SWITCHBOARD_OUTBOUND_DENY: ' 127.0.0.0/8,::1/128 ', SWITCHBOARD_OUTBOUND_ALLOW: '' }, kubeConfig).pods;
    expect(pods.outbound).toEqual({ deny: '127.0.0.0/8,::1/128', allow: '' });
    expect(() => readConfig({ ...required, SWITCHBOARD_OUTBOUND_DENY: '10.0.0.0/8,bad host' }, kubeConfig)).toThrow(
      'SWITCHBOARD_OUTBOUND_DENY: "bad host" is neither a CIDR, an IP address nor a host name',
    );
  });

  it('reads the NATS replicas (1 to 5), 1 by default, and refuses others naming the variable', () => {
    expect(readConfig(required, kubeConfig).natsReplicas).toBe(1);
    expect(readConfig({ ...required, SWITCHBOARD_NATS_REPLICAS: '3' }, kubeConfig).natsReplicas).toBe(3);
    for (const bad of ['0', '6', '2.5', 'three']) {
      expect(() => readConfig({ ...required, SWITCHBOARD_NATS_REPLICAS: bad }, kubeConfig)).toThrow(/SWITCHBOARD_NATS_REPLICAS/);
    }
  });

  it('reads the NATS seed (a server tag in lower case), unset by default, and refuses others naming the variable', () => {
    expect(readConfig(required, kubeConfig).natsSeed).toBeUndefined();
    expect(readConfig({ ...required, SWITCHBOARD_NATS_SEED: 'sb-switchboard-nats-0' }, kubeConfig).natsSeed).toBe('sb-switchboard-nats-0');
    for (const bad of ['Nats-0', 'nats 0', '-nats']) {
      expect(() => readConfig({ ...required, SWITCHBOARD_NATS_SEED: bad }, kubeConfig)).toThrow(
        /SWITCHBOARD_NATS_SEED[\s\S]*server tag in lower case/,
      );
    }
  });

  it('reads the NOWEB connection attempts for engine pods (1 to 1000), unset by default', () => {
    expect(readConfig({ ...required, SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS: '4' }, kubeConfig).pods.nowebConnectAttempts).toBe(4);
    expect(readConfig(required, kubeConfig).pods.nowebConnectAttempts).toBeUndefined();
    expect(() => readConfig({ ...required, SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS: '0' }, kubeConfig)).toThrow(/SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS/);
  });

  it('reads the silence timeout for socket engine pods (1000 to 120000 ms), unset when left at the default, naming the variable when wrong', () => {
    expect(readConfig({ ...required, SWITCHBOARD_SILENCE_TIMEOUT_MS: '5000' }, kubeConfig).pods.silenceTimeoutMs).toBe(5_000);
    expect(readConfig(required, kubeConfig).pods.silenceTimeoutMs).toBeUndefined();
    for (const wrong of ['999', '120001', '5s']) {
      expect(() => readConfig({ ...required, SWITCHBOARD_SILENCE_TIMEOUT_MS: wrong }, kubeConfig)).toThrow(
        /SWITCHBOARD_SILENCE_TIMEOUT_MS: must be a whole number of milliseconds from 1000 to 120000/,
      );
    }
  });

  it("reads each socket engine's client version, refusing one that is no WhatsApp Web version, naming the variable", () => {
    expect(readConfig(required, kubeConfig).pods.clientVersions).toBeUndefined();
    const both = { ...required, SWITCHBOARD_NOWEB_CLIENT_VERSION: '2.3000.1', SWITCHBOARD_GOWS_CLIENT_VERSION: '2.3000.2' };
    expect(readConfig(both, kubeConfig).pods.clientVersions).toEqual({ NOWEB: '2.3000.1', GOWS: '2.3000.2' });
    expect(() => readConfig({ ...required, SWITCHBOARD_GOWS_CLIENT_VERSION: '2.3000' }, kubeConfig)).toThrow(
      /SWITCHBOARD_GOWS_CLIENT_VERSION: must be three whole numbers joined by dots/,
    );
    expect(() => readConfig({ ...required, SWITCHBOARD_NOWEB_CLIENT_VERSION: '2.3000.4294967296' }, kubeConfig)).toThrow(
      /SWITCHBOARD_NOWEB_CLIENT_VERSION: each of its three numbers must be at most 4294967295/,
    );
  });

  it('reads the rollout settings: a canary and maxUnavailable as a number or a share, the bound in seconds; refuses others by name', () => {
    expect(readConfig(required, kubeConfig).rollout).toEqual({ canary: { count: 1 }, maxUnavailable: { percent: 10 }, workingTimeoutMs: 300_000 });
    const set = {
      ...required,
      SWITCHBOARD_ROLLOUT_CANARY: '5%',
      SWITCHBOARD_ROLLOUT_MAX_UNAVAILABLE: '3',
      SWITCHBOARD_ROLLOUT_WORKING_TIMEOUT_SECONDS: '60',
    };
    expect(readConfig(set, kubeConfig).rollout).toEqual({ canary: { percent: 5 }, maxUnavailable: { count: 3 }, workingTimeoutMs: 60_000 });
    for (const bad of ['0', '0%', '101%', '-1', 'one', '1.5']) {
      expect(() => readConfig({ ...required, SWITCHBOARD_ROLLOUT_CANARY: bad }, kubeConfig)).toThrow(
        /SWITCHBOARD_ROLLOUT_CANARY: a number of sessions from 1 \(e.g. "2"\) or a share from 1% to 100%/,
      );
    }
    expect(() => readConfig({ ...required, SWITCHBOARD_ROLLOUT_MAX_UNAVAILABLE: '' }, kubeConfig)).toThrow(/SWITCHBOARD_ROLLOUT_MAX_UNAVAILABLE/);
    expect(() => readConfig({ ...required, SWITCHBOARD_ROLLOUT_WORKING_TIMEOUT_SECONDS: '5' }, kubeConfig)).toThrow(
      /SWITCHBOARD_ROLLOUT_WORKING_TIMEOUT_SECONDS/,
    );
  });

  it('reads the engine pull policy and extra env (a JSON list of name and value), unset by default', () => {
    const pods = readConfig(
      {
        ...required,
        SWITCHBOARD_ENGINE_PULL_POLICY: 'Never',
        SWITCHBOARD_ENGINE_EXTRA_ENV: '[{"name":"SWITCHBOARD_NOWEB_WS_URL","value":"ws://10.0.0.1:4000/ws/chat"}]',
      },
      kubeConfig,
    ).pods;
    expect(pods.pullPolicy).toBe('Never');
    expect(pods.extraEnv).toEqual([{ name: 'SWITCHBOARD_NOWEB_WS_URL', value: 'ws://10.0.0.1:4000/ws/chat' }]);
    const defaults = readConfig({ ...required, SWITCHBOARD_ENGINE_PULL_POLICY: 'IfNotPresent', SWITCHBOARD_ENGINE_EXTRA_ENV: '[]' }, kubeConfig).pods;
    expect(defaults).not.toHaveProperty('pullPolicy');
    expect(defaults).not.toHaveProperty('extraEnv');
    expect(() => readConfig({ ...required, SWITCHBOARD_ENGINE_PULL_POLICY: 'Sometimes' }, kubeConfig)).toThrow(/SWITCHBOARD_ENGINE_PULL_POLICY/);
  });

  it('refuses extra env that is not a list of name and value, names a bad or repeated variable, or one the operator sets', () => {
    const extra = (value: string) => () => readConfig({ ...required, SWITCHBOARD_ENGINE_EXTRA_ENV: value }, kubeConfig);
    expect(extra('A=1')).toThrow(/SWITCHBOARD_ENGINE_EXTRA_ENV: must be JSON/);
    expect(extra('[{"name":"A","value":1}]')).toThrow(/SWITCHBOARD_ENGINE_EXTRA_ENV\.0\.value/);
    expect(extra('[{"name":"A","value":"1","valueFrom":{}}]')).toThrow(/SWITCHBOARD_ENGINE_EXTRA_ENV\.0/);
    expect(extra('[{"name":"1A","value":"1"}]')).toThrow(/SWITCHBOARD_ENGINE_EXTRA_ENV\.0\.name: an environment variable name/);
    expect(extra('[{"name":"A","value":"1"},{"name":"A","value":"2"}]')).toThrow(/each name at most once/);
    expect(extra('[{"name":"SWITCHBOARD_NATS_URL","value":"nats://elsewhere:4222"}]')).toThrow(
      /SWITCHBOARD_ENGINE_EXTRA_ENV\.0\.name: set by the operator itself/,
    );
  });

  it('an error names each variable that is missing or wrong', () => {
    const read = () =>
      readConfig(
        { SWITCHBOARD_ENGINE_IMAGE: 'x', SWITCHBOARD_ENGINE_RESOURCES: '{"NOWEB":{"requests":{"cpu":"lots"}}}', SWITCHBOARD_HTTP_PORT: '70000' },
        kubeConfig,
      );
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(/SWITCHBOARD_HTTP_PORT/);
    expect(read).toThrow(/SWITCHBOARD_NATS_URL/);
    expect(read).toThrow(/SWITCHBOARD_BROWSER_ENGINE_IMAGE/);
    expect(read).toThrow(/SWITCHBOARD_ENGINE_RESOURCES.NOWEB.requests.cpu: a Kubernetes quantity/);
  });

  it('NATS authentication: the bundled keys Secret (engine users minted per session), or credentials for an external NATS', () => {
    const creds =
      '-----BEGIN NATS USER JWT-----\nx\n------END NATS USER JWT------\n-----BEGIN USER NKEY SEED-----\ny\n------END USER NKEY SEED------\n';
    const bundled = readConfig({ ...required, SWITCHBOARD_NATS_AUTH_SECRET: 'sb-switchboard-nats-auth' }, kubeConfig);
    expect(bundled.natsAuthSecret).toBe('sb-switchboard-nats-auth');
    expect(bundled.pods.natsCredentials).toEqual({ kind: 'per-session' });
    const external = readConfig(
      { ...required, SWITCHBOARD_NATS_CREDS: creds, SWITCHBOARD_ENGINE_NATS_CREDS_SECRET: 'nats-creds/engine.creds' },
      kubeConfig,
    );
    expect(external.natsCredentials).toBe(creds);
    expect(external.pods.natsCredentials).toEqual({ kind: 'shared', secret: 'nats-creds', key: 'engine.creds' });
    expect(readConfig(required, kubeConfig).pods.natsCredentials).toBeUndefined();
    // A wrong value is named, never echoed: credentials are secrets.
    const wrong = () => readConfig({ ...required, SWITCHBOARD_NATS_CREDS: 'hunter2' }, kubeConfig);
    expect(wrong).toThrow(/SWITCHBOARD_NATS_CREDS: must be the text of a NATS credentials file/);
    expect(wrong).not.toThrow(/hunter2/);
    expect(() => readConfig({ ...required, SWITCHBOARD_ENGINE_NATS_CREDS_SECRET: 'no-key' }, kubeConfig)).toThrow(
      /SWITCHBOARD_ENGINE_NATS_CREDS_SECRET/,
    );
    expect(() => readConfig({ ...required, SWITCHBOARD_NATS_AUTH_SECRET: 'a', SWITCHBOARD_NATS_CREDS: creds }, kubeConfig)).toThrow(
      /leave out SWITCHBOARD_NATS_CREDS/,
    );
  });
});
