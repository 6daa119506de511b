// The CRD upgrade of docs/operations.md against a real API server: resources stored under the
// previous CRD (status.conditions an atomic list of plain strings, no name rules) stay readable
// and writable, spec, metadata and status alike, once today's CRD is applied over it; the
// operator then writes its new conditions onto them. No field moved, so no conversion is needed.
import { fileURLToPath } from 'node:url';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { type Condition, CONDITION_TYPES, LOGOUT_FINALIZER, MESSAGING_SESSION, resourceNameFor } from '@switchboard/protocol';
import { type NatsServer, startNatsServer } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOperator } from '../src/operator.js';
import { TestCluster } from './support/cluster.js';
import { testLog } from './support/log.js';
import { waitForApiServer } from './support/wait.js';

const PREVIOUS_CRD = fileURLToPath(new URL('./support/messagingsession-crd-previous.yaml', import.meta.url));
const CRD = fileURLToPath(new URL('../../crds/messagingsession.yaml', import.meta.url));
const { group, version, plural, kind } = MESSAGING_SESSION;
const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** A status as the previous operator wrote it: Ready and PodReady, each with its generation. */
function previousStatus(generation: number): Record<string, unknown> {
  const at = '2026-11-20T10:00:00Z';
  return {
    status: 'WORKING',
    statuses: [
      { status: 'STARTING', timestamp: 1_700_000_000_000 },
      { status: 'SCAN_QR_CODE', timestamp: 1_700_000_001_000 },
      { status: 'WORKING', timestamp: 1_700_000_002_000 },
    ],
    me: { id: '15550000000@c.us', pushName: 'Sandbox' },
    podName: 'engine-x',
    observedGeneration: generation,
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: 'Working',
        message: 'The session is connected to its account',
        lastTransitionTime: at,
        observedGeneration: generation,
      },
      {
        type: 'PodReady',
        status: 'True',
        reason: 'PodReady',
        message: 'Engine pod engine-x is ready',
        lastTransitionTime: at,
        observedGeneration: generation,
      },
    ],
  };
}

