// docs/operations.md, "From 1 server to 3 on a running release", on the real node: the chart
// installed with one NATS server, sessions of three engines paired (SANDBOX, and NOWEB and GOWS
// against the fake WhatsApp server), then `helm upgrade --reuse-values` to three servers. Every
// stream and bucket the product has must then be at three current copies, each session WORKING
// again without asking for a QR code, its engine pod the same one, never restarted, and
// a message sent through each session reaching the webhook, a large one too.
//
// The sessions' command buckets (OBJ_sb_commands_<token>) are transient by design: they hold a
// command larger than one NATS message for the moment between the gateway's put and the engine
// pod's take (a TTL removes anything left), and nobody opens them at start, so nats-server deletes
// them as orphans 30 s after server 0 joins the cluster. The gateway makes a session's bucket
// again at its next large command (kube/src/nats/command-objects.ts opens it for every call, as the
// engine pod reads it by name for every call): the large send below proves it for each session.
import { OBJECT_STORES, objectStoreStream } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type ChaosRelease, startChaosRelease } from './chaos/setup.js';
import { natsPods, productStreams, waitForCurrentCopies } from './nats.js';
import { seconds } from './release.js';
import { connectNodeCluster } from './support/node-cluster.js';

// Not in make test yet (`make nats-upgrade` runs it: SWITCHBOARD_NATS_UPGRADE=1): it passed 1 of 4
// runs, then the one run since engine pods ride out a lost lease. Each failure was a product problem
// it found, which docs/operations.md lists ("From 1 server to 3"): engines exiting on a session
// lease lost while JetStream answered "no responders" after the cluster formed (they now stop their
// engine and wait for the lease again), command buckets made again at one copy, a NOWEB message not
// on the webhook.
const RUN = process.env.SWITCHBOARD_NATS_UPGRADE === '1';
let chaos: ChaosRelease;

/** Each session's engine pod: which one it is, and how often its container started again. */
async function enginePods(): Promise<Record<string, string>> {
  const pods: Record<string, string> = {};
  for (const { name } of chaos.sessions) {
    const pod = await chaos.release.enginePod(name);
    pods[name] = `${pod?.metadata.uid} restarts ${pod?.status.containerStatuses?.[0]?.restartCount}`;
  }
  return pods;
}

/** The end of a session's engine container log (`--previous`: of the container before its last restart). */
async function engineLog(session: string, options: string[] = []): Promise<string> {
  const log = await chaos.release.kubectl(['logs', `engine-${session}`, '-c', 'engine', '--tail=15', ...options]);
  return `engine-${session}: ${log.stdout}${log.stderr}`;
}

const send = (session: string, chatId: string, data: string) =>
  chaos.release.api('POST', '/api/sendFile', { session, chatId, file: { mimetype: 'application/pdf', filename: 'large.pdf', data } });

