// Cluster mode end to end: the message history and media outlive the engine pod that wrote them,
// and every gateway replica reads them, with a pod or without one (docs/architecture.md,
// "Message history and media").
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForStatus, workingSession } from '../contract/harness.js';
import { ADMIN_KEY, type ClusterEnvironment, type GatewayProcess, startClusterEnvironment } from './support/cluster-environment.js';

let env: ClusterEnvironment;
let first: GatewayProcess;
let second: GatewayProcess;

beforeAll(async () => {
  env = await startClusterEnvironment();
  await env.startOperator('operator-0');
  await env.waitForOperatorLeader('operator-0');
  [first, second] = await Promise.all([env.startGateway(), env.startGateway()]);
});

afterAll(async () => {
  await env?.stop();
});

const chat = '15551234567@c.us';
const history = (gw: GatewayProcess) => gw.api('GET', `/api/keeper/chats/${chat}/messages?sortOrder=asc&limit=100`);

describe('history and media in cluster mode', () => {
  it('survive the engine pod being deleted, and any replica reads them with or without a pod', async () => {
    await workingSession(first, 'keeper');
    const [old] = await env.enginePods('keeper');
    const received = await first.api('POST', '/api/keeper/sandbox/simulate', {
      kind: 'message',
      from: chat,
      body: 'a file',
      media: { mimetype: 'text/plain', filename: 'note.txt', data: Buffer.from('kept bytes').toString('base64') },
    });
    expect(received.status).toBe(201);
    await first.api('POST', '/api/sendText', { session: 'keeper', chatId: chat, text: 'got it' });
    const before = await waitFor(
      async () => {
        const res = await history(first);
        return res.body.length === 2 && res.body[1].ackName === 'DEVICE' && res.body;
      },
      'both messages recorded, the sent one at DEVICE',
      15_000,
    );
    // The other replica never saw these events through its own API calls.
    expect((await history(second)).body).toEqual(before);

    // The pod dies; the operator makes a new one, which holds the lease and goes on.
    await env.cp.kubectl(['delete', 'pod', old!.name, '-n', env.namespace, '--wait=false']);
    await waitFor(async () => (await env.enginePods('keeper')).some((pod) => pod.uid !== old!.uid && pod.ready), 'a new ready engine pod', 60_000);
    await waitForStatus(second, 'keeper', 'WORKING', 30_000);
    await second.api('POST', '/api/keeper/sandbox/simulate', { kind: 'message', from: chat, body: 'after the new pod' });
    const after = await waitFor(
      async () => {
        const res = await history(first);
        return res.body.length === 3 && res.body;
      },
      'the third message',
      15_000,
    );
    expect(after.map((record: { body: string }) => record.body)).toEqual(['a file', 'got it', 'after the new pod']);

    // Stopped: no pod at all. History and the file are still served, by either replica.
    await second.api('POST', '/api/sessions/keeper/stop');
    await waitFor(async () => (await env.enginePods('keeper')).length === 0, 'no engine pod', 60_000);
    expect((await history(second)).body).toEqual(after);
    const file = await fetch(second.url + new URL(received.body.media.url).pathname, { headers: { 'x-api-key': ADMIN_KEY } });
    expect(file.status).toBe(200);
    expect(await file.text()).toBe('kept bytes');
  });
});
