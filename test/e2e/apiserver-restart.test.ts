// Cluster mode end to end, when the API server goes away: kube-apiserver stopped under a running
// operator for longer than its lease's renew deadline, then started again (as a control-plane
// restart or upgrade does). The operator process must neither exit nor need a restart: it stops
// leading while the API server is away, leads again when it is back, and reconciles as before.
// A gateway replica rides it out too: its caches catch up, and it creates sessions again.
import { CommandReply, SUBJECTS } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import type { NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForStatus } from '../contract/harness.js';
import { type ClusterEnvironment, connectNats, type GatewayProcess, startClusterEnvironment } from './support/cluster-environment.js';
import type { NodeProcess } from './support/node-process.js';

let env: ClusterEnvironment;
let operator: NodeProcess;
let gateway: GatewayProcess;
let nc: NatsConnection;

beforeAll(async () => {
  env = await startClusterEnvironment({ namespace: 'apiserver-restart' });
  operator = await env.startOperator('operator-a');
  await env.waitForOperatorLeader('operator-a');
  gateway = await env.startGateway();
  nc = await connectNats(env);
});

afterAll(async () => {
  await nc?.close();
  await env?.stop();
});

const apply = (session: string) =>
  env.cp.kubectl(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'switchboard.dev/v1alpha1',
      kind: 'MessagingSession',
      metadata: { name: session, namespace: env.namespace },
      spec: { engine: 'SANDBOX', desiredState: 'Running' },
    }),
  );

const statusOf = async (session: string): Promise<string | undefined> =>
  ((await env.resource(session)) as { status?: { status?: string } } | null)?.status?.status;

describe('the operator across a kube-apiserver restart', () => {
  it('keeps running, leads again, writes the status changes it saw meanwhile, and runs sessions created after; so does the gateway', async () => {
    await apply('before-restart');
    await waitFor(async () => (await statusOf('before-restart')) === 'SCAN_QR_CODE', 'before-restart SCAN_QR_CODE', 60_000);
    const pid = operator.pid;

    await env.cp.stopApiServer();
    // Longer than the renew deadline: the leader cannot renew, and stands down.
    await operator.waitForLog((line) => String(line.msg).startsWith('could not renew the lease'), 'the lost lease', 60_000);

    // The engine pod runs on without the API server: paired now, its WORKING reaches the
    // operator over NATS while the status cannot be written.
    const reply = CommandReply.parse(
      JSON.parse(
        (
          await nc.request(SUBJECTS.command('before-restart'), JSON.stringify({ op: 'sandbox.simulate', args: { kind: 'scan' } }), {
            timeout: 10_000,
          })
        ).string(),
      ),
    );
    expect(reply.ok).toBe(true);

    await env.cp.startApiServer();
    await env.waitForOperatorLeader('operator-a', 60_000);
    await waitFor(async () => (await statusOf('before-restart')) === 'WORKING', 'before-restart WORKING, written after the restart', 60_000);

    await apply('after-restart');
    await waitFor(
      async () => (await env.enginePods('after-restart')).some((pod) => pod.ready),
      'the engine pod of a session created after the restart',
      60_000,
    );
    await waitFor(async () => (await statusOf('after-restart')) === 'SCAN_QR_CODE', 'after-restart SCAN_QR_CODE', 30_000);

    // The gateway's cache caught up with the status written after the restart, and it creates sessions again.
    await waitForStatus(gateway, 'before-restart', 'WORKING', 60_000);
    expect((await gateway.api('POST', '/api/sessions', { name: 'via-gateway' })).status).toBe(201);
    await waitForStatus(gateway, 'via-gateway', 'SCAN_QR_CODE', 60_000);

    // The same processes all along: none exited or was restarted.
    expect(operator.running, operator.tail()).toBe(true);
    expect(operator.pid).toBe(pid);
    expect(gateway.process.running, gateway.process.tail()).toBe(true);
  });
});
