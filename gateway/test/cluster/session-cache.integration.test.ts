import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { sessionNameOf } from '@switchboard/kube';
import { MESSAGING_SESSION, resourceNameFor } from '@switchboard/protocol';
import { TcpProxy, waitFor } from '@switchboard/testkit';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../../../test/e2e/support/control-plane.js';
import { onDeletedSessions } from '../../src/cluster/deleted-sessions.js';
import { SessionCache } from '../../src/cluster/session-cache.js';
import { SessionResources } from '../../src/cluster/session-resources.js';

const crdPath = join(resolve(dirname(fileURLToPath(import.meta.url)), '../../..'), 'crds/messagingsession.yaml');

describe('the MessagingSession informer cache', () => {
  let cp: ControlPlane;
  let cache: SessionCache | undefined;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    const { start } = await import('../../../test/e2e/support/control-plane.js');
    cp = await start();
  }, 180_000);

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    await cache?.stop();
    await cp?.stop();
  }, 60_000);

  it('keeps restarting after errors until it can list, then follows the resources', async () => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(cp.kubeconfigPath);
    const resources = new SessionResources(kubeConfig, 'default');
    cache = new SessionCache({ resources, kubeConfig, log: pino({ level: 'silent' }), restartDelayMs: 100 });
    // No CRD yet: every list fails with 404, as against a cluster where it is not installed.
    cache.start();
    await expect(cache.whenSynced(500)).rejects.toThrow(/cannot list MessagingSessions in namespace 'default'/);
    expect(cache.list()).toBeUndefined();

    await cp.kubectl(['apply', '-f', crdPath]);
    await cp.kubectl(['wait', '--for=condition=Established', '--timeout=60s', `crd/${MESSAGING_SESSION.plural}.${MESSAGING_SESSION.group}`]);
    await cache.whenSynced(30_000);
    expect(cache.list()).toEqual([]);

    const manifest = JSON.stringify({
      apiVersion: `${MESSAGING_SESSION.group}/${MESSAGING_SESSION.version}`,
      kind: MESSAGING_SESSION.kind,
      metadata: { name: 'by-kubectl' },
      spec: { engine: 'SANDBOX' },
    });
    await cp.kubectl(['apply', '-f', '-'], manifest);
    const seen = await waitFor(() => cache!.lookup('by-kubectl'), 'the watched resource');
    // The CRD's defaults apply to a resource written by hand.
    expect(seen.spec).toMatchObject({ engine: 'SANDBOX', desiredState: 'Running', config: {}, apps: [] });
    await cp.kubectl(['delete', MESSAGING_SESSION.singular, 'by-kubectl']);
    await waitFor(() => cache!.lookup('by-kubectl') === undefined, 'the deletion');
  });

  it("lists no resource whose spec.session is another resource's session, and its deletion is no session's", async () => {
    await cp.kubectl(['apply', '-f', crdPath]);
    await cp.kubectl(['wait', '--for=condition=Established', '--timeout=60s', `crd/${MESSAGING_SESSION.plural}.${MESSAGING_SESSION.group}`]);
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(cp.kubeconfigPath);
    const claims = new SessionCache({ resources: new SessionResources(kubeConfig, 'default'), kubeConfig, log: pino({ level: 'silent' }) });
    claims.start();
    cleanups.push(() => claims.stop());
    await claims.whenSynced(30_000);
    const deleted: string[] = [];
    const stopWatching = onDeletedSessions(claims, (session) => deleted.push(session));
    const apply = (name: string, session: string) =>
      cp.kubectl(
        ['apply', '-f', '-'],
        JSON.stringify({
          apiVersion: `${MESSAGING_SESSION.group}/${MESSAGING_SESSION.version}`,
          kind: MESSAGING_SESSION.kind,
          metadata: { name },
          spec: { engine: 'SANDBOX', session },
        }),
      );
    // The API server cannot check a hash: a hashed name not of its session gets through it.
    const genuine = resourceNameFor('Alpha_1');
    const forged = 's-0000000000000000';
    await apply(genuine, 'Alpha_1');
    await apply(forged, 'Alpha_1');
    await waitFor(() => claims.lookup(forged), 'the forged resource in the cache');
    await waitFor(() => claims.list()?.some((r) => r.metadata.name === genuine), 'the genuine one listed');
    expect(
      claims
        .list()!
        .filter((r) => sessionNameOf(r) === 'Alpha_1')
        .map((r) => r.metadata.name),
    ).toEqual([genuine]);

    await cp.kubectl(['delete', MESSAGING_SESSION.singular, forged]);
    await waitFor(() => claims.lookup(forged) === undefined, 'the deletion');
    await cp.kubectl(['delete', MESSAGING_SESSION.singular, genuine]);
    await waitFor(() => claims.lookup(genuine) === undefined, 'the genuine deletion');
    // Alpha_1 ended once, with its own resource: not when the forged one went.
    await waitFor(() => deleted.length > 0, 'the genuine session seen deleted');
    stopWatching();
    expect(deleted).toEqual(['Alpha_1']);
  });

  it('resumes a watch that stalled (open, but carrying nothing), and sees what changed meanwhile', async () => {
    await cp.kubectl(['apply', '-f', crdPath]);
    await cp.kubectl(['wait', '--for=condition=Established', '--timeout=60s', `crd/${MESSAGING_SESSION.plural}.${MESSAGING_SESSION.group}`]);
    const proxy = await TcpProxy.start(cp.server);
    cleanups.push(() => proxy.stop());
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(cp.kubeconfigPath);
    const cluster = kubeConfig.getCurrentCluster()!;
    kubeConfig.clusters = kubeConfig.clusters.map((c) => (c.name === cluster.name ? { ...c, server: proxy.url } : c));
    const stalling = new SessionCache({
      resources: new SessionResources(kubeConfig, 'default'),
      kubeConfig,
      log: pino({ level: 'silent' }),
      watchQuietTimeoutMs: 1_000,
    });
    cleanups.push(() => stalling.stop());
    stalling.start();
    await stalling.whenSynced(30_000);
    const manifest = (name: string) =>
      JSON.stringify({
        apiVersion: `${MESSAGING_SESSION.group}/${MESSAGING_SESSION.version}`,
        kind: MESSAGING_SESSION.kind,
        metadata: { name },
        spec: { engine: 'SANDBOX' },
      });
    // The watch is open and delivering before it stalls.
    await cp.kubectl(['apply', '-f', '-'], manifest('before-stall'));
    await waitFor(() => stalling.lookup('before-stall'), 'a resource on the watch');

    proxy.stall();
    await cp.kubectl(['apply', '-f', '-'], manifest('while-stalled'));
    await waitFor(() => stalling.lookup('while-stalled'), 'the resource made while the watch was stalled');
    await cp.kubectl(['delete', MESSAGING_SESSION.singular, 'while-stalled', 'before-stall']);
    await waitFor(() => stalling.lookup('while-stalled') === undefined, 'its deletion, on the resumed watch');
  });
});
