import { STREAMS } from '@switchboard/protocol';
import { type NatsServer, sample, startNatsServer } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../../../test/e2e/support/control-plane.js';
import { ADMIN_KEY, startClusterGateway, startControlPlane, type TestClusterGateway } from './kube-support.js';

// The cluster gateway's /metrics carry the NATS copies the "NATS not current" alert reads
// (stream-replicas.test.ts tests the reading itself on a three-server cluster). One NATS server:
// every stream has its one copy, current.

const NAMESPACE = 'switchboard-metrics';

describe('cluster gateway /metrics: NATS stream replicas', () => {
  let cp: ControlPlane;
  let nats: NatsServer;
  let gw: TestClusterGateway;

  beforeAll(async () => {
    [cp, nats] = await Promise.all([startControlPlane(NAMESPACE), startNatsServer()]);
    gw = await startClusterGateway(cp, NAMESPACE, nats.url);
  }, 180_000);

  afterAll(async () => {
    await gw?.close();
    await Promise.all([cp?.stop(), nats?.stop()]);
  }, 60_000);

  it('serves switchboard_nats_stream_replicas_current and _wanted for the streams the gateway made', async () => {
    const res = await fetch(`${gw.url}/metrics`, { headers: { 'x-api-key': ADMIN_KEY } });
    expect(res.status).toBe(200);
    const text = await res.text();
    for (const stream of [STREAMS.events, 'SB_DEAD', 'KV_sb_api_keys']) {
      expect(sample(text, 'switchboard_nats_stream_replicas_wanted', { stream }), `${stream} wanted`).toBe(1);
      expect(sample(text, 'switchboard_nats_stream_replicas_current', { stream }), `${stream} current`).toBe(1);
    }
  });
});
