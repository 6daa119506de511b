import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChannelMessage, CommandReply, EventEnvelope } from '@switchboard/protocol';
import { type NatsServer, startNatsServer, waitFor } from '@switchboard/testkit';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NatsAuthStateStore } from '../../src/cluster/nats-auth-state-store.js';
import { NatsMediaStore } from '../../src/cluster/nats-media-store.js';
import { NatsMessageStore } from '../../src/cluster/nats-message-store.js';
import { eventIssues } from '../../src/event-validator.js';
import { Registry } from 'prom-client';
import { SendQueueMetrics } from '../../src/sending/queue-metrics.js';
import { PodProcess } from '../cluster/pod-process.js';
import { FakeWaServer } from '../fake-wa/index.js';
import { FakeMediaServer } from '../fake-wa/media-server.js';
import { buildGows } from './driver.js';

const SESSION = 'gows-nats';
let nats: NatsServer;
let nc: NatsConnection;
let fake: FakeWaServer;
let binary: string;
/** The fake media host (`media_conn` names it); the pods trust its certificate (SWITCHBOARD_GOWS_MEDIA_CA). */
let media: FakeMediaServer;
let mediaCa: string;
const pods: PodProcess[] = [];
const envelopes: EventEnvelope[] = [];

beforeAll(async () => {
  [nats, fake, binary, media] = await Promise.all([startNatsServer(), FakeWaServer.start({ signal: true }), buildGows(), FakeMediaServer.start()]);
  fake.serveMedia(media);
  mediaCa = join(mkdtempSync(join(tmpdir(), 'sb-gows-nats-')), 'media-ca.pem');
  writeFileSync(mediaCa, media.certificate);
  nc = await connect({ servers: nats.url });
  const sub = nc.subscribe(`sb.evt.${SESSION}.>`);
  void (async () => {
    for await (const msg of sub) envelopes.push(msg.json<EventEnvelope>());
  })();
}, 180_000);

afterAll(async () => {
  for (const pod of pods) await pod.kill();
  await nc?.close();
  await nats?.stop();
  await fake?.close();
  await media?.close();
});

/** `switchboard-gows nats`: the Go engine as its own cluster-mode engine pod, as the operator runs one. */
async function startPod(name: string, uid = `uid-${name}`, env: Record<string, string> = {}): Promise<PodProcess> {
  const pod = await PodProcess.spawn(
    binary,
    ['nats'],
    {
      SWITCHBOARD_SESSION: SESSION,
      SWITCHBOARD_ENGINE: 'GOWS',
      SWITCHBOARD_NATS_URL: nats.url,
      SWITCHBOARD_POD_NAME: name,
      SWITCHBOARD_POD_UID: uid,
      SWITCHBOARD_METADATA: '{"team":"go"}',
      SWITCHBOARD_BASE_URL: 'https://api.example.test',
      SWITCHBOARD_GOWS_WS_URL: fake.url,
      SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY: fake.certRootPublicKey,
      SWITCHBOARD_GOWS_MEDIA_CA: mediaCa,
      ...env,
    },
    process.env.GOWS_LOG ? 'gows-pod' : undefined,
  );
  pods.push(pod);
  return pod;
}

async function command<T = unknown>(op: string, args: Record<string, unknown> = {}): Promise<T> {
  const msg = await nc.request(`sb.cmd.${SESSION}`, JSON.stringify({ op, args }), { timeout: 20_000 });
  const reply = msg.json<CommandReply>();
  if (!reply.ok) throw Object.assign(new Error(reply.error.message), reply.error);
  return reply.result as T;
}

const status = async () => (await command<{ status: string }>('host.status')).status;

async function event(name: string, match: (payload: Record<string, unknown>) => boolean, since = 0): Promise<EventEnvelope> {
  let found: EventEnvelope | undefined;
  await waitFor(() => (found = envelopes.slice(since).find((e) => e.event === name && match(e.payload))) !== undefined, `event ${name}`, 20_000);
  return found!;
}