describe('the CRD upgrade: resources stored under the previous CRD', { timeout: 60_000 }, () => {
  let cluster: TestCluster;
  let nats: NatsServer;
  let ns: string;

  const create = (name: string, spec: Record<string, unknown>) =>
    cluster.custom.createNamespacedCustomObject({
      group,
      version,
      namespace: ns,
      plural,
      body: { apiVersion: `${group}/${version}`, kind, metadata: { name, finalizers: [LOGOUT_FINALIZER] }, spec },
    });
  const patch = (name: string, body: Record<string, unknown>) =>
    cluster.custom.patchNamespacedCustomObject({ group, version, namespace: ns, plural, name, body }, MERGE_PATCH);
  const patchStatus = (name: string, status: Record<string, unknown>) =>
    cluster.custom.patchNamespacedCustomObjectStatus({ group, version, namespace: ns, plural, name, body: { status } }, MERGE_PATCH);

  // What the previous gateway and operator wrote, and a kubectl user: a plain session, one whose
  // name Kubernetes cannot hold (spec.session), one with webhooks and apps, and names that only
  // the previous CRD took (dots without spec.session, more than 63 characters).
  const longName = `l${'o'.repeat(70)}ng`;
  const hashed = resourceNameFor('My_Session');
  beforeAll(async () => {
    [cluster, nats] = await Promise.all([TestCluster.start(PREVIOUS_CRD), startNatsServer()]);
    ns = await cluster.namespace('upgrade');
    await create('plain', { engine: 'SANDBOX', desiredState: 'Running' });
    await create(hashed, { engine: 'SANDBOX', session: 'My_Session' });
    await create('hooks', {
      engine: 'SANDBOX',
      config: {
        metadata: { team: 'a' },
        webhooks: [
          {
            url: 'https://hooks.example.com/in',
            events: ['message', 'session.status'],
            hmac: { keyFrom: { secretKeyRef: { name: 'hooks', key: 'hmac' } } },
            retries: { policy: 'constant', delaySeconds: 2, attempts: 3 },
            customHeaders: [{ name: 'X-Team', value: 'a' }],
          },
        ],
      },
      apps: [{ app: 'calls', enabled: true }],
    });
    await create('dotted.name', { engine: 'SANDBOX' });
    await create(longName, { engine: 'SANDBOX' });
    for (const name of ['plain', hashed, 'hooks', 'dotted.name', longName]) await patchStatus(name, previousStatus(1));
  }, 180_000);
  afterAll(async () => {
    await nats?.stop();
    await cluster?.stop();
  }, 60_000);

  it("today's CRD passes kubectl apply --dry-run=server over the previous one, then is applied", async () => {
    const dryRun = await cluster.cp.kubectl(['apply', '--server-side', '--force-conflicts', '--dry-run=server', '-f', CRD]);
    expect(dryRun).toContain('serverside-applied (server dry run)');
    await cluster.applyCrd(CRD);
    type Crd = { spec: { versions: { schema: { openAPIV3Schema: { properties: { status: { properties: { conditions: unknown } } } } } }[] } };
    const crd = JSON.parse(await cluster.cp.kubectl(['get', `crd/${plural}.${group}`, '-o', 'json'])) as Crd;
    const conditions = crd.spec.versions[0]!.schema.openAPIV3Schema.properties.status.properties.conditions;
    expect(conditions).toMatchObject({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] });
  });

  it('every stored resource reads back as it was, with the Ready printer column', async () => {
    const list = JSON.parse(await cluster.cp.kubectl(['get', plural, '-n', ns, '-o', 'json'])) as { items: { status: unknown }[] };
    expect(list.items).toHaveLength(5);
    for (const item of list.items) expect(item.status).toEqual(previousStatus(1));
    const table = await cluster.cp.kubectl(['get', plural, '-n', ns, 'plain']);
    expect(table).toMatch(/^NAME\s+STATUS\s+READY\s+ENGINE\s+ACCOUNT\s+AGE\n/);
    expect(table).toMatch(/^plain\s+WORKING\s+True\s+SANDBOX\s+15550000000@c\.us\s+/m);
  });

  it('spec, metadata and status of every stored resource can be written, old-shaped conditions included', async () => {
    for (const name of ['plain', hashed, 'hooks', 'dotted.name', longName]) {
      await patch(name, { metadata: { annotations: { 'example.com/touched': 'yes' } } });
      await patch(name, { spec: { desiredState: 'Stopped' } });
      const stored = await cluster.session(ns, name);
      expect(stored?.metadata.generation, name).toBe(2);
      // The previous operator's status with one more field: the conditions go back as they came.
      await patchStatus(name, { ...previousStatus(1), status: 'STOPPED' });
      expect((await cluster.session(ns, name))?.status?.status, name).toBe('STOPPED');
    }
  });

  it('the operator writes its conditions onto them, the new ones after the old; a name the CRD now refuses is refused', async () => {
    const operator = await startOperator(cluster.operatorConfig(ns, nats.url), { log: testLog });
    try {
      const conditionsOf = async (name: string) => (await cluster.session(ns, name))?.status?.conditions ?? [];
      const settled = (list: readonly Condition[]) => list.length === 5 && list.every((c) => c.observedGeneration === 2);
      const plain = await waitForApiServer(async () => {
        const list = await conditionsOf('plain');
        return settled(list) && list;
      }, 'the operator to write the conditions of plain');
      expect(plain.map((c) => c.type)).toEqual([
        CONDITION_TYPES.ready,
        CONDITION_TYPES.podReady,
        CONDITION_TYPES.paired,
        CONDITION_TYPES.engineConnected,
        CONDITION_TYPES.degraded,
      ]);
      const byType = Object.fromEntries(plain.map((c) => [c.type, c]));
      expect(byType.Ready).toMatchObject({ status: 'False', reason: 'Stopped' });
      // The account stays paired while the session is stopped (status.me is kept).
      expect(byType.Paired).toMatchObject({ status: 'True', reason: 'AccountPaired' });
      expect(byType.EngineConnected).toMatchObject({ status: 'False', reason: 'Stopped' });
      expect(byType.Degraded).toMatchObject({ status: 'False', reason: 'AsExpected' });

      for (const name of ['dotted.name', longName]) {
        const list = await waitForApiServer(async () => {
          const conditions = await conditionsOf(name);
          return settled(conditions) && conditions;
        }, `the operator to refuse ${name}`);
        expect(
          list.find((c) => c.type === 'Degraded'),
          name,
        ).toMatchObject({ status: 'True', reason: 'InvalidSpec' });
        expect(list.find((c) => c.type === 'Ready')?.message, name).toMatch(/metadata\.name must/);
      }
    } finally {
      await operator.stop();
    }
  });

  it('a resource stored with a name the CRD now refuses can still lose its finalizer and go', async () => {
    for (const name of ['dotted.name', longName]) {
      await patch(name, { metadata: { finalizers: null } });
      await cluster.deleteSession(ns, name);
      await waitForApiServer(async () => (await cluster.session(ns, name)) === null, `${name} to be gone`);
    }
  });
});

