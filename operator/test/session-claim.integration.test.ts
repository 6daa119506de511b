// A MessagingSession whose spec.session is another resource's session (made before the CRD
// refused it: the previous CRD is installed here) against a real API server and NATS: the
// operator makes it no pod and no credentials, says why, and its deletion, logout annotation and
// all, drops nothing of the session it names.
import { fileURLToPath } from 'node:url';
import { objectStoreExists } from '@switchboard/kube';
import { ANNOTATIONS, OBJECT_STORES } from '@switchboard/protocol';
import { type NatsServer, startNatsServer } from '@switchboard/testkit';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOperator } from '../src/operator.js';
import { TestCluster } from './support/cluster.js';
import { testLog } from './support/log.js';
import { sleep, waitForApiServer } from './support/wait.js';

const PREVIOUS_CRD = fileURLToPath(new URL('./support/messagingsession-crd-previous.yaml', import.meta.url));

describe("a resource speaking for another session's name", { timeout: 60_000 }, () => {
  let cluster: TestCluster;
  let nats: NatsServer;
  let nc: NatsConnection;
  beforeAll(async () => {
    [cluster, nats] = await Promise.all([TestCluster.start(PREVIOUS_CRD), startNatsServer()]);
    nc = await connect({ servers: nats.url });
  }, 180_000);
  afterAll(async () => {
    await nc?.close();
    await nats?.stop();
    await cluster?.stop();
  }, 60_000);

  const buckets = (session: string) =>
    Promise.all([OBJECT_STORES.media(session), OBJECT_STORES.commands(session)].map((b) => objectStoreExists(nc, b)));
  async function authKeys(): Promise<string[]> {
    const kv = await nc.jetstream().views.kv('sb_auth');
    const keys: string[] = [];
    for await (const key of await kv.keys()) keys.push(key);
    return keys;
  }

  it('gets no pod, a FAILED status naming spec.session, and its deletion drops nothing of that session', async () => {
    const ns = await cluster.namespace('claim');
    const operator = await startOperator(cluster.operatorConfig(ns, nats.url), { log: testLog, resyncMs: 300 });
    try {
      await cluster.createSession(ns, 'alpha');
      await waitForApiServer(() => cluster.pod(ns, 'alpha'), "alpha's engine pod");
      await waitForApiServer(async () => (await buckets('alpha')).every(Boolean), "alpha's buckets");
      const kv = await nc.jetstream().views.kv('sb_auth');
      await kv.put('alpha.creds.main', '{"paired":true}');

      // With the logout annotation: the worst a deletion could do to alpha.
      await cluster.createSession(ns, 'x', { session: 'alpha' }, { [ANNOTATIONS.logoutOnDelete]: 'true' });
      const status = await waitForApiServer(async () => {
        const s = (await cluster.session(ns, 'x'))?.status;
        return s?.status === 'FAILED' && s;
      }, 'x refused');
      expect(status.reason).toContain('spec.session "alpha" is not this resource\'s session');
      expect(status.conditions?.find((c) => c.type === 'Degraded')).toMatchObject({ status: 'True', reason: 'SessionNameMismatch' });
      expect(status.me ?? null).toBeNull();
      expect((await cluster.eventsOf(ns, 'x')).map((e) => e.reason)).toContain('SessionNameMismatch');
      await sleep(1_000); // several resyncs: still no pod and no credentials for x
      expect(await cluster.pod(ns, 'x')).toBeNull();
      const secrets = await cluster.core.listNamespacedSecret({ namespace: ns });
      expect(secrets.items.map((s) => s.metadata?.name).filter((n) => n?.startsWith('engine-x-'))).toEqual([]);

      await cluster.deleteSession(ns, 'x');
      await waitForApiServer(async () => (await cluster.session(ns, 'x')) === null, 'x gone', 20_000);
      expect(await buckets('alpha')).toEqual([true, true]);
      expect(await authKeys()).toContain('alpha.creds.main');
      expect(await cluster.pod(ns, 'alpha')).not.toBeNull();
      expect((await cluster.session(ns, 'alpha'))?.status?.status).not.toBe('FAILED');
    } finally {
      await operator.stop();
    }
  });
});