describe('switchboard-gows nats: the Go engine as a cluster-mode engine pod', () => {
  it('takes the lease, pairs, reaches WORKING, sends and receives, and a replacement pod resumes without a QR code', async () => {
    const pod = await startPod('engine-gows-1');
    await waitFor(async () => (await pod.probe('/readyz')) === 200, 'the pod ready', 20_000);
    expect(await pod.probe('/healthz')).toBe(200);
    const lease = await (await nc.jetstream().views.kv('sb_leases', { bindOnly: true })).get(SESSION);
    expect(lease?.json()).toMatchObject({ holder: 'engine-gows-1' });

    await waitFor(async () => (await status()) === 'SCAN_QR_CODE', 'SCAN_QR_CODE', 20_000);
    await expect(command('send.text', { chatId: '15551230001@c.us', text: 'too early' })).rejects.toMatchObject({ code: 'WRONG_STATUS' });
    await expect(command('send.list', { chatId: 'y', message: {} })).rejects.toMatchObject({ code: 'NOT_SUPPORTED' });
    // A label the phone had before pairing comes with the first app state sync (labels.go fullSyncEvents).
    await fake.phone({ phone: '15550001111', pushName: 'Ada' }).label({ id: '3', name: 'Before pairing', color: 4 });
    const { value } = await command<{ value: string }>('auth.qr');
    const phone = await fake.scanQr(value, { phone: '15550001111', pushName: 'Ada' });
    await waitFor(async () => (await status()) === 'WORKING', 'WORKING', 20_000);
    await event('label.upsert', (p) => p.id === '3');
    expect(await command('labels.list')).toEqual([expect.objectContaining({ id: '3', name: 'Before pairing', color: 4 })]);
    const working = await event('session.status', (p) => p.status === 'WORKING');
    expect(working).toMatchObject({
      session: SESSION,
      engine: 'GOWS',
      metadata: { team: 'go' },
      environment: { tier: 'CORE', engine: 'GOWS', worker: { id: 'engine-gows-1' } },
    });
    expect(working.id).toMatch(/^evt_[0-9a-z]{26}$/);
    expect(await command('me')).toMatchObject({ id: '15550001111@c.us' });

    fake.contact('15551230001', '245120000000001');
    const inboundId = phone.text('15551230001', 'hello from Bob', { pushName: 'Bob' });
    const inbound = await event('message', (p) => p.body === 'hello from Bob');
    expect(inbound.me).toMatchObject({ id: '15550001111@c.us' });
    expect(inbound.payload).toMatchObject({ id: `false_15551230001@c.us_${inboundId}`, from: '15551230001@c.us' });
    // The group.v2 events are the engine's own (engines/gows/internal/engine/group-events.go), published like any other event.
    const group = await command<{ id: string }>('group.create', { name: 'Pod crew', participants: [{ id: '15551230001@c.us' }] });
    await event('group.v2.join', (p) => (p.group as { id: string }).id === group.id);
    await command('group.setSubject', { id: group.id, subject: 'Pod crew 2' });
    const update = await event('group.v2.update', (p) => (p.group as { id: string }).id === group.id);
    expect(update.payload.group).toEqual({ id: group.id, subject: 'Pod crew 2' });
    // Every envelope the Go pod publishes matches the protocol's schema of its event.
    for (const envelope of envelopes) expect(eventIssues(envelope), envelope.event).toBeNull();

    const sent = await command<{ id: string; body: string }>('send.text', { chatId: '15551230001@c.us', text: 'hi Bob', linkPreview: true });
    expect(sent).toMatchObject({ body: 'hi Bob', fromMe: true });
    await event('message.ack', (p) => p.id === sent.id && p.ackName === 'SERVER');
    expect(await phone.read(sent.id.split('_')[2]!)).toMatchObject({ conversation: 'hi Bob' });

    // History in sb_messages, and the auth state under the Node pod's keys.
    const history = await NatsMessageStore.open(nc, { bind: true });
    const sentId = sent.id.split('_')[2]!;
    await waitFor(
      async () => (await history.get(SESSION, '15551230001@c.us', sentId))?.ackName === 'SERVER',
      'the sent message in the history',
      10_000,
    );
    expect(await history.get(SESSION, '15551230001@c.us', inboundId)).toMatchObject({ body: 'hello from Bob', fromMe: false });
    const auth = await NatsAuthStateStore.open(nc, SESSION, { bind: true });
    expect(Object.keys(await auth.get('gows-index', ['device']))).toEqual(['device']);

    // A clean stop hands the lease over; the replacement logs in on the stored auth state.
    const before = envelopes.length;
    pod.signal('SIGTERM');
    expect(await pod.exited).toBe(0);
    const next = await startPod('engine-gows-2');
    await waitFor(async () => (await next.probe('/readyz')) === 200, 'the replacement ready', 20_000);
    await waitFor(async () => (await status()) === 'WORKING', 'WORKING again', 20_000);
    expect(envelopes.slice(before).some((e) => e.event === 'session.status' && e.payload.status === 'SCAN_QR_CODE')).toBe(false);
    const third = phone.text('15551230001', 'after the replacement');
    await event('message', (p) => p.id === `false_15551230001@c.us_${third}`, before);
  });

  it('a container killed and started again in the same pod takes its lease back at once (not after the ttl) and resumes without a QR code', async () => {
    const killed = pods.at(-1)!;
    await waitFor(async () => (await status()) === 'WORKING', 'WORKING', 20_000);
    const before = envelopes.length;
    await killed.kill(); // SIGKILL: no release, the key stays until its 15-s ttl
    const restarted = await startPod('engine-gows-2'); // the same pod: same name, same uid
    await waitFor(async () => (await restarted.probe('/readyz')) === 200, 'the restarted container ready', 20_000);
    expect(restarted.log).toContain('session lease taken back from an earlier container of this pod');
    const lease = await (await nc.jetstream().views.kv('sb_leases', { bindOnly: true })).get(SESSION);
    expect(lease?.json()).toMatchObject({ holder: 'engine-gows-2', podUid: 'uid-engine-gows-2' });
    await waitFor(async () => (await status()) === 'WORKING', 'WORKING again', 20_000);
    expect(envelopes.slice(before).some((e) => e.event === 'session.status' && e.payload.status === 'SCAN_QR_CODE')).toBe(false);
  });
  it("channels.preview with downloadMedia: a post's file goes to the session's object store, where the gateway serves it from", async () => {
    await waitFor(async () => (await status()) === 'WORKING', 'WORKING', 20_000);
    const news = fake.newsletters.add({ name: 'Harbour Pictures' });
    const bytes = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(20_000)]);
    fake.newsletters.post(news.id, { imageMessage: { ...media.servePlain(bytes), mimetype: 'image/png', caption: 'Dawn' } });
    const preview = (downloadMedia: boolean) =>
      command<ChannelMessage[]>('channels.preview', { channel: { by: 'id', key: news.id }, limit: 5, downloadMedia });
    expect((await preview(false))[0]?.message).toMatchObject({ body: 'Dawn', hasMedia: true, media: null });
    const [post] = await preview(true);
    expect(post?.message.media).toMatchObject({ mimetype: 'image/png', filename: null });
    const url = (post?.message.media as { url: string }).url;
    expect(url).toMatch(new RegExp(`^https://api\\.example\\.test/api/files/${SESSION}/[A-Za-z0-9_-]{22}\\.png$`));
    const id = /\/([A-Za-z0-9_-]{22})\.png$/.exec(url)![1]!;
    expect((await (await NatsMediaStore.open(nc)).get(SESSION, id))?.data.equals(bytes)).toBe(true);
  });

  it("serves paced sending's series at /metrics as the Node engine pods do: the same names, help, types, labels and buckets", async () => {
    const previous = pods.at(-1)!;
    previous.signal('SIGTERM');
    expect(await previous.exited).toBe(0);
    const pod = await startPod('engine-gows-3', undefined, { SWITCHBOARD_SENDING: '{"perMinute":1}' });
    await waitFor(async () => (await pod.probe('/readyz')) === 200 && (await status()) === 'WORKING', 'the paced pod WORKING', 20_000);
    const paced = (text: string, waitMs: number) =>
      command<{ outcome: string }>('host.sendQueue.submit', {
        route: '/api/sendText',
        command: { op: 'send.text', args: { chatId: '15551230001@c.us', text, linkPreview: false } },
        waitMs,
      });
    expect(await paced('first of the minute', 20_000)).toMatchObject({ outcome: 'sent' });
    expect(await paced('held by the minute', 0)).toMatchObject({ outcome: 'queued' });
    await waitFor(async () => (await pod.metrics()).includes('switchboard_send_queue_held_total{'), 'the hold counted', 20_000);
    const go = await pod.metrics();

    // What the Node pods serve for the same state (engine-pod's SendQueueMetrics on a registry of its own).
    const registry = new Registry();
    const node = new SendQueueMetrics(registry);
    node.depths(() => new Map([[SESSION, 1]]));
    node.waited(SESSION, 5);
    node.held(SESSION, 'rate');
    const expected = await registry.metrics();
    /** Each line's series (HELP and TYPE lines whole, samples without their value), sorted with its labels sorted. */
    const shape = (text: string) =>
      text
        .split('\n')
        .filter((line) => line.startsWith('switchboard_send_queue') || line.startsWith('# '))
        .map((line) => {
          if (line.startsWith('# ')) return line;
          const [, name, labels] = /^([a-z_]+)\{(.*)\} /.exec(line)!;
          return `${name}{${labels!.split(',').sort().join(',')}}`;
        })
        .sort();
    expect(shape(go)).toEqual(shape(expected));
    expect(go).toContain(`switchboard_send_queue_depth{session="${SESSION}"} 1\n`);
    expect(go).toContain(`switchboard_send_queue_held_total{session="${SESSION}",reason="rate"} 1\n`);
    expect(go).toContain(`switchboard_send_queue_wait_seconds_count{session="${SESSION}"} 1\n`);
  });
});
