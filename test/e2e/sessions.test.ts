// Cluster mode end to end: sessions made through /api and through kubectl, run by the operator's
// engine pods, and an engine pod deleted under a working session.
import { KV_BUCKETS, OBJECT_STORES, objectStoreStream } from '@switchboard/protocol';
import { sample, waitFor, WebhookReceiver, WsClient } from '@switchboard/testkit';
import { connect, type KV, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForStatus, workingSession } from '../contract/harness.js';
import {
  ADMIN_KEY,
  type ClusterEnvironment,
  connectNats,
  type EnginePod,
  type GatewayProcess,
  startClusterEnvironment,
} from './support/cluster-environment.js';

const SECRET = 'e2e-webhook-secret';

let env: ClusterEnvironment;
let gw: GatewayProcess;
let nc: NatsConnection;
let operatorUrl: string;

beforeAll(async () => {
  env = await startClusterEnvironment();
  operatorUrl = (await env.startOperator('operator-0')).httpUrl;
  await env.waitForOperatorLeader('operator-0');
  gw = await env.startGateway();
  nc = await connectNats(env);
});

/** Whether each of a session's two object store buckets (media, commands) exists. */
async function objectBuckets(session: string): Promise<boolean[]> {
  const jsm = await nc.jetstreamManager();
  const exists = (bucket: string) =>
    jsm.streams.info(objectStoreStream(bucket)).then(
      () => true,
      (error: unknown) => {
        if ((error as Error).message.includes('stream not found')) return false;
        throw error;
      },
    );
  return Promise.all([exists(OBJECT_STORES.media(session)), exists(OBJECT_STORES.commands(session))]);
}

afterAll(async () => {
  await nc?.close();
  await env?.stop();
});

describe('a session made through /api', () => {
  it('becomes a MessagingSession with one engine pod, pairs, and delivers message.any and message.ack to a webhook and /ws', async () => {
    const receiver = await new WebhookReceiver(SECRET).start();
    const ws = await WsClient.connect(gw.url, `x-api-key=${ADMIN_KEY}&session=alpha&events=message.any&events=message.ack`);
    try {
      const created = await gw.api('POST', '/api/sessions', {
        name: 'alpha',
        config: {
          metadata: { team: 'e2e' },
          webhooks: [{ url: receiver.url, events: ['message.any', 'message.ack'], hmac: { key: SECRET } }],
        },
      });
      expect(created.status).toBe(201);

      const resource = await env.resource('alpha');
      expect(resource.spec).toMatchObject({ engine: 'SANDBOX', desiredState: 'Running', config: { metadata: { team: 'e2e' } } });
      const [pod] = await waitFor(
        async () => {
          const pods = await env.enginePods('alpha');
          return pods.length === 1 && pods[0]!.ready && pods;
        },
        'a ready engine pod',
        30_000,
      );
      expect(pod!.name).toBe('engine-alpha');
      await waitForStatus(gw, 'alpha', 'SCAN_QR_CODE', 30_000);
      expect(await env.resource('alpha')).toMatchObject({
        metadata: { finalizers: ['switchboard.dev/logout'] },
        status: { status: 'SCAN_QR_CODE', podName: 'engine-alpha', conditions: expect.any(Array) },
      });

      const scanned = await gw.api('POST', '/api/alpha/sandbox/simulate', { kind: 'scan' });
      expect(scanned.status).toBe(201);
      await waitForStatus(gw, 'alpha', 'WORKING');
      expect((await gw.api('GET', '/api/sessions/alpha/me')).body).toEqual({ id: '15550000000@c.us', pushName: 'Sandbox' });

      const sent = await gw.api('POST', '/api/sendText', { session: 'alpha', chatId: '15551234567@c.us', text: 'hello from e2e' });
      expect(sent.status).toBe(201);
      expect(sent.body).toMatchObject({ fromMe: true, source: 'api', body: 'hello from e2e', ack: 0 });
      const id = sent.body.id as string;

      const ofMessage = (events: any[]) => events.filter((event) => event.payload.id === id);
      await waitFor(() => ofMessage(receiver.events('message.ack')).length === 2, 'both acks on the webhook', 10_000);
      await waitFor(() => ofMessage(ws.events('message.ack')).length === 2, 'both acks on /ws', 10_000);
      for (const events of [receiver.received.map((hook) => hook.body), ws.frames]) {
        expect(ofMessage(events.filter((event) => event.event === 'message.any')).map((event) => event.payload.source)).toEqual(['api']);
        expect(
          ofMessage(events.filter((event) => event.event === 'message.ack'))
            .map((event) => event.payload.ackName)
            .sort(),
        ).toEqual(['DEVICE', 'SERVER']);
        expect(events.every((event) => event.session === 'alpha' && event.metadata.team === 'e2e')).toBe(true);
      }
      expect(receiver.received.every((hook) => hook.hmacValid === true)).toBe(true);
    } finally {
      ws.close();
      await receiver.stop();
    }
  });
});

