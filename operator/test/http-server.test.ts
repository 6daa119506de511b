import { sample } from '@switchboard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type OperatorHttp, startOperatorHttp } from '../src/http-server.js';
import { OperatorMetrics } from '../src/operator-metrics.js';

describe('the operator HTTP endpoint: /healthz, /readyz, /metrics', () => {
  let http: OperatorHttp | undefined;
  afterEach(async () => {
    await http?.close();
    http = undefined;
  });

  it('answers liveness at once, readiness once the caches are synced, and 404/405 elsewhere', async () => {
    let ready = false;
    const metrics = new OperatorMetrics({ queueDepth: () => 0, isLeader: () => false }, { defaultMetrics: false });
    http = await startOperatorHttp({ port: 0, host: '127.0.0.1', metrics: metrics.registry, ready: () => ready });
    const url = `http://127.0.0.1:${http.port}`;

    const live = await fetch(`${url}/healthz`);
    expect(live.status).toBe(200);
    expect(await live.text()).toBe('ok\n');
    const notReady = await fetch(`${url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.text()).toMatch(/not synced/);
    ready = true;
    expect((await fetch(`${url}/readyz`)).status).toBe(200);

    expect((await fetch(`${url}/`)).status).toBe(404);
    expect((await fetch(`${url}/api/sessions`)).status).toBe(404);
    const post = await fetch(`${url}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('serves reconcile counts by outcome, their durations, the queue depth and leadership', async () => {
    let depth = 3;
    let leading = false;
    const metrics = new OperatorMetrics({ queueDepth: () => depth, isLeader: () => leading }, { defaultMetrics: false });
    http = await startOperatorHttp({ port: 0, host: '127.0.0.1', metrics: metrics.registry, ready: () => true });
    const scrape = async () => {
      const res = await fetch(`http://127.0.0.1:${http!.port}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      return res.text();
    };

    let text = await scrape();
    expect(sample(text, 'switchboard_operator_queue_depth')).toBe(3);
    // Served at 0, not missing (sample answers 0 for a series that is not there).
    expect(text).toMatch(/^switchboard_operator_leader 0$/m);
    expect(text).toMatch(/^switchboard_operator_reconcile_duration_seconds_count 0$/m);

    metrics.reconciled('success', 0.02);
    metrics.reconciled('success', 0.03);
    metrics.reconciled('conflict', 0.01);
    metrics.reconciled('error', 2);
    depth = 0;
    leading = true;
    text = await scrape();
    expect(sample(text, 'switchboard_operator_reconciles_total', { outcome: 'success' })).toBe(2);
    expect(sample(text, 'switchboard_operator_reconciles_total', { outcome: 'conflict' })).toBe(1);
    expect(sample(text, 'switchboard_operator_reconciles_total', { outcome: 'error' })).toBe(1);
    expect(sample(text, 'switchboard_operator_reconcile_duration_seconds_count')).toBe(4);
    expect(sample(text, 'switchboard_operator_reconcile_duration_seconds_bucket', { le: '0.05' })).toBe(3);
    expect(sample(text, 'switchboard_operator_queue_depth')).toBe(0);
    expect(sample(text, 'switchboard_operator_leader')).toBe(1);
  });

  it('refuses to start on a port that is taken, naming the cause', async () => {
    const metrics = new OperatorMetrics({ queueDepth: () => 0, isLeader: () => false }, { defaultMetrics: false });
    http = await startOperatorHttp({ port: 0, host: '127.0.0.1', metrics: metrics.registry, ready: () => true });
    await expect(startOperatorHttp({ port: http.port, host: '127.0.0.1', metrics: metrics.registry, ready: () => true })).rejects.toThrow(
      /EADDRINUSE/,
    );
  });
});
