import { waitFor, WebhookReceiver } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContractGateway, startGateway, workingSession } from './harness.js';

const FROM = '15557654321@c.us';

let gw: ContractGateway;
let rx: WebhookReceiver;
beforeAll(async () => {
  gw = await startGateway();
  rx = await new WebhookReceiver().start();
});
afterAll(async () => {
  await gw.close();
  await rx.stop();
});

async function incoming(session: string, body: string): Promise<string> {
  const res = await gw.api('POST', `/api/${session}/sandbox/simulate`, { kind: 'message', from: FROM, body });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function eventLogIds(session: string): Promise<string[]> {
  const res = await gw.api('GET', `/api/${session}/event-log?limit=1000`);
  expect(res.status).toBe(200);
  return (res.body as { id: string }[]).map((e) => e.id);
}

describe('deliveries and the event log belong to one session, not to its name (issue 12, item 8)', () => {
  it('a session made again with a deleted one’s name and webhook starts clean: nothing of the old one goes first', async () => {
    let failing = true;
    const refused: string[] = [];
    rx.respond = (hook) => {
      if (!failing) return 200;
      refused.push(hook.body.id);
      return 500;
    };
    // The old session's deliveries fail and wait seconds for each retry: today's head of the line.
    const webhooks = [{ url: rx.url, events: ['message'], retries: { policy: 'constant', delaySeconds: 2, attempts: 15 } }];
    await workingSession(gw, 'reborn', { config: { webhooks } });
    const old = [await incoming('reborn', 'old 1'), await incoming('reborn', 'old 2')];
    await waitFor(() => refused.length > 0, 'the old session’s first delivery to fail', 15_000);
    const oldLog = await eventLogIds('reborn');
    expect(oldLog.length).toBeGreaterThan(0);

    expect((await gw.api('DELETE', '/api/sessions/reborn')).status).toBeLessThan(300);
    failing = false;
    await workingSession(gw, 'reborn', { config: { webhooks } });
    const sentAt = Date.now();
    const first = await incoming('reborn', 'new 1');
    await waitFor(() => rx.received.some((hook) => hook.body.payload.id === first), 'the new session’s first event', 5_000);
    expect(Date.now() - sentAt).toBeLessThan(1_000);

    // A retry of the old deliveries would have come by now (every 2 s): none does.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const delivered = rx.received.map((hook) => hook.body.payload.id as string);
    expect(delivered.filter((id) => old.includes(id))).toEqual([]);
    expect(delivered).toEqual([first]);
    const newLog = await eventLogIds('reborn');
    expect(newLog.filter((id) => oldLog.includes(id))).toEqual([]);
    expect((await gw.api('GET', '/api/reborn/webhooks/dead')).body).toEqual([]);
  });
});
