import { openLeaseBucket } from '@switchboard/kube/pod';
import { type CommandReply, KV_BUCKETS, STREAMS, SUBJECTS } from '@switchboard/protocol';
import { TcpProxy, waitFor } from '@switchboard/testkit';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineContext, SandboxEngine, SessionLease } from '../../src/index.js';
import { readPodConfig } from '../../src/pod/config.js';
import { EnginePod } from '../../src/pod/engine-pod.js';
import { natsForTests, silent, streamMessages } from './helpers.js';

const SESSION = 'lapse';
const CHAT = '15551230000@c.us';
// A short ttl, for the bucket and the pod alike: a lapse is NATS out of reach for longer than it.
const TIMING = { ttlMs: 1_500, renewMs: 300, retryMs: 100 };
const WAIT_MS = 20_000;

const nats = natsForTests();
/** Between the pod and NATS, so the test can cut the pod off while its own connection stays. */
let proxy: TcpProxy;
beforeAll(async () => {
  proxy = await TcpProxy.start(nats.server.url);
  await openLeaseBucket(nats.nc, { ttlMs: TIMING.ttlMs });
});
afterAll(async () => {
  await proxy?.stop();
});

/** What the pod did to its engine, in order: each engine object's start and stop. */
const lifecycle: string[] = [];
class RecordedSandbox extends SandboxEngine {
  constructor(context: EngineContext) {
    super(context, { qrRenewMs: 60_000, ackDelaysMs: { server: 10, device: 20 } });
  }
  override async start(): Promise<void> {
    lifecycle.push('start');
    await super.start();
  }
  override async stop(): Promise<void> {
    lifecycle.push('stop');
    await super.stop();
  }
}

async function request(body: unknown): Promise<CommandReply> {
  return (await nats.nc.request(SUBJECTS.command(SESSION), JSON.stringify(body), { timeout: 10_000 })).json<CommandReply>();
}

async function result(body: unknown): Promise<Record<string, unknown>> {
  const reply = await request(body);
  if (!reply.ok) throw new Error(`${JSON.stringify(body)} failed: ${JSON.stringify(reply.error)}`);
  return reply.result as Record<string, unknown>;
}

/** A paced text (host.sendQueue.submit, as the gateway forwards POST /api/sendText). */
const pacedText = (text: string, waitMs: number) => ({
  op: 'host.sendQueue.submit',
  args: { route: '/api/sendText', command: { op: 'send.text', args: { chatId: CHAT, text } }, waitMs },
});

const statusIs = (status: string) => async () => {
  try {
    return (await result({ op: 'host.status' })).status === status;
  } catch {
    return false; // not answering (yet)
  }
};

/** The session's statuses as the event stream holds them, in order. */
async function storedStatuses(): Promise<string[]> {
  const stored = await streamMessages(await nats.nc.jetstreamManager(), STREAMS.events, `sb.evt.${SESSION}.session.status`);
  return stored.map((m) => m.json<{ payload: { status: string } }>().payload.status);
}

const leaseRevision = async () => (await (await nats.nc.jetstream().views.kv(KV_BUCKETS.leases)).get(SESSION))?.revision;

