import { sample, waitFor, WsClient } from '@switchboard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startGateway, type TestGateway, workingSession } from '../support/gateway.js';
import { startReceiver, type Receiver } from '../webhooks/support.js';

let gw: TestGateway | undefined;
let rx: Receiver | undefined;
afterEach(async () => {
  await gw?.close();
  await rx?.close();
  gw = rx = undefined;
});

const scrape = async (gateway: TestGateway, headers: Record<string, string> = { 'x-api-key': ADMIN_KEY }) => {
  const response = await fetch(`${gateway.url}/metrics`, { headers });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
};

describe('GET /metrics (Prometheus)', () => {
  it('needs the admin key, in X-Api-Key or as a bearer token, unless made public', async () => {
    gw = await startGateway();
    expect((await scrape(gw, {})).status).toBe(401);
    expect((await scrape(gw, { 'x-api-key': 'wrong' })).status).toBe(401);
    const withKey = await scrape(gw);
    expect(withKey.status).toBe(200);
    expect(withKey.type).toContain('text/plain');
    expect(withKey.text).toContain('# TYPE switchboard_events_total counter');
    expect((await scrape(gw, { authorization: `Bearer ${ADMIN_KEY}` })).status).toBe(200);
    await gw.close();

    gw = await startGateway({ metricsPublic: true });
    expect((await scrape(gw, {})).status).toBe(200);
  });

  it('counts per session: events by name, messages in and out, status changes, and webhook outcomes with latency', async () => {
    rx = await startReceiver((_, index) => (index === 0 ? 500 : 200));
    gw = await startGateway();
    const hook = { url: rx.url, events: ['message'], retries: { policy: 'constant', delaySeconds: 0.05, attempts: 3 } };
    await workingSession(gw, 'counted', { config: { webhooks: [hook] } });
    await workingSession(gw, 'quiet');
    for (const body of ['in 1', 'in 2']) {
      await gw.api('POST', '/api/counted/sandbox/simulate', { kind: 'message', from: '15557654321@c.us', body });
    }
    expect((await gw.api('POST', '/api/sendText', { session: 'counted', chatId: '15557654321@c.us', text: 'out' })).status).toBe(201);
    await waitFor(() => rx!.accepted.length === 2, 'both deliveries');

    // The receiver counts a delivery before its answer reaches the gateway, which counts it then.
    const text = await waitFor(async () => {
      const scraped = (await scrape(gw!)).text;
      return sample(scraped, 'switchboard_webhook_deliveries_pending') === 0 && scraped;
    }, 'the outcomes recorded');
    const of = (name: string, labels: Record<string, string> = {}) => sample(text, name, { session: 'counted', ...labels });
    expect(of('switchboard_events_total', { event: 'message' })).toBe(2);
    expect(of('switchboard_events_total', { event: 'message.any' })).toBe(3);
    expect(of('switchboard_messages_in_total')).toBe(2);
    expect(of('switchboard_messages_out_total')).toBe(1);
    expect(of('switchboard_session_status_changes_total', { status: 'WORKING' })).toBe(1);
    expect(of('switchboard_session_status_changes_total', { status: 'SCAN_QR_CODE' })).toBe(1);
    expect(sample(text, 'switchboard_session_status_changes_total', { session: 'quiet', status: 'WORKING' })).toBe(1);
    expect(of('switchboard_webhook_deliveries_succeeded_total')).toBe(2);
    expect(of('switchboard_webhook_deliveries_retried_total')).toBe(1);
    expect(of('switchboard_webhook_deliveries_dead_total')).toBe(0);
    expect(of('switchboard_webhook_delivery_latency_seconds_count')).toBe(2);
    // The retried delivery waited 50 ms at least; both took less than a minute.
    expect(of('switchboard_webhook_delivery_latency_seconds_bucket', { le: '0.025' })).toBeLessThanOrEqual(1);
    expect(of('switchboard_webhook_delivery_latency_seconds_bucket', { le: '60' })).toBe(2);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it("keeps each session's health: its status, its last event's time, and the lag of webhook and /ws deliveries; forgotten with the session", async () => {
    rx = await startReceiver(() => 200);
    gw = await startGateway();
    const ws = await WsClient.connect(gw.url, `x-api-key=${ADMIN_KEY}&session=healthy&events=message`);
    await workingSession(gw, 'healthy', { config: { webhooks: [{ url: rx.url, events: ['message'] }] } });
    await gw.api('POST', '/api/healthy/sandbox/simulate', { kind: 'message', from: '15557654321@c.us', body: 'lagging?' });
    await waitFor(() => rx!.accepted.length === 1 && ws.events('message').length === 1, 'the webhook and /ws deliveries');
    const message = ws.events('message')[0] as { timestamp: number };
    ws.close();

    const text = await waitFor(async () => {
      const scraped = (await scrape(gw!)).text;
      return sample(scraped, 'switchboard_event_lag_seconds_count', { session: 'healthy', channel: 'webhook' }) === 1 && scraped;
    }, 'the webhook delivery counted');
    const of = (name: string, labels: Record<string, string> = {}) => sample(text, name, { session: 'healthy', ...labels });
    expect(of('switchboard_session_status', { status: 'WORKING' })).toBe(1);
    for (const status of ['STOPPED', 'STARTING', 'SCAN_QR_CODE', 'FAILED']) expect(of('switchboard_session_status', { status }), status).toBe(0);
    // The message (or an event after it, as message.any) was the last event seen.
    expect(of('switchboard_session_last_event_timestamp_seconds')).toBeGreaterThanOrEqual(message.timestamp / 1000);
    expect(of('switchboard_event_lag_seconds_count', { channel: 'ws' })).toBe(1);
    // Every observation falls in the +Inf bucket, and one local delivery in well under a minute.
    expect(of('switchboard_event_lag_seconds_bucket', { channel: 'ws', le: '+Inf' })).toBe(1);
    expect(of('switchboard_event_lag_seconds_bucket', { channel: 'webhook', le: '60' })).toBe(1);
    // No reconnect and no silence: SANDBOX went STARTING, SCAN_QR_CODE, WORKING.
    expect(of('switchboard_session_reconnects_total')).toBe(0);
    expect(of('switchboard_session_silences_total')).toBe(0);

    // The gauge shows the sessions as the API lists them, every status: a stopped one too.
    expect((await gw.api('POST', '/api/sessions/healthy/stop')).status).toBe(201);
    const stopped = (await scrape(gw)).text;
    expect(sample(stopped, 'switchboard_session_status', { session: 'healthy', status: 'STOPPED' })).toBe(1);
    expect(sample(stopped, 'switchboard_session_status', { session: 'healthy', status: 'WORKING' })).toBe(0);

    expect((await gw.api('DELETE', '/api/sessions/healthy')).status).toBe(200);
    await waitFor(async () => !(await scrape(gw!)).text.includes('session="healthy"'), "the deleted session's series gone");
  });
});