describe('NATS authentication, as the chart sets it up', () => {
  it('refuses a client without credentials, and gives each engine pod a user of its own session from a Secret the resource owns', async () => {
    await expect(connect({ servers: env.natsUrl, reconnect: false })).rejects.toMatchObject({ code: 'AUTHORIZATION_VIOLATION' });
    expect((await gw.api('POST', '/api/sessions', { name: 'nats-user' })).status).toBe(201);
    await waitForStatus(gw, 'nats-user', 'SCAN_QR_CODE', 30_000);
    const pod = (await (await env.cp.fetch(`/api/v1/namespaces/${env.namespace}/pods/engine-nats-user`)).json()) as any;
    const source = pod.spec.containers[0].env.find((e: { name: string }) => e.name === 'SWITCHBOARD_NATS_CREDS').valueFrom.secretKeyRef;
    const resource = await env.resource('nats-user');
    expect(source).toEqual({ name: `engine-nats-user-nats3-${resource.metadata.uid.slice(0, 8)}`, key: 'nats.creds' });
    const secret = (await (await env.cp.fetch(`/api/v1/namespaces/${env.namespace}/secrets/${source.name}`)).json()) as any;
    expect(secret.metadata.ownerReferences).toMatchObject([{ kind: 'MessagingSession', name: 'nats-user', uid: resource.metadata.uid }]);
    const jwt = /-----BEGIN NATS USER JWT-----\n(\S+)\n/.exec(Buffer.from(secret.data['nats.creds'], 'base64').toString())![1]!;
    const claims = JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as {
      nats: { pub: { allow: string[] }; sub: { allow: string[] } };
    };
    expect(claims.nats.sub.allow).toEqual(['sb.cmd.nats-user', '_INBOX.engine.nats-user.>']);
    expect(claims.nats.pub.allow).toContain('sb.evt.nats-user.>');
    expect(claims.nats.pub.allow.filter((subject) => subject.startsWith('sb.') || subject.startsWith('$KV.'))).toEqual([
      'sb.evt.nats-user.>',
      '$KV.sb_auth.nats-user.>',
      '$KV.sb_messages.nats-user.>',
      '$KV.sb_leases.nats-user',
    ]);
    // Its own media and command buckets, which the operator made before the pod, and no other's.
    expect(claims.nats.pub.allow.filter((subject) => subject.startsWith('$O.'))).toEqual([
      `$O.${OBJECT_STORES.media('nats-user')}.>`,
      `$O.${OBJECT_STORES.commands('nats-user')}.M.*`,
    ]);
    expect(await objectBuckets('nats-user')).toEqual([true, true]);
    expect((await gw.api('DELETE', '/api/sessions/nats-user')).status).toBe(200);
    // The delete answers once the session's buckets are gone with its streams.
    expect(await objectBuckets('nats-user')).toEqual([false, false]);
  });
});

