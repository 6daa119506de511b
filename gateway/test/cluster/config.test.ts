import type { MessagingSession } from '@switchboard/kube';
import { describe, expect, it } from 'vitest';
import { createClusterGateway } from '../../src/cluster/create-cluster-gateway.js';
import { effectiveStatus } from '../../src/cluster/messaging-session.js';
import { ConfigError, readConfig } from '../../src/config.js';

describe('SWITCHBOARD_MODE', () => {
  it('defaults to local mode, which needs nothing more', () => {
    expect(readConfig({}).mode).toBe('local');
  });

  it('names every variable cluster mode is missing', () => {
    const read = () => readConfig({ SWITCHBOARD_MODE: 'cluster' });
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(/SWITCHBOARD_API_KEY[\s\S]*SWITCHBOARD_NATS_URL/);
    expect(() => readConfig({ SWITCHBOARD_MODE: 'cluster', SWITCHBOARD_NATS_URL: 'nats://nats:4222' })).toThrow(/needs\n {2}SWITCHBOARD_API_KEY/);
  });

  it('reads the cluster settings', () => {
    const config = readConfig({
      SWITCHBOARD_MODE: 'cluster',
      SWITCHBOARD_API_KEY: 'admin-key',
      SWITCHBOARD_NATS_URL: 'nats://nats:4222',
      SWITCHBOARD_NAMESPACE: 'messaging',
    });
    expect(config).toMatchObject({ mode: 'cluster', apiKey: 'admin-key', natsUrl: 'nats://nats:4222', namespace: 'messaging', natsReplicas: 1 });
  });

  it('reads the NATS replicas (1 to 5) and refuses others, naming the variable and what is allowed', () => {
    expect(readConfig({ SWITCHBOARD_NATS_REPLICAS: '3' }).natsReplicas).toBe(3);
    for (const bad of ['0', '6', '2.5', 'three']) {
      const read = () => readConfig({ SWITCHBOARD_NATS_REPLICAS: bad });
      expect(read).toThrow(ConfigError);
      expect(read).toThrow(/SWITCHBOARD_NATS_REPLICAS/);
    }
  });

  it('reads the NATS seed (a server tag in lower case), unset by default, and refuses others naming the variable and the form', () => {
    expect(readConfig({}).natsSeed).toBeUndefined();
    expect(readConfig({ SWITCHBOARD_NATS_SEED: 'sb-switchboard-nats-0' }).natsSeed).toBe('sb-switchboard-nats-0');
    for (const bad of ['Nats-0', 'nats 0', '-nats', '']) {
      const read = () => readConfig({ SWITCHBOARD_NATS_SEED: bad });
      expect(read).toThrow(ConfigError);
      expect(read).toThrow(/SWITCHBOARD_NATS_SEED[\s\S]*server tag in lower case/);
    }
  });

  it('refuses a default engine this build does not have, naming the variable and the engines it has', () => {
    const read = () => readConfig({ SWITCHBOARD_DEFAULT_ENGINE: 'TELEGRAM' });
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(/SWITCHBOARD_DEFAULT_ENGINE[\s\S]*SANDBOX[\s\S]*NOWEB[\s\S]*WEBJS[\s\S]*GOWS[\s\S]*WPP/);
    expect(readConfig({ SWITCHBOARD_DEFAULT_ENGINE: 'WEBJS' }).defaultEngine).toBe('WEBJS');
    expect(readConfig({ SWITCHBOARD_DEFAULT_ENGINE: 'WPP' }).defaultEngine).toBe('WPP');
  });

  it('refuses to start local mode with GOWS as the default engine, or SWITCHBOARD_GOWS_BIN set, and no binary there, naming the path', () => {
    const missing = '/nonexistent/switchboard-gows';
    const message = `invalid configuration: no GOWS engine binary at ${missing}: make build builds it (engines/gows), or set SWITCHBOARD_GOWS_BIN to where it is`;
    expect(() => readConfig({ SWITCHBOARD_DEFAULT_ENGINE: 'GOWS', SWITCHBOARD_GOWS_BIN: missing })).toThrow(new ConfigError(message));
    expect(() => readConfig({ SWITCHBOARD_GOWS_BIN: missing })).toThrow(new ConfigError(message));
    // An executable there will do (the check is for the file, the session's start runs it).
    expect(readConfig({ SWITCHBOARD_DEFAULT_ENGINE: 'GOWS', SWITCHBOARD_GOWS_BIN: process.execPath }).defaultEngine).toBe('GOWS');
    expect(readConfig({ SWITCHBOARD_DEFAULT_ENGINE: 'NOWEB' }).defaultEngine).toBe('NOWEB');
  });

  it('refuses an unknown mode, naming the variable', () => {
    expect(() => readConfig({ SWITCHBOARD_MODE: 'swarm' })).toThrow(/SWITCHBOARD_MODE/);
  });

  it('refuses to start a cluster gateway without an admin key, before connecting anywhere', async () => {
    const start = createClusterGateway({
      port: 0,
      host: '127.0.0.1',
      apiKey: undefined,
      defaultEngine: 'SANDBOX',
      logLevel: 'silent',
      globalWebhook: null,
      natsUrl: 'nats://127.0.0.1:1',
    });
    await expect(start).rejects.toThrow(ConfigError);
    await expect(start).rejects.toThrow(/SWITCHBOARD_API_KEY/);
  });
});

describe('3. the status a MessagingSession answers', () => {
  const session = (desiredState: 'Running' | 'Stopped', status?: string): MessagingSession =>
    ({
      metadata: { name: 's1' },
      spec: { engine: 'SANDBOX', desiredState, config: {}, apps: [] },
      ...(status ? { status: { status } } : {}),
    }) as MessagingSession;

  it('is STARTING while it should run and the operator still reports STOPPED or nothing', () => {
    expect(effectiveStatus(session('Running'))).toBe('STARTING');
    expect(effectiveStatus(session('Running', 'STOPPED'))).toBe('STARTING');
  });

  it('is the reported status otherwise, and STOPPED when nothing is reported for a stopped session', () => {
    expect(effectiveStatus(session('Running', 'WORKING'))).toBe('WORKING');
    expect(effectiveStatus(session('Stopped', 'WORKING'))).toBe('WORKING');
    expect(effectiveStatus(session('Stopped'))).toBe('STOPPED');
  });
});
