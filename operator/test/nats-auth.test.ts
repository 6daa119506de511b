import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { CommandObjects, dropSessionStores, ensureClusterStores, ensureSessionStores, raiseReplicas } from '@switchboard/kube';
import { type CommandReply, INBOX_PREFIXES, KV_BUCKETS, OBJECT_STORES, objectStoreStream, STREAMS, SUBJECTS } from '@switchboard/protocol';
import { type NatsServer, startNatsServer, waitFor } from '@switchboard/testkit';
import { connect, credsAuthenticator, type NatsConnection } from 'nats';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
// The operator does not depend on engine-pod (its image ships no engine): the engine pod's stores
// and process come from that package's source, as a pod in the cluster would use them.
import { MediaTooLargeError, NatsAuthStateStore, NatsMediaStore, NatsMessageStore, readHistory } from '../../engine-pod/src/index.js';
import { NatsSendQueue } from '../../engine-pod/src/cluster/nats-send-queue.js';
import { PodProcess, REPO_ROOT } from '../../engine-pod/test/cluster/pod-process.js';
import { createNatsAuth, mintEngineCredentials, type NatsAuth } from '../src/nats-auth/nats-auth.js';

// The authentication cluster mode runs NATS with (nats-auth.ts), against a real nats-server
// started with the configuration it generates: what one engine pod's credentials may and may not do.

const POD_WAIT_MS = 15_000;
let auth: NatsAuth;
let server: NatsServer;
let operator: NatsConnection;
const connections: NatsConnection[] = [];
const pods: PodProcess[] = [];

async function connectAs(credentials: string, inboxPrefix: string): Promise<NatsConnection> {
  const nc = await connect({ servers: server.url, authenticator: credsAuthenticator(new TextEncoder().encode(credentials)), inboxPrefix });
  connections.push(nc);
  return nc;
}
const engineConnection = async (session: string) => connectAs(await mintEngineCredentials(auth, session), INBOX_PREFIXES.engine(session));

beforeAll(async () => {
  // The pod runs from its build, as in a container (incremental, quick when up to date).
  execFileSync(join(REPO_ROOT, 'node_modules/.bin/tsc'), ['-b', 'engine-pod'], { cwd: REPO_ROOT, stdio: 'pipe' });
  auth = await createNatsAuth();
  server = await startNatsServer({ config: auth.serverConfig });
  // As the operator does at start-up: engine pods only bind to what exists.
  operator = await connectAs(auth.operatorCredentials, INBOX_PREFIXES.operator);
  await ensureClusterStores(operator);
}, 120_000);
afterEach(async () => {
  await Promise.all(pods.splice(0).map((pod) => pod.kill()));
});
afterAll(async () => {
  await Promise.all(connections.map((nc) => nc.close()));
  await server?.stop();
});

const permissionError = (subject: string) => expect.objectContaining({ code: 'PERMISSIONS_VIOLATION', message: expect.stringContaining(subject) });