describe('a session made with kubectl', () => {
  it('is listed by the API and waits for its QR scan; kubectl delete removes it and its pod', async () => {
    const manifest = `apiVersion: switchboard.dev/v1alpha1
kind: MessagingSession
metadata:
  name: from-manifest
  namespace: ${env.namespace}
spec:
  engine: SANDBOX
  config:
    metadata:
      source: kubectl
`;
    await env.cp.kubectl(['apply', '-f', '-'], manifest);
    await waitFor(
      async () => (await gw.api('GET', '/api/sessions')).body.some((session: { name: string }) => session.name === 'from-manifest'),
      'the API lists it',
      10_000,
    );
    await waitForStatus(gw, 'from-manifest', 'SCAN_QR_CODE', 30_000);
    const listed = (await gw.api('GET', '/api/sessions')).body.find((session: { name: string }) => session.name === 'from-manifest');
    expect(listed).toMatchObject({ engine: 'SANDBOX', status: 'SCAN_QR_CODE', config: { metadata: { source: 'kubectl' } } });
    expect((await gw.api('GET', '/api/from-manifest/auth/qr?format=raw')).body.value).toMatch(/^2@/);
    const printed = await env.cp.kubectl(['get', 'msess', 'from-manifest', '-n', env.namespace, '-o', 'jsonpath={.status.status}']);
    expect(printed).toBe('SCAN_QR_CODE');

    expect(await objectBuckets('from-manifest')).toEqual([true, true]);

    await env.cp.kubectl(['delete', 'msess', 'from-manifest', '-n', env.namespace, '--timeout=60s']);
    expect(await env.enginePods('from-manifest')).toEqual([]);
    // Every gateway replica that sees the resource go drops the session's buckets.
    await waitFor(async () => (await objectBuckets('from-manifest')).every((exists) => !exists), 'its object store buckets dropped', 10_000);
    expect((await gw.api('GET', '/api/sessions/from-manifest')).status).toBe(404);
  });
});

