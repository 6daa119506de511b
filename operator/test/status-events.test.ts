import { type NatsServer, startNatsServer, waitFor } from '@switchboard/testkit';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperatorMetrics } from '../src/operator-metrics.js';
import { EngineStatusStore } from '../src/status-events.js';
import { testLog } from './support/log.js';
import { sleep } from './support/wait.js';
import { FakeEngine } from './support/fake-engine.js';

describe('engine statuses from NATS', () => {
  let nats: NatsServer;
  let nc: NatsConnection;
  let store: EngineStatusStore;
  const reported: string[] = [];
  const metrics = new OperatorMetrics({ queueDepth: () => 0, isLeader: () => true }, { defaultMetrics: false });

  beforeAll(async () => {
    nats = await startNatsServer();
    nc = await connect({ servers: nats.url });
    store = new EngineStatusStore(nc, (session) => reported.push(session), testLog, metrics);
    store.start();
  });
  afterAll(async () => {
    store.stop();
    await nc.close();
    await nats.stop();
  });

  it('keeps the latest session.status of each session, with the envelope me, and reports the session', async () => {
    const engine = new FakeEngine(nc, 'S_1');
    engine.publishStatus('WORKING', { id: '15550000000@c.us', pushName: 'Sandbox' });
    const report = await waitFor(async () => store.get('S_1'), 'the report');
    expect(report).toMatchObject({ status: 'WORKING', me: { id: '15550000000@c.us', pushName: 'Sandbox' } });
    expect(report.statuses.map((p) => p.status)).toEqual(['STARTING', 'WORKING']);
    expect(reported).toContain('S_1');
    engine.stop();
  });

  it('ignores a report older than the one it has, and envelopes that are not spec 2.4', async () => {
    const subject = 'sb.evt.s2.session.status';
    const envelope = (status: string, timestamp: number) =>
      JSON.stringify({
        id: 'evt_1',
        timestamp,
        event: 'session.status',
        session: 's2',
        metadata: {},
        payload: { name: 's2', status, statuses: [{ status, timestamp }] },
      });
    nc.publish(subject, envelope('WORKING', 2_000));
    nc.publish(subject, envelope('STARTING', 1_000));
    nc.publish(subject, '{"not":"an envelope"}');
    nc.publish(subject, envelope('NOT_A_STATUS', 3_000));
    await nc.flush();
    await waitFor(async () => store.get('s2'), 'the report');
    await sleep(100);
    expect(store.get('s2')?.status).toBe('WORKING');
  });

  it('keeps the last silence the engine reported through the reports after it, until the pod is forgotten', async () => {
    const subject = 'sb.evt.quiet.session.status';
    const reason = 'silent: nothing received from the messaging service for 2000 ms; reconnecting';
    const publish = (status: string, timestamp: number, extra: Record<string, unknown> = {}) =>
      nc.publish(
        subject,
        JSON.stringify({
          id: `evt_${timestamp}`,
          timestamp,
          event: 'session.status',
          session: 'quiet',
          metadata: {},
          payload: { name: 'quiet', status, statuses: [{ status, timestamp }], ...extra },
        }),
      );
    publish('WORKING', 1_000);
    expect((await waitFor(async () => store.get('quiet'), 'WORKING')).silence).toBeNull();
    publish('STARTING', 2_000, { reason });
    expect(await waitFor(async () => store.get('quiet')?.status === 'STARTING' && store.get('quiet'), 'STARTING')).toMatchObject({
      silence: { at: 2_000, reason },
    });
    publish('WORKING', 3_000);
    expect(await waitFor(async () => store.get('quiet')?.status === 'WORKING' && store.get('quiet'), 'WORKING again')).toMatchObject({
      silence: { at: 2_000, reason },
    });
    store.forget('quiet');
    publish('WORKING', 4_000);
    expect((await waitFor(async () => store.get('quiet'), 'the next pod')).silence).toBeNull();
  });

  it('drops a status whose body names another session than its subject, and counts it', async () => {
    const envelope = (session: string, status: string, timestamp: number) =>
      JSON.stringify({
        id: `evt_${timestamp}`,
        timestamp,
        event: 'session.status',
        session,
        metadata: {},
        payload: { name: session, status, statuses: [{ status, timestamp }] },
      });
    // The pod of `mallory` may publish on its own subjects only, but writes victim's name in the body.
    nc.publish('sb.evt.mallory.session.status', envelope('victim', 'FAILED', 2_000));
    // Then a genuine report of each, so the wait below knows both were read.
    nc.publish('sb.evt.victim.session.status', envelope('victim', 'WORKING', 1_000));
    nc.publish('sb.evt.mallory.session.status', envelope('mallory', 'WORKING', 1_000));
    await nc.flush();
    await waitFor(async () => store.get('victim') && store.get('mallory'), 'the genuine reports');
    expect(store.get('victim')?.status).toBe('WORKING');
    expect(reported.filter((s) => s === 'victim')).toHaveLength(1);
    const counted = await metrics.registry.getSingleMetric('switchboard_operator_forged_events_dropped_total')!.get();
    expect(counted.values).toEqual([expect.objectContaining({ value: 1 })]);
  });

  it('asks host.status when it has nothing, and forgets a session whose pod is gone', async () => {
    const engine = new FakeEngine(nc, 's3', async () => ({ status: 'SCAN_QR_CODE', statuses: [{ status: 'SCAN_QR_CODE', timestamp: 5 }], me: null }));
    expect(await store.ask('s3', 2_000)).toMatchObject({ status: 'SCAN_QR_CODE', statuses: [{ status: 'SCAN_QR_CODE', timestamp: 5 }], me: null });
    expect(engine.received).toEqual(['host.status']);
    store.forget('s3');
    expect(store.get('s3')).toBeNull();
    engine.stop();
  });

  it('an engine that does not answer gives no report', async () => {
    expect(await store.ask('nobody', 300)).toBeNull();
  });
});