/** A text through each session, acknowledged and then on the webhook under its id. */
async function sendThroughEach(text: string): Promise<void> {
  for (const session of chaos.sessions) {
    const res = await chaos.release.api('POST', '/api/sendText', { session: session.name, chatId: session.chatId, text });
    expect(res.status, `sendText through ${session.name}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(201);
    await waitFor(() => chaos.hooks.seen.messageAt.has(res.body.id as string), `${session.name}'s message on the webhook`, 120_000, 250);
  }
}

describe.runIf(RUN)('helm upgrade from one NATS server to a JetStream cluster of three', () => {
  const info = inject('nodeCluster');
  const cluster = connectNodeCluster(info);

  beforeAll(async () => {
    const started = Date.now();
    chaos = await startChaosRelease(cluster, info, 'sb-nats-grow', { nats: { bundled: { replicas: 1 } } }, { SANDBOX: 1, NOWEB: 1, GOWS: 1 });
    console.log(`e2e-node nats-cluster: one NATS server, ${chaos.sessions.length} sessions WORKING in ${seconds(Date.now() - started)}`);
  }, 1_200_000);

  afterAll(() => chaos?.close(), 600_000);

  it('keeps every stream, pairing and lease: three current copies, WORKING with no new QR, the same engine pods, events flowing', async () => {
    const { release } = chaos;
    const before = await productStreams(release);
    const pods = await enginePods();
    const qrs = chaos.hooks.seen.totalQrs();
    const commandBuckets = new Set(chaos.sessions.map(({ name }) => objectStoreStream(OBJECT_STORES.commands(name))));
    expect(before.get('KV_sb_auth')?.messages, 'pairings stored before the upgrade').toBeGreaterThan(0);

    const started = Date.now();
    // docs/operations.md: `helm upgrade --reuse-values --set nats.bundled.replicas=3`.
    await release.upgradeReusing({ nats: { bundled: { replicas: 3 } } });
    const upgraded = Date.now();
    expect(await natsPods(release)).toEqual([0, 1, 2].map((n) => `${release.full}-nats-${n}`));
    await waitForCurrentCopies(release, 3);
    const current = Date.now();
    for (const { name } of chaos.sessions) await release.waitForStatus(name, 'WORKING', 300_000);
    console.log(
      `e2e-node nats-cluster: helm upgrade --wait ${seconds(upgraded - started)}, every stream at 3 current copies ${seconds(current - started)}, ` +
        `every session WORKING ${seconds(Date.now() - started)}`,
    );

    const after = await productStreams(release);
    const gone = [...before.keys()].filter((name) => !after.has(name));
    expect(
      gone.filter((name) => !commandBuckets.has(name)),
      'streams the upgrade lost (besides the transient command buckets)',
    ).toEqual([]);
    expect(after.get('KV_sb_auth')?.messages, 'pairings after the upgrade').toBeGreaterThan(0);
    console.log(
      `e2e-node nats-cluster: ${after.size} streams at 3 copies; pairing entries ${before.get('KV_sb_auth')?.messages} before, ` +
        `${after.get('KV_sb_auth')?.messages} after; gone as orphans: ${gone.join(', ') || 'none'}`,
    );

    expect(chaos.hooks.seen.totalQrs() - qrs, 'sessions asking for a new QR').toBe(0);
    // A lease that lapsed stops its engine until the pod holds it again; the pods must be the same, never restarted.
    const now = await enginePods();
    const restarted = chaos.sessions.filter(({ name }) => now[name] !== pods[name]).map(({ name }) => name);
    const why = await Promise.all(restarted.map((name) => engineLog(name, ['--previous'])));
    expect(now, `engine pods restarted by the upgrade; their last words:\n${why.join('\n')}`).toEqual(pods);

    await sendThroughEach('after the upgrade');
  });

  it('sends a command larger than one NATS message through each session, its command bucket made again at three copies', async () => {
    const { release } = chaos;
    // Over NATS's 1 MB max_payload once in base64: the gateway spills it into the session's command bucket.
    const data = Buffer.alloc(900_000, 7).toString('base64');
    for (const session of chaos.sessions) {
      // A 503 says "try again" (JetStream still electing a leader somewhere): a client does, for up to a minute.
      const sent = Date.now();
      let res = await send(session.name, session.chatId, data);
      while (res.status === 503 && Date.now() - sent < 60_000) {
        await new Promise((r) => setTimeout(r, 1_000));
        res = await send(session.name, session.chatId, data);
      }
      const answer = JSON.stringify(res.body).slice(0, 300);
      console.log(
        `e2e-node nats-cluster: a large sendFile through ${session.name}: HTTP ${res.status} after ${seconds(Date.now() - sent)} ${answer}`,
      );
      if (session.engine === 'SANDBOX') {
        expect(res.status, answer).toBe(201);
        await waitFor(() => chaos.hooks.seen.messageAt.has(res.body.id as string), `${session.name}'s file on the webhook`, 120_000, 250);
      } else {
        // The socket engines upload a file to the messaging service's media server, which the fake
        // here does not serve: what counts is that the engine pod read the command from the bucket
        // and got as far as that upload (NOWEB says so in its answer, GOWS in its log).
        expect(`${answer}\n${await engineLog(session.name)}`).toMatch(/could not upload the file/);
      }
    }
    // Made again at one copy on server 0 (the seed), then raised: the new copies catch up.
    await waitForCurrentCopies(release, 3, 120_000);
    const streams = await productStreams(release);
    for (const { name } of chaos.sessions) {
      expect(streams.get(objectStoreStream(OBJECT_STORES.commands(name)))?.copies, `${name}'s command bucket`).toBe(3);
    }
  });
});
