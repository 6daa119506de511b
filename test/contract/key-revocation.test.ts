import { waitFor, WsClient } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContractGateway, startGateway } from './harness.js';

/** Key changes reach every replica through the key store's watch in cluster mode: give them time. */
const TIMEOUT_MS = 10_000;

let gw: ContractGateway;
const clients: WsClient[] = [];
beforeAll(async () => {
  gw = await startGateway();
  for (const name of ['rv1', 'rv2']) {
    const created = await gw.api('POST', '/api/sessions', { name, start: false });
    if (created.status !== 201) throw new Error(`create ${name}: ${created.status} ${JSON.stringify(created.body)}`);
  }
});
afterAll(async () => {
  for (const client of clients) client.close();
  await gw?.close();
});

async function key(body: object): Promise<{ id: string; key: string }> {
  const res = await gw.api('POST', '/api/keys', body);
  expect(res.status).toBe(201);
  return res.body;
}

async function watch(secret: string, session = '*'): Promise<WsClient> {
  const client = await WsClient.connect(gw.url, `x-api-key=${secret}&session=${session}`);
  clients.push(client);
  return client;
}

async function closedWith(client: WsClient): Promise<{ code: number; reason: string }> {
  return waitFor(() => client.closed, 'the /ws connection to close', TIMEOUT_MS);
}

describe('a /ws connection lasts only as long as its key lets it', () => {
  it("deleting the key closes its connections with 1008 saying so; other keys' stay open", async () => {
    const doomed = await key({});
    const other = await key({});
    const [first, second, bystander] = [await watch(doomed.key), await watch(doomed.key, 'rv1'), await watch(other.key)];
    expect((await gw.api('DELETE', `/api/keys/${doomed.id}`)).status).toBe(200);
    for (const client of [first, second]) expect(await closedWith(client)).toEqual({ code: 1008, reason: `API key ${doomed.id} was deleted` });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(bystander.closed).toBeNull();
  });

  it('deactivating the key closes its connections with 1008', async () => {
    const paused = await key({});
    const client = await watch(paused.key);
    expect((await gw.api('PUT', `/api/keys/${paused.id}`, { isActive: false })).status).toBe(200);
    expect(await closedWith(client)).toEqual({ code: 1008, reason: `API key ${paused.id} is inactive` });
  });

  it('re-scoping the key closes the connections it may no longer open, and keeps the others', async () => {
    const scoped = await key({});
    const [all, own, other] = [await watch(scoped.key), await watch(scoped.key, 'rv1'), await watch(scoped.key, 'rv2')];
    expect((await gw.api('PUT', `/api/keys/${scoped.id}`, { session: 'rv1' })).status).toBe(200);
    for (const client of [all, other]) {
      const closed = await closedWith(client);
      expect(closed.code).toBe(1008);
      expect(closed.reason).toContain("limited to session 'rv1'");
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(own.closed).toBeNull();

    expect((await gw.api('PUT', `/api/keys/${scoped.id}`, { actions: { send: true } })).status).toBe(200);
    const closed = await closedWith(own);
    expect(closed.code).toBe(1008);
    expect(closed.reason).toContain("'read'");
  });
});

describe('a key limited to a session ends with that session', () => {
  it('deleting the session deletes its keys: a session made again with the name is not open to them', async () => {
    expect((await gw.api('POST', '/api/sessions', { name: 'rv3', start: false })).status).toBe(201);
    const general = await key({ session: 'rv3' });
    const control = (await gw.api('POST', '/api/keys/control', { session: 'rv3' })).body;
    const unrelated = await key({ session: 'rv1' });
    const client = await watch(general.key, 'rv3');
    expect((await gw.api('GET', '/api/sessions/rv3', undefined, general.key)).status).toBe(200);

    expect((await gw.api('DELETE', '/api/sessions/rv3')).status).toBe(200);
    expect(await closedWith(client)).toEqual({ code: 1008, reason: `API key ${general.id} was deleted` });
    const listed = (await gw.api('GET', '/api/keys')).body.map((k: { id: string }) => k.id);
    expect(listed).not.toContain(general.id);
    expect(listed).not.toContain(control.id);
    expect(listed).toContain(unrelated.id);

    expect((await gw.api('POST', '/api/sessions', { name: 'rv3', start: false })).status).toBe(201);
    for (const secret of [general.key, control.key]) {
      expect((await gw.api('GET', '/api/sessions/rv3', undefined, secret)).status).toBe(401);
    }
    // A key made for the new session works.
    const fresh = await key({ session: 'rv3' });
    expect((await gw.api('GET', '/api/sessions/rv3', undefined, fresh.key)).status).toBe(200);
  });
});