describe('NATS authentication (cluster mode)', () => {
  it("the operator's credentials may raise every stream of the product to the replicas asked for, as it does at start", async () => {
    // One server: nothing to raise, but listing and updating are what a permission refusal would stop.
    await expect(raiseReplicas(await operator.jetstreamManager(), 1)).resolves.toEqual([]);
    // A session's own bucket, whose stream no name in the permissions spells out.
    await ensureSessionStores(operator, 'gina');
    const jsm = await operator.jetstreamManager();
    const { config } = await jsm.streams.info(objectStoreStream(OBJECT_STORES.media('gina')));
    await expect(jsm.streams.update(config.name, config)).resolves.toMatchObject({ config: { name: config.name } });
    expect(await dropSessionStores(operator, 'gina')).toBe(2);
  });

  it('refuses a connection without credentials', async () => {
    await expect(connect({ servers: server.url, reconnect: false })).rejects.toMatchObject({ code: 'AUTHORIZATION_VIOLATION' });
  });

  it("an engine pod's credentials cannot read another session's auth state, publish its events, or take its commands", async () => {
    const bob = await NatsAuthStateStore.open(await engineConnection('bob'), 'bob', { bind: true });
    await bob.set({ creds: { me: { secret: 'bob-only' } } });
    expect(await bob.get('creds', ['me'])).toEqual({ me: { secret: 'bob-only' } });

    const alice = await engineConnection('alice');
    // Bob's key, through the same store code alice's pod runs, and through the raw KV API.
    const asBob = await NatsAuthStateStore.open(alice, 'bob', { bind: true });
    await expect(asBob.get('creds', ['me'])).rejects.toEqual(permissionError(`$KV.${KV_BUCKETS.auth}.bob.`));
    await expect(asBob.set({ creds: { me: { secret: 'alice was here' } } })).rejects.toEqual(permissionError(`$KV.${KV_BUCKETS.auth}.bob.`));
    const kv = await alice.jetstream().views.kv(KV_BUCKETS.auth, { bindOnly: true, allow_direct: true });
    await expect(kv.get('bob.x.y')).rejects.toEqual(permissionError('bob.x.y'));
    await expect(alice.jetstream().publish(SUBJECTS.event('bob', 'message'), '{}')).rejects.toEqual(permissionError('sb.evt.bob.message'));
    // Nor list the bucket (a consumer on every key), nor look at the stream's subjects.
    const jsm = await alice.jetstreamManager();
    await expect(jsm.streams.info(`KV_${KV_BUCKETS.auth}`, { subjects_filter: '>' })).rejects.toEqual(permissionError('STREAM.INFO'));
    await expect(kv.keys()).rejects.toEqual(permissionError('CONSUMER.CREATE'));
    // Bob's commands and the replies meant for others are not alice's to read.
    const denied = new Promise((resolve) => alice.subscribe(SUBJECTS.command('bob'), { callback: (error) => resolve(error) }));
    await expect(denied).resolves.toEqual(permissionError('sb.cmd.bob'));
    const inbox = new Promise((resolve) => alice.subscribe(`${INBOX_PREFIXES.gateway}.>`, { callback: (error) => resolve(error) }));
    await expect(inbox).resolves.toEqual(permissionError(INBOX_PREFIXES.gateway));

    // Bob's state is as bob left it.
    expect(await bob.get('creds', ['me'])).toEqual({ me: { secret: 'bob-only' } });
  });

  it("an engine pod's credentials keep its own session's send queue (paced sending), and cannot read or write another's", async () => {
    const send = (session: string, id: string) => ({
      id,
      session,
      chatId: '15550001111@c.us',
      route: '/api/sendText',
      command: { op: 'send.text' as const, args: { chatId: '15550001111@c.us', text: 'hi', linkPreview: true, id } },
      state: 'queued' as const,
      queuedAt: 1,
    });
    const carol = await NatsSendQueue.open(await engineConnection('carol'), { session: 'carol', fencingToken: () => 1, bind: true });
    expect(await carol.add(send('carol', 'C1'))).toBe(true);
    await carol.markSending('carol', 'C1');
    await carol.markSent('carol', 'C1', { chatId: '15550001111@c.us', at: Date.now() });
    await carol.setPairedAt('carol', 5);
    const again = await NatsSendQueue.open(await engineConnection('carol'), { session: 'carol', fencingToken: () => 1, bind: true });
    expect(again.recentSends('carol', 0)).toHaveLength(1);
    expect(again.pairedAt()).toBe(5);

    const dave = await engineConnection('dave');
    await expect(NatsSendQueue.open(dave, { session: 'carol', fencingToken: () => 1, bind: true })).rejects.toEqual(
      permissionError(`$KV.${KV_BUCKETS.sendQueues}.carol.`),
    );
    const kv = await dave.jetstream().views.kv(KV_BUCKETS.sendQueues, { bindOnly: true, allow_direct: true });
    await expect(kv.put('carol.pairing', '{}')).rejects.toEqual(permissionError('carol.pairing'));
    await expect(kv.get('carol.pairing')).rejects.toEqual(permissionError('carol.pairing'));
  });

  it("an engine pod's credentials reach its own session's media and spilled commands, and no other session's", async () => {
    await ensureSessionStores(operator, 'dave');
    await ensureSessionStores(operator, 'erin');
    const gateway = await connectAs(auth.gatewayCredentials, INBOX_PREFIXES.gateway);
    const file = { mimetype: 'image/png', filename: 'p.png', data: Buffer.from('png!') };
    const command = JSON.stringify({ op: 'host.status' });
    const gatewayCommands = new CommandObjects(gateway);
    const gatewayMedia = await NatsMediaStore.open(gateway);
    // Erin's file, written by her pod, and a large command the gateway spilled for her.
    const erinFile = await (await NatsMediaStore.open(await engineConnection('erin'))).put('erin', file);
    const erinCommand = await gatewayCommands.put('erin', command);

    // Dave's own: his pod writes a file the gateway serves, and takes the command spilled for him.
    const dave = await engineConnection('dave');
    const daveMedia = await NatsMediaStore.open(dave);
    const daveFile = await daveMedia.put('dave', file);
    expect((await gatewayMedia.get('dave', daveFile.id))?.data.toString()).toBe('png!');
    const daveCommand = await gatewayCommands.put('dave', command);
    expect(await new CommandObjects(dave).take('dave', daveCommand.headers)).toBe(command);

    // Erin's media bucket: no write (through the store dave's pod runs, and raw), no read.
    const erinMedia = objectStoreStream(OBJECT_STORES.media('erin'));
    await expect(daveMedia.put('erin', file)).rejects.toEqual(permissionError(erinMedia));
    const rawMedia = await dave.jetstream().views.os(OBJECT_STORES.media('erin'));
    await expect(rawMedia.putBlob({ name: 'erin/planted' }, Buffer.from('x'))).rejects.toEqual(permissionError(erinMedia));
    const chunk = `$O.${OBJECT_STORES.media('erin')}.C.planted`;
    await expect(dave.jetstream().publish(chunk, Buffer.from('x'))).rejects.toEqual(permissionError(chunk));
    await expect(rawMedia.getBlob(`erin/${erinFile.id}`)).rejects.toEqual(permissionError(erinMedia));
    await expect(rawMedia.delete(`erin/${erinFile.id}`)).rejects.toEqual(permissionError(erinMedia));
    // Erin's spilled command: not read, not deleted, by its name or otherwise.
    const erinCommands = objectStoreStream(OBJECT_STORES.commands('erin'));
    await expect(new CommandObjects(dave).take('erin', erinCommand.headers)).rejects.toEqual(permissionError(erinCommands));
    const rawCommands = await dave.jetstream().views.os(OBJECT_STORES.commands('erin'));
    await expect(rawCommands.delete(erinCommand.name)).rejects.toEqual(permissionError(erinCommands));
    await expect(rawCommands.list()).rejects.toEqual(permissionError(erinCommands));

    // Erin's file and command are as she and the gateway left them.
    expect((await gatewayMedia.get('erin', erinFile.id))?.data.toString()).toBe('png!');
    expect(await new CommandObjects(gateway).take('erin', erinCommand.headers)).toBe(command);
    // The operator's finalizer deletes a deleted session's buckets; a pod may not.
    await expect(dropSessionStores(dave, 'dave')).rejects.toEqual(permissionError('STREAM.DELETE'));
    expect(await dropSessionStores(operator, 'erin')).toBe(2);
  });

  it("an engine pod's credentials purge what a received file over the media limit wrote to its own bucket", async () => {
    await ensureSessionStores(operator, 'frank');
    const frank = await NatsMediaStore.open(await engineConnection('frank'));
    const stream = objectStoreStream(OBJECT_STORES.media('frank'));
    const messages = async () => (await (await operator.jetstreamManager()).streams.info(stream)).state.messages;
    const before = await messages();
    const chunk = Buffer.alloc(128 * 1024, 1);
    async function* overTheLimit() {
      for (let i = 0; i < 8; i++) yield chunk;
      throw new MediaTooLargeError(8 * chunk.length);
    }
    await expect(frank.putStream('frank', { mimetype: 'application/pdf', filename: null }, overTheLimit())).rejects.toBeInstanceOf(
      MediaTooLargeError,
    );
    // Its chunks are gone at once, not left taking the stream's space until the bucket's TTL.
    expect(await messages()).toBe(before);
    expect(await dropSessionStores(operator, 'frank')).toBe(2);
  });

  it('an engine pod with its own credentials runs its session end to end: lease, commands, events, history, media, logout', async () => {
    const gateway = await connectAs(auth.gatewayCredentials, INBOX_PREFIXES.gateway);
    // As the operator does before it creates the pod: the session's own buckets.
    await ensureSessionStores(operator, 'carol');
    const pod = await PodProcess.start({
      SWITCHBOARD_SESSION: 'carol',
      SWITCHBOARD_NATS_URL: server.url,
      SWITCHBOARD_NATS_CREDS: await mintEngineCredentials(auth, 'carol'),
      SWITCHBOARD_POD_NAME: 'engine-carol',
    });
    pods.push(pod);
    const result = async (body: unknown) => {
      const reply = (await gateway.request(SUBJECTS.command('carol'), JSON.stringify(body), { timeout: 5_000 })).json<CommandReply>();
      if (!reply.ok) throw new Error(`${JSON.stringify(body)} failed: ${JSON.stringify(reply.error)}\n${pod.log}`);
      return reply.result as Record<string, unknown>;
    };
    await waitFor(async () => (await pod.probe('/readyz')) === 200, `ready\n${pod.log}`, POD_WAIT_MS);
    await waitFor(async () => (await result({ op: 'host.status' })).status === 'SCAN_QR_CODE', 'SCAN_QR_CODE', POD_WAIT_MS);
    await result({ op: 'sandbox.simulate', args: { kind: 'scan' } });
    const chat = '15551234567@c.us';
    const media = { mimetype: 'image/png', filename: 'p.png', data: Buffer.from('png!').toString('base64') };
    await result({ op: 'sandbox.simulate', args: { kind: 'message', from: chat, body: 'photo', media } });
    const sent = await result({ op: 'send.text', args: { chatId: chat, text: 'hello' } });

    // Events on the stream, the history and the file, as a gateway reads them.
    const jsm = await gateway.jetstreamManager();
    const last = await jsm.streams.getMessage(STREAMS.events, { last_by_subj: SUBJECTS.event('carol', 'message.any') });
    expect(last.json<{ payload: { id: string } }>().payload.id).toBe(sent.id);
    const history = await NatsMessageStore.open(gateway);
    const records = await waitFor(
      async () => {
        const found = await readHistory(history, 'carol', { chatId: chat, merge: true, limit: 100, offset: 0, sortOrder: 'asc' });
        return found.length === 2 && found;
      },
      `both messages in the history\n${pod.log}`,
      POD_WAIT_MS,
    );
    const mediaId = /([A-Za-z0-9_-]{22})\.png$/.exec(records[0]!.media!.url)![1]!;
    expect((await (await NatsMediaStore.open(gateway)).get('carol', mediaId))?.data.toString()).toBe('png!');

    // A chat the phone deleted (as NOWEB relays it): the pod's history forgets it, key by key, as its credentials allow.
    await result({ op: 'sandbox.simulate', args: { kind: 'engine-event', event: 'chats.delete', data: { items: ['15551234567@s.whatsapp.net'] } } });
    await waitFor(
      async () => (await readHistory(history, 'carol', { chatId: chat, merge: true, limit: 100, offset: 0, sortOrder: 'asc' })).length === 0,
      `the deleted chat forgotten\n${pod.log}`,
      POD_WAIT_MS,
    );
    expect(pod.log).not.toMatch(/Permissions Violation|message history: write failed/i);

    // A command too large for one message: the gateway stores it in carol's command bucket, the pod takes it.
    const objects = new CommandObjects(gateway);
    const { headers } = await objects.put('carol', JSON.stringify({ op: 'host.status', args: {}, padding: 'x'.repeat(2 * 1024 * 1024) }));
    const large = (await gateway.request(SUBJECTS.command('carol'), '', { headers, timeout: 10_000 })).json<CommandReply>();
    expect(large, pod.log).toMatchObject({ ok: true, result: { status: 'WORKING' } });

    // Logout purges the pod's own auth keys (it may not purge the stream) and starts unpaired.
    await result({ op: 'host.logout' });
    await waitFor(async () => (await result({ op: 'host.status' })).status === 'SCAN_QR_CODE', 'unpaired after logout', POD_WAIT_MS);
    expect(pod.log).not.toMatch(/Permissions Violation/i);
  });
});
