import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { type CommandReply, KV_BUCKETS, STREAMS, SUBJECTS } from '@switchboard/protocol';
import { sample, waitFor } from '@switchboard/testkit';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NatsMediaStore, NatsMessageStore, readHistory } from '../../src/index.js';
import { natsForTests, streamMessages } from './helpers.js';
import { PodProcess, REPO_ROOT } from './pod-process.js';

beforeAll(() => {
  // The pod runs from its build, as in a container: build it (incremental, quick when up to date).
  execFileSync(join(REPO_ROOT, 'node_modules/.bin/tsc'), ['-b', 'engine-pod'], { cwd: REPO_ROOT, stdio: 'pipe' });
}, 120_000);
/** A pod is a process of its own, started from its build: it gets longer than a call in this process. */
const POD_WAIT_MS = 10_000;
const nats = natsForTests();
const pods: PodProcess[] = [];
afterEach(async () => {
  await Promise.all(pods.splice(0).map((pod) => pod.kill()));
});

async function startPod(session: string, podName: string, podUid?: string): Promise<PodProcess> {
  const pod = await PodProcess.start({
    SWITCHBOARD_SESSION: session,
    SWITCHBOARD_NATS_URL: nats.server.url,
    SWITCHBOARD_POD_NAME: podName,
    ...(podUid === undefined ? {} : { SWITCHBOARD_POD_UID: podUid }),
  });
  pods.push(pod);
  return pod;
}

async function command(session: string, body: unknown): Promise<CommandReply> {
  const reply = await nats.nc.request(SUBJECTS.command(session), JSON.stringify(body), { timeout: 5_000 });
  return reply.json<CommandReply>();
}

const result = async (session: string, body: unknown) => {
  const reply = await command(session, body);
  if (!reply.ok) throw new Error(`${JSON.stringify(body)} failed: ${JSON.stringify(reply.error)}`);
  return reply.result as Record<string, unknown>;
};

const statusOf = async (session: string) => (await result(session, { op: 'host.status' })).status;