describe("today's CRD refuses what the previous one let through", { timeout: 60_000 }, () => {
  let cluster: TestCluster;
  let ns: string;
  beforeAll(async () => {
    cluster = await TestCluster.start();
    ns = await cluster.namespace('rules');
    await cluster.createSession(ns, 'ok');
  }, 180_000);
  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  const refusal = async (write: () => Promise<unknown>): Promise<string> => {
    try {
      await write();
    } catch (error) {
      const { code, body } = error as { code?: number; body?: string };
      expect(code).toBe(422);
      return (JSON.parse(String(body)) as { message: string }).message;
    }
    throw new Error('the API server took it');
  };
  const patchStatus = (status: Record<string, unknown>) =>
    cluster.custom.patchNamespacedCustomObjectStatus({ group, version, namespace: ns, plural, name: 'ok', body: { status } }, MERGE_PATCH);
  const condition = { type: 'Ready', status: 'True', reason: 'Working', message: '', lastTransitionTime: '2026-11-20T10:00:00Z' };

  it('a new resource whose name is no session name (a dot without spec.session) or longer than 63 characters', async () => {
    expect(await refusal(() => cluster.createSession(ns, 'a.b'))).toContain('metadata.name must be at most 63 characters, and contain no "."');
    expect(await refusal(() => cluster.createSession(ns, 'x'.repeat(64), { session: 'x' }))).toContain('metadata.name');
    await cluster.createSession(ns, resourceNameFor('c_d'), { session: 'c_d' });
    await cluster.createSession(ns, 'x'.repeat(63));
  });

  it("a spec.session that is another resource's session, on creation or by an update", async () => {
    // `ok` is a session already: `x` may not take its credentials, nor drop its stores when deleted.
    expect(await refusal(() => cluster.createSession(ns, 'x', { session: 'ok' }))).toContain('spec.session must be this resource');
    // A name that only a hashed resource name can hold, under a name that is not hashed...
    expect(await refusal(() => cluster.createSession(ns, 'c.e', { session: 'c_e' }))).toContain('spec.session must be this resource');
    // ...and a session name that is an object name, under a hashed name.
    expect(await refusal(() => cluster.createSession(ns, resourceNameFor('Other'), { session: 'ok' }))).toContain('spec.session');
    await cluster.createSession(ns, 'same', { session: 'same' });
    expect(
      await refusal(() =>
        cluster.custom.patchNamespacedCustomObject(
          { group, version, namespace: ns, plural, name: 'same', body: { spec: { session: 'ok' } } },
          MERGE_PATCH,
        ),
      ),
    ).toContain('spec.session cannot be changed');
    expect(
      await refusal(() =>
        cluster.custom.patchNamespacedCustomObject(
          { group, version, namespace: ns, plural, name: 'ok', body: { spec: { session: 'ok2' } } },
          MERGE_PATCH,
        ),
      ),
    ).toContain('spec.session cannot be changed');
  });

  it('a spec.session that is no session name, and a webhook url past 8192 characters', async () => {
    expect(await refusal(() => cluster.createSession(ns, 'bad-session', { session: 'a.b' }))).toContain('spec.session');
    const url = `https://example.com/${'a'.repeat(8192)}`;
    expect(await refusal(() => cluster.createSession(ns, 'long-url', { config: { webhooks: [{ url, events: ['*'] }] } }))).toContain(
      'spec.config.webhooks[0].url',
    );
  });

  it("a paced-sending config whose upper bound is below its lower one (the API's refinements, as CEL)", async () => {
    const sending = (value: Record<string, unknown>) => ({ config: { sending: value } });
    expect(await refusal(() => cluster.createSession(ns, 'delay', sending({ delay: { minMs: 5000, maxMs: 1000 } })))).toContain(
      'maxMs must be at least minMs',
    );
    // typing's minMs defaults to 1000: a maxMs below it alone is refused, after the defaults apply.
    expect(await refusal(() => cluster.createSession(ns, 'typing', sending({ typing: { maxMs: 500 } })))).toContain('maxMs must be at least minMs');
    expect(await refusal(() => cluster.createSession(ns, 'warmup', sending({ warmup: { start: 50, step: 5, max: 10 } })))).toContain(
      'max must be at least start',
    );
    await cluster.createSession(
      ns,
      'paced',
      sending({ delay: { minMs: 1000, maxMs: 1000 }, typing: { minMs: 0, maxMs: 500 }, warmup: { start: 10, step: 5, max: 10 } }),
    );
  });

  it('conditions that are no metav1.Condition, or two of one type; a standard one is taken', async () => {
    await patchStatus({ conditions: [condition] });
    expect(await refusal(() => patchStatus({ conditions: [{ ...condition, reason: 'not a reason' }] }))).toContain('reason');
    expect(await refusal(() => patchStatus({ conditions: [{ ...condition, lastTransitionTime: 'yesterday' }] }))).toContain('lastTransitionTime');
    expect(await refusal(() => patchStatus({ conditions: [{ ...condition, status: 'Yes' }] }))).toContain('status');
    expect(await refusal(() => patchStatus({ conditions: [{ ...condition, observedGeneration: -1 }] }))).toContain('observedGeneration');
    expect(await refusal(() => patchStatus({ conditions: [condition, { ...condition, status: 'False' }] }))).toContain('Duplicate value');
    expect(await refusal(() => patchStatus({ conditions: [{ ...condition, message: 'm'.repeat(32769) }] }))).toContain('message');
  });
});