describe('engine pod: a lease lost to a NATS outage longer than its ttl', () => {
  it('stops the engine before anyone else can take the lease, keeps running un-ready, and comes back WORKING with its pairing', async () => {
    const lines: { msg: string; fencingToken?: number }[] = [];
    const config = readPodConfig({
      SWITCHBOARD_SESSION: SESSION,
      SWITCHBOARD_NATS_URL: `nats://${proxy.address}`,
      SWITCHBOARD_POD_NAME: 'engine-lapse',
      SWITCHBOARD_POD_UID: 'uid-lapse',
      SWITCHBOARD_HEALTH_PORT: '0',
    });
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) });
    const pod = new EnginePod(config, log, (context) => new RecordedSandbox(context), TIMING);
    let exitCode: number | undefined;
    const ended = pod.run().then((code) => (exitCode = code));
    const logged = (msg: string) => lines.filter((l) => l.msg === msg);

    await waitFor(statusIs('SCAN_QR_CODE'), 'SCAN_QR_CODE', WAIT_MS);
    await result({ op: 'sandbox.simulate', args: { kind: 'scan' } });
    expect((await result({ op: 'host.status' })).status).toBe('WORKING');
    expect(pod.ready).toBe(true);
    const firstToken = logged('session lease acquired')[0]!.fencingToken!;
    // Paced sending changed while the pod runs (one send a minute, one waiting at most): a later lease term keeps it.
    await result({ op: 'host.sendQueue.setConfig', args: { sending: { perMinute: 1, maxQueued: 1 } } });

    // First lapse, with another holder waiting: the moment it gets the lease, the engine must be stopped already.
    const rival = await SessionLease.open(nats.nc, { session: SESSION, holder: 'engine-rival', log: silent, ...TIMING });
    const rivalGotIt = rival.acquire().then(() => ({ lifecycle: [...lifecycle], ready: pod.ready }));
    await proxy.cut();
    const atRival = await rivalGotIt;
    expect(atRival.lifecycle).toEqual(['start', 'stop']);
    expect(atRival.ready).toBe(false);
    expect(logged('session lease lost')).toHaveLength(1);
    expect(exitCode).toBeUndefined();

    // Back on NATS, the pod waits for the lease as at a fresh start: the rival holds it.
    await proxy.resume();
    await waitFor(statusIs('STOPPED'), 'the pod answering again, its engine STOPPED', WAIT_MS);
    expect(pod.ready).toBe(false);
    expect(lifecycle).toEqual(['start', 'stop']);
    const rivalToken = rival.fencingToken!;
    await rival.release();

    await waitFor(statusIs('WORKING'), 'WORKING again with the stored pairing', WAIT_MS);
    await waitFor(() => pod.ready, 'ready again', WAIT_MS);
    const secondToken = logged('session lease acquired')[1]!.fencingToken!;
    expect(secondToken).toBeGreaterThan(rivalToken);
    expect(rivalToken).toBeGreaterThan(firstToken);
    expect(lifecycle).toEqual(['start', 'stop', 'start']);

    // The send queue runs again in this term, read back and paced by the config set in the first.
    expect(await result(pacedText('first of the minute', 5_000))).toMatchObject({ outcome: 'sent' });
    expect(await result(pacedText('waits for the next minute', 0))).toMatchObject({ outcome: 'queued' });
    const full = await request(pacedText('one too many', 0));
    expect(full.ok ? full : full.error.code).toBe('QUEUE_FULL');

    // Second lapse, nobody else waiting: the pod takes its own record back, or makes a new one once it aged out.
    await proxy.cut();
    await waitFor(() => logged('session lease lost').length === 2, 'the lease lost a second time', WAIT_MS);
    expect(lifecycle).toEqual(['start', 'stop', 'start', 'stop']);
    expect(pod.ready).toBe(false);
    await proxy.resume();
    await waitFor(async () => pod.ready && (await statusIs('WORKING')()), 'WORKING after the second lapse', WAIT_MS);
    const acquisitions = lines.filter((l) => l.msg.startsWith('session lease acquired') || l.msg.startsWith('session lease taken back'));
    expect(acquisitions).toHaveLength(3);
    const thirdToken = acquisitions[2]!.fencingToken!;
    expect(thirdToken).toBeGreaterThan(secondToken);
    expect(await leaseRevision()).toBeGreaterThanOrEqual(thirdToken);
    expect(lifecycle).toEqual(['start', 'stop', 'start', 'stop', 'start']);
    expect(exitCode).toBeUndefined();
    // The waiting send outlived the lapse: the third term read it back, still held by the minute.
    const queue = await waitFor(async () => {
      const reply = await request({ op: 'host.sendQueue.list', args: { limit: 10, offset: 0 } });
      return reply.ok ? (reply.result as { total: number; items: { state: string }[] }) : undefined; // the queue not read back yet
    }, 'the send queue answering in the third term');
    expect(queue).toMatchObject({ total: 1, items: [{ state: 'queued' }] });

    // Events flow: the statuses of both gaps reached the stream in order, no QR asked for again, and a send is stored.
    const expected = ['STARTING', 'SCAN_QR_CODE', 'WORKING', 'STOPPED', 'STARTING', 'WORKING', 'STOPPED', 'STARTING', 'WORKING'];
    await waitFor(async () => (await storedStatuses()).length >= expected.length, 'every status in the stream', WAIT_MS);
    expect(await storedStatuses()).toEqual(expected);
    const sent = await waitFor(async () => {
      try {
        return await result({ op: 'send.text', args: { chatId: CHAT, text: 'still here' } });
      } catch {
        return undefined; // events of the gap still being retried: the send is refused until they are stored
      }
    }, 'a send stored');
    const stored = await streamMessages(await nats.nc.jetstreamManager(), STREAMS.events, `sb.evt.${SESSION}.message.any`);
    expect(stored.map((m) => m.json<{ payload: { id: string } }>().payload.id)).toContain(sent.id);

    // A pod being deleted still stops cleanly and hands the lease over at once.
    await pod.shutdown('SIGTERM');
    expect(await ended).toBe(0);
    expect((await (await nats.nc.jetstream().views.kv(KV_BUCKETS.leases)).get(SESSION))?.operation).not.toBe('PUT');
  }, 90_000);
});