describe('engine pod process', () => {
  it('serves a session over NATS: pairing, sending, events on the stream; a restart keeps the pairing', async () => {
    const first = await startPod('p1', 'engine-p1-a');
    await waitFor(async () => (await first.probe('/readyz')) === 200, `ready\n${first.log}`, POD_WAIT_MS);
    expect(await first.probe('/healthz')).toBe(200);
    await waitFor(async () => (await statusOf('p1')) === 'SCAN_QR_CODE', 'SCAN_QR_CODE', POD_WAIT_MS);
    expect((await result('p1', { op: 'auth.qr' })).value).toMatch(/^2@/);
    await result('p1', { op: 'sandbox.simulate', args: { kind: 'scan' } });
    expect(await statusOf('p1')).toBe('WORKING');
    const record = await result('p1', { op: 'send.text', args: { chatId: '15551234567@c.us', text: 'hello' } });
    expect(record).toMatchObject({ body: 'hello', fromMe: true, ackName: 'PENDING' });

    const jsm = await nats.nc.jetstreamManager();
    type Envelope = { event: string; payload: { id?: string; status?: string } };
    type Stored = Envelope & { subject: string };
    const sessionEvents = async (): Promise<Stored[]> =>
      (await streamMessages(jsm, STREAMS.events, 'sb.evt.p1.')).map((m) => ({ ...m.json<Envelope>(), subject: m.subject }));
    const forMessage = await waitFor(
      async () => {
        const found = (await sessionEvents()).filter((e) => e.payload.id === record.id);
        return found.length >= 3 && found;
      },
      'message.any and two message.ack on the stream',
      POD_WAIT_MS,
    );
    expect(forMessage.map((e) => e.event)).toEqual(['message.any', 'message.ack', 'message.ack']);
    expect(forMessage.map((e) => e.subject)).toEqual(['sb.evt.p1.message.any', 'sb.evt.p1.message.ack', 'sb.evt.p1.message.ack']);

    first.signal('SIGTERM');
    expect(await first.exited).toBe(0);
    const lease = await (await nats.nc.jetstream().views.kv(KV_BUCKETS.leases)).get('p1');
    expect(lease?.operation).not.toBe('PUT'); // released, not left to lapse

    const second = await startPod('p1', 'engine-p1-b');
    await waitFor(async () => (await second.probe('/readyz')) === 200, `ready\n${second.log}`, POD_WAIT_MS);
    await waitFor(async () => (await statusOf('p1')) === 'WORKING', 'WORKING without a scan', POD_WAIT_MS);
    const statuses = (await sessionEvents()).filter((e) => e.event === 'session.status').map((e) => e.payload.status);
    expect(statuses.slice(-2)).toEqual(['STARTING', 'WORKING']);
    second.signal('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 40_000);

  it('two pods for one session: only one becomes ready, the other waits and takes over when it stops', async () => {
    const a = await startPod('p2', 'engine-p2-a');
    const b = await startPod('p2', 'engine-p2-b');
    const [leader, follower] = await waitFor(
      async () => {
        const [ra, rb] = await Promise.all([a.probe('/readyz'), b.probe('/readyz')]);
        if (ra === 200) return [a, b] as const;
        if (rb === 200) return [b, a] as const;
        return undefined;
      },
      'one ready pod',
      POD_WAIT_MS,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await follower.probe('/healthz')).toBe(200);
    expect(await follower.probe('/readyz')).toBe(503);
    expect(await leader.probe('/readyz')).toBe(200);

    leader.signal('SIGTERM');
    expect(await leader.exited).toBe(0);
    await waitFor(async () => (await follower.probe('/readyz')) === 200, `the waiting pod ready\n${follower.log}`, POD_WAIT_MS);
    expect(await statusOf('p2')).toBe('SCAN_QR_CODE');
  }, 40_000);

  it('a container SIGKILLed and started again in the same pod (same uid) takes its lease back at once and keeps its pairing', async () => {
    const killed = await startPod('p4', 'engine-p4', 'uid-p4');
    await waitFor(async () => (await killed.probe('/readyz')) === 200, 'ready', POD_WAIT_MS);
    await result('p4', { op: 'sandbox.simulate', args: { kind: 'scan' } });
    expect(await statusOf('p4')).toBe('WORKING');
    await killed.kill(); // no release: the key stays until its 15-s ttl
    const restarted = await startPod('p4', 'engine-p4', 'uid-p4');
    await waitFor(async () => (await restarted.probe('/readyz')) === 200, `the restarted container ready\n${restarted.log}`, POD_WAIT_MS);
    expect(restarted.log).toContain('session lease taken back from an earlier container of this pod');
    await waitFor(async () => (await statusOf('p4')) === 'WORKING', 'WORKING with the stored pairing', POD_WAIT_MS);
  }, 30_000);

  it('a pod whose lease is taken stops its engine, stays up un-ready, and takes the session again once the key is free', async () => {
    const pod = await startPod('p3', 'engine-p3');
    await waitFor(async () => (await pod.probe('/readyz')) === 200, 'ready', POD_WAIT_MS);
    const kv = await nats.nc.jetstream().views.kv(KV_BUCKETS.leases);
    await kv.put('p3', JSON.stringify({ holder: 'someone else' }));
    await waitFor(() => pod.log.includes('session lease lost'), `the lease lost\n${pod.log}`, POD_WAIT_MS);
    await waitFor(async () => (await statusOf('p3')) === 'STOPPED', 'the engine STOPPED', POD_WAIT_MS);
    expect(await pod.probe('/readyz')).toBe(503);
    expect(await pod.probe('/healthz')).toBe(200); // alive: the kubelet has no reason to restart it
    await kv.delete('p3');
    await waitFor(async () => (await pod.probe('/readyz')) === 200, `ready again\n${pod.log}`, POD_WAIT_MS);
    await waitFor(async () => (await statusOf('p3')) === 'SCAN_QR_CODE', 'its engine started again', POD_WAIT_MS);
    pod.signal('SIGTERM');
    expect(await pod.exited).toBe(0);
  }, 30_000);
});

describe("engine pod: paced sending's metrics", () => {
  it('serves the queue depth, the wait and the holds of its session at /metrics on the health port', async () => {
    const session = 'm1';
    const chat = '15551234567@c.us';
    const pod = await PodProcess.start({
      SWITCHBOARD_SESSION: session,
      SWITCHBOARD_NATS_URL: nats.server.url,
      SWITCHBOARD_POD_NAME: 'engine-m1-a',
      SWITCHBOARD_SENDING: JSON.stringify({ perMinute: 1, maxQueued: 10 }),
    });
    pods.push(pod);
    await waitFor(async () => (await pod.probe('/readyz')) === 200, `ready\n${pod.log}`, POD_WAIT_MS);
    await waitFor(async () => (await statusOf(session)) === 'SCAN_QR_CODE', 'SCAN_QR_CODE', POD_WAIT_MS);
    await result(session, { op: 'sandbox.simulate', args: { kind: 'scan' } });
    const submit = (text: string, waitMs: number) =>
      result(session, {
        op: 'host.sendQueue.submit',
        args: { route: '/api/sendText', command: { op: 'send.text', args: { chatId: chat, text } }, waitMs },
      });
    expect(await submit('first', 5_000)).toMatchObject({ outcome: 'sent' });
    expect(await submit('second', 0)).toMatchObject({ outcome: 'queued' });

    let text = '';
    await waitFor(
      async () => sample((text = await pod.metrics()), 'switchboard_send_queue_held_total', { session, reason: 'rate' }) === 1,
      'the hold to be counted',
    );
    expect(sample(text, 'switchboard_send_queue_depth', { session })).toBe(1);
    expect(sample(text, 'switchboard_send_queue_wait_seconds_count', { session })).toBe(1);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  }, 60_000);
});

describe('engine pod: message history and media in NATS, read by anyone', () => {
  const chat = '15551234567@c.us';
  const page = { chatId: chat, merge: true, limit: 100, offset: 0, sortOrder: 'asc' } as const;

  /** A pod of session h1 that holds the lease (a SIGKILLed holder's lease lapses after 15 s). */
  async function historyPod(podName: string, readyWithinMs = POD_WAIT_MS): Promise<PodProcess> {
    const pod = await PodProcess.start({
      SWITCHBOARD_SESSION: 'h1',
      SWITCHBOARD_NATS_URL: nats.server.url,
      SWITCHBOARD_POD_NAME: podName,
      SWITCHBOARD_BASE_URL: 'https://wa.example.com/',
    });
    pods.push(pod);
    await waitFor(async () => (await pod.probe('/readyz')) === 200, 'ready', readyWithinMs);
    return pod;
  }

  it('records what goes in and out, stores received files under SWITCHBOARD_BASE_URL, and a new pod carries on', async () => {
    const first = await historyPod('engine-h1-a');
    await waitFor(async () => (await statusOf('h1')) === 'SCAN_QR_CODE', 'SCAN_QR_CODE', POD_WAIT_MS);
    await result('h1', { op: 'sandbox.simulate', args: { kind: 'scan' } });
    const media = { mimetype: 'image/png', filename: 'p.png', data: Buffer.from('png!').toString('base64') };
    const received = await result('h1', { op: 'sandbox.simulate', args: { kind: 'message', from: chat, body: 'photo', media } });
    const sent = await result('h1', { op: 'send.text', args: { chatId: chat, text: 'nice' } });

    // Another connection, as a gateway replica reads them.
    const history = await NatsMessageStore.open(nats.nc);
    const records = await waitFor(
      async () => {
        const found = await readHistory(history, 'h1', page);
        return found.length === 2 && found[1]!.ackName === 'DEVICE' && found;
      },
      'both messages, the sent one at DEVICE',
      POD_WAIT_MS,
    );
    expect(records.map((r) => [r.id, r.body])).toEqual([
      [received.id, 'photo'],
      [sent.id, 'nice'],
    ]);
    const url = records[0]!.media!.url;
    expect(url).toMatch(/^https:\/\/wa\.example\.com\/api\/files\/h1\/[A-Za-z0-9_-]{22}\.png$/);
    const file = await (await NatsMediaStore.open(nats.nc)).get('h1', /([A-Za-z0-9_-]{22})\.png$/.exec(url)![1]!);
    expect(file?.data.toString()).toBe('png!');

    // The pod dies without a goodbye; its replacement appends to the same history.
    await first.kill();
    await historyPod('engine-h1-b', 25_000);
    await waitFor(async () => (await statusOf('h1')) === 'WORKING', 'WORKING again', POD_WAIT_MS);
    await result('h1', { op: 'sandbox.simulate', args: { kind: 'message', from: chat, body: 'still here' } });
    const after = await waitFor(
      async () => {
        const found = await readHistory(history, 'h1', page);
        return found.length === 3 && found;
      },
      'three messages',
      POD_WAIT_MS,
    );
    expect(after.map((r) => r.body)).toEqual(['photo', 'nice', 'still here']);
  }, 60_000);
});
