import type { WebhookConfig } from '@switchboard/protocol';
import { type ClosedPort, waitFor } from '@switchboard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway, workingSession } from '../../support/gateway.js';
import { startReceiver, type Receiver, unreachableWebhook } from '../../webhooks/support.js';

let gw: TestGateway | undefined;
let rx: Receiver | undefined;
afterEach(async () => {
  await gw?.close();
  await rx?.close();
  gw = rx = undefined;
});

const FROM = '15557654321@c.us';

/** A session whose only webhook is down, with two quick attempts per delivery. */
async function sessionWithDeadWebhook(name: string): Promise<{ gw: TestGateway; port: ClosedPort; hook: WebhookConfig }> {
  const { port, hook } = await unreachableWebhook(['message'], { hmac: { key: 'never-shown' } });
  gw = await startGateway();
  await workingSession(gw, name, { config: { webhooks: [hook] } });
  return { gw, port, hook };
}

async function receive(gateway: TestGateway, session: string, body: string): Promise<string> {
  const sent = await gateway.api('POST', `/api/${session}/sandbox/simulate`, { kind: 'message', from: FROM, body });
  expect(sent.status).toBe(201);
  return sent.body.id;
}

const deadOf = async (gateway: TestGateway, session: string, query = '') =>
  (await gateway.api('GET', `/api/${session}/webhooks/dead${query}`)).body as any[];

describe('dead deliveries: kept, listed and replayed (our addition)', () => {
  it('lists each delivery that used up its attempts, oldest first, with event, url, attempts, error and times', async () => {
    const { gw, hook } = await sessionWithDeadWebhook('dead-list');
    const ids = [await receive(gw, 'dead-list', 'one'), await receive(gw, 'dead-list', 'two'), await receive(gw, 'dead-list', 'three')];

    const dead = await waitFor(async () => {
      const list = await deadOf(gw, 'dead-list');
      return list.length === 3 && list;
    }, 'three dead deliveries');
    expect(dead.map((d) => d.id)).toEqual([...dead.map((d) => d.id)].sort((a, b) => a - b));
    for (const delivery of dead) {
      expect(delivery).toMatchObject({ event: 'message', session: 'dead-list', url: hook.url, attempts: 2, lastError: 'refused' });
      expect(delivery.eventId).toMatch(/^evt_/);
      expect(delivery.deadAt).toBeGreaterThanOrEqual(delivery.createdAt);
    }
    expect(JSON.stringify(dead)).not.toContain('never-shown');
    expect(ids).toHaveLength(3);

    const page = await deadOf(gw, 'dead-list', '?limit=1&offset=1');
    expect(page).toEqual([dead[1]]);
    expect(await deadOf(gw, 'other-session-unknown')).toMatchObject({ statusCode: 404 });
  });

  it('replays all dead deliveries of a session in their order once the receiver is back, and forgets them', async () => {
    const { gw, port } = await sessionWithDeadWebhook('dead-replay');
    const ids = [];
    for (const body of ['a', 'b', 'c']) ids.push(await receive(gw, 'dead-replay', body));
    const dead = await waitFor(async () => {
      const list = await deadOf(gw, 'dead-replay');
      return list.length === 3 && list;
    }, 'three dead deliveries');

    rx = await startReceiver(() => 200, port);
    const replay = await gw.api('POST', '/api/dead-replay/webhooks/dead/replay');
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual({ replayed: dead.map((d) => d.id), skipped: [] });

    await waitFor(() => rx!.accepted.length === 3, 'the three replays');
    expect(rx.accepted.map((e) => e.payload.id)).toEqual(ids);
    expect(rx.accepted.map((e) => e.id)).toEqual(dead.map((d) => d.eventId));
    expect(await deadOf(gw, 'dead-replay')).toEqual([]);
  });

  it('replays only the named ids; one that dies again is dead again, with its attempts counted afresh', async () => {
    const { gw } = await sessionWithDeadWebhook('dead-ids');
    await receive(gw, 'dead-ids', 'first');
    await receive(gw, 'dead-ids', 'second');
    const [first, second] = await waitFor(async () => {
      const list = await deadOf(gw, 'dead-ids');
      return list.length === 2 && list;
    }, 'two dead deliveries');

    const replay = await gw.api('POST', '/api/dead-ids/webhooks/dead/replay', { ids: [second.id] });
    expect(replay.body).toEqual({ replayed: [second.id], skipped: [] });
    // Pending again at once: only the first is listed until the replay dies too.
    expect((await deadOf(gw, 'dead-ids')).map((d) => d.id)).toEqual([first.id]);
    const again = await waitFor(async () => {
      const list = await deadOf(gw, 'dead-ids');
      return list.length === 2 && list;
    }, 'the replay to die again');
    expect(again[1]).toMatchObject({ id: second.id, attempts: 2, lastError: 'refused' });
    expect(again[1].deadAt).toBeGreaterThan(second.deadAt);
  });

  it('refuses unknown ids with 404 and bad ones with 400, replaying nothing', async () => {
    const { gw } = await sessionWithDeadWebhook('dead-bad');
    await receive(gw, 'dead-bad', 'x');
    const [dead] = await waitFor(async () => {
      const list = await deadOf(gw, 'dead-bad');
      return list.length === 1 && list;
    }, 'a dead delivery');

    const unknown = await gw.api('POST', '/api/dead-bad/webhooks/dead/replay', { ids: [dead.id, 999_999] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toContain('999999');
    expect(unknown.body.details).toEqual({ session: 'dead-bad', ids: [999_999] });
    const invalid = await gw.api('POST', '/api/dead-bad/webhooks/dead/replay', { ids: ['one'] });
    expect(invalid.status).toBe(400);
    expect(invalid.body.details[0].path).toContain('ids');
    const badPage = await gw.api('GET', '/api/dead-bad/webhooks/dead?limit=0');
    expect(badPage.status).toBe(400);
    expect(await deadOf(gw, 'dead-bad')).toEqual([dead]);
  });

  it('leaves dead the deliveries whose webhook the session no longer has, saying why', async () => {
    const { gw, hook } = await sessionWithDeadWebhook('dead-gone');
    await receive(gw, 'dead-gone', 'x');
    const [dead] = await waitFor(async () => {
      const list = await deadOf(gw, 'dead-gone');
      return list.length === 1 && list;
    }, 'a dead delivery');
    const moved = { ...hook, url: `${hook.url}/moved` };
    expect((await gw.api('PUT', '/api/sessions/dead-gone', { config: { webhooks: [moved] } })).status).toBe(200);

    const replay = await gw.api('POST', '/api/dead-gone/webhooks/dead/replay', {});
    expect(replay.body).toEqual({ replayed: [], skipped: [{ id: dead.id, reason: 'the session has no webhook with this url any more' }] });
    expect(await deadOf(gw, 'dead-gone')).toEqual([dead]);
  });
});