describe('invariant 1: an engine pod deleted under a WORKING session', () => {
  let leases: KV;
  beforeAll(async () => {
    leases = await nc.jetstream().views.kv(KV_BUCKETS.leases, { bindOnly: true });
  });

  it('comes back WORKING without a new scan, and is never live beside its replacement', async () => {
    await workingSession(gw, 'phoenix');
    const [old] = await env.enginePods('phoenix');
    const ws = await WsClient.connect(gw.url, `x-api-key=${ADMIN_KEY}&session=phoenix&events=session.status`);
    // Every change, in order: the pods from the API server's watch, the lease from its KV history.
    const podWatch = await env.watchEnginePods('phoenix');
    const leaseHistory: LeaseEntry[] = [];
    const leaseWatch = await leases.watch({ key: 'phoenix' });
    const leaseWatching = (async () => {
      for await (const entry of leaseWatch) {
        const holder = entry.operation === 'PUT' ? entry.json<{ acquiredAt: string }>().acquiredAt : null;
        leaseHistory.push({ operation: entry.operation, revision: entry.revision, acquiredAt: holder });
      }
    })();
    // And what a client polling every 50 ms sees.
    const samples: { pods: EnginePod[]; holder: string | null }[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const [pods, lease] = await Promise.all([env.enginePods('phoenix'), leases.get('phoenix')]);
        samples.push({ pods, holder: lease?.operation === 'PUT' ? lease.json<{ acquiredAt: string }>().acquiredAt : null });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    try {
      await env.cp.kubectl(['delete', 'pod', old!.name, '-n', env.namespace, '--wait=false']);
      await waitFor(async () => (await env.enginePods('phoenix')).some((pod) => pod.uid !== old!.uid && pod.ready), 'a new ready engine pod', 60_000);
      await waitForStatus(gw, 'phoenix', 'WORKING', 30_000);
      // Keep watching a moment: a second pod would show up now if the operator made one.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    } finally {
      sampling = false;
      await sampler;
      podWatch.stop();
      leaseWatch.stop();
      await leaseWatching;
      ws.close();
    }
    const context = [
      env.podLogs('phoenix'),
      `--- pod events ---\n${JSON.stringify(podWatch.events)}`,
      `--- lease history ---\n${JSON.stringify(leaseHistory)}`,
    ].join('\n');

    // Pods: never two that are not terminating, never two Ready, at any step of the watch or any sample.
    const live = new Map<string, EnginePod>();
    for (const event of podWatch.events) {
      if (event.type === 'DELETED') live.delete(event.uid);
      else live.set(event.uid, event);
      expect([...live.values()].filter((pod) => !pod.terminating).length, context).toBeLessThanOrEqual(1);
      expect([...live.values()].filter((pod) => pod.ready).length, context).toBeLessThanOrEqual(1);
    }
    for (const { pods } of samples) {
      expect(pods.filter((pod) => !pod.terminating).length, context).toBeLessThanOrEqual(1);
      expect(pods.filter((pod) => pod.ready).length, context).toBeLessThanOrEqual(1);
    }
    // The replacement was created only once the old pod was gone.
    const oldGone = podWatch.events.findIndex((event) => event.uid === old!.uid && event.type === 'DELETED');
    const newAdded = podWatch.events.findIndex((event) => event.uid !== old!.uid && event.type === 'ADDED');
    expect(oldGone, context).toBeGreaterThanOrEqual(0);
    expect(newAdded, context).toBeGreaterThan(oldGone);

    // The lease: one holder at a time. The new pod took it (a new fencing token) only after the
    // old one released it; the samples saw exactly these two holders.
    const holders = [...new Set(leaseHistory.flatMap((entry) => (entry.acquiredAt ? [entry.acquiredAt] : [])))];
    expect(holders.length, context).toBe(2);
    const firstOfSecond = leaseHistory.findIndex((entry) => entry.acquiredAt === holders[1]);
    expect(
      leaseHistory.slice(0, firstOfSecond).some((entry) => entry.operation !== 'PUT'),
      context,
    ).toBe(true);
    expect([...new Set(samples.flatMap(({ holder }) => (holder ? [holder] : [])))]).toEqual(holders);
    const runs = engineRuns(env.podLogs('phoenix'));
    expect(
      runs.map((run) => run.uid),
      context,
    ).toEqual([old!.uid, expect.not.stringMatching(old!.uid)]);
    expect(runs[1]!.acquired!, context).toBeGreaterThanOrEqual(runs[0]!.released!);
    expect(runs[1]!.fencingToken!).toBeGreaterThan(runs[0]!.fencingToken!);

    // Paired from the auth state in NATS KV: no QR was asked for again.
    const statuses = ws.events('session.status').map((event) => event.payload.status);
    expect(statuses).not.toContain('SCAN_QR_CODE');
    expect(statuses.at(-1)).toBe('WORKING');
    expect((await gw.api('GET', '/api/sessions/phoenix')).body).toMatchObject({
      status: 'WORKING',
      me: { id: '15550000000@c.us', pushName: 'Sandbox' },
    });
    const sent = await gw.api('POST', '/api/sendText', { session: 'phoenix', chatId: '15551234567@c.us', text: 'still here' });
    expect(sent.status).toBe(201);
  });
});

interface LeaseEntry {
  operation: string;
  revision: number;
  /** Who holds it, told apart by when they acquired it (every engine pod of a session has its name). */
  acquiredAt: string | null;
}

interface EngineRun {
  uid: string;
  fencingToken?: number;
  /** When the lease was acquired and released, from the engine's own log (ms). */
  acquired?: number;
  released?: number;
}

/** Each engine process's lease history, from the node agent's pod logs (one section per pod). */
function engineRuns(logs: string): EngineRun[] {
  const runs: EngineRun[] = [];
  for (const line of logs.split('\n')) {
    const header = /^===== .*_([0-9a-f-]{36})\/[^/]+\.log$/.exec(line);
    if (header) {
      runs.push({ uid: header[1]! });
      continue;
    }
    const run = runs.at(-1);
    if (!run || !line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { msg?: string; time?: number; fencingToken?: number };
    if (entry.msg === 'session lease acquired') Object.assign(run, { acquired: entry.time, fencingToken: entry.fencingToken });
    if (entry.msg === 'session lease released') run.released = entry.time;
  }
  return runs;
}

describe("the operator's HTTP endpoint", () => {
  it('is live and ready, and its /metrics count the reconciles of the sessions above and its leadership', async () => {
    expect((await fetch(`${operatorUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${operatorUrl}/readyz`)).status).toBe(200);
    const res = await fetch(`${operatorUrl}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(sample(text, 'switchboard_operator_leader')).toBe(1);
    // Every session above was created, started and deleted through reconciles.
    expect(sample(text, 'switchboard_operator_reconciles_total', { outcome: 'success' })).toBeGreaterThan(5);
    expect(sample(text, 'switchboard_operator_reconcile_duration_seconds_count')).toBeGreaterThan(5);
    expect(text).toContain('process_resident_memory_bytes');
  });
});
