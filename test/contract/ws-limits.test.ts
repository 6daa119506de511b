import { waitFor, WsClient } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, type ContractGateway, startGateway } from './harness.js';

/**
 * `/ws` connections per key (issue 26): each connection may hold up to
 * SWITCHBOARD_WS_MAX_BUFFERED_BYTES unsent, so one key may open only so many at once
 * (SWITCHBOARD_WS_MAX_CONNECTIONS_PER_KEY, here 2); one more is closed with 1013 and the reason.
 */
const LIMIT = 2;
let gw: ContractGateway;
const clients: WsClient[] = [];

beforeAll(async () => {
  gw = await startGateway({ wsMaxConnectionsPerKey: LIMIT });
});
afterAll(async () => {
  for (const client of clients) client.close();
  await gw?.close();
});

async function connect(key: string): Promise<WsClient> {
  const client = await WsClient.connect(gw.url, `x-api-key=${key}&session=*`);
  clients.push(client);
  return client;
}

/**
 * Whether the gateway kept the connection: a connection it refuses gets its close frame first
 * thing, so a pong to a ping sent after the open, with no close before it, means it was kept.
 */
async function kept(client: WsClient): Promise<boolean> {
  await new Promise<void>((resolve) => {
    client.socket.once('pong', () => resolve());
    client.socket.once('close', () => resolve());
    client.socket.ping();
  });
  return client.closed === null;
}

async function refused(client: WsClient): Promise<{ code: number; reason: string }> {
  await waitFor(() => client.closed !== null, 'the gateway closes the connection');
  return client.closed!;
}

describe('/ws: connections per key (SWITCHBOARD_WS_MAX_CONNECTIONS_PER_KEY)', () => {
  it('closes a connection beyond the key’s limit with 1013 and a reason naming the setting; the key’s others stay open', async () => {
    const first = await connect(ADMIN_KEY);
    const second = await connect(ADMIN_KEY);
    expect(await kept(first)).toBe(true);
    expect(await kept(second)).toBe(true);
    const third = await connect(ADMIN_KEY);
    expect(await refused(third)).toEqual({
      code: 1013,
      reason: `this key has ${LIMIT} /ws connections open, the most one key may have (SWITCHBOARD_WS_MAX_CONNECTIONS_PER_KEY)`,
    });
    expect(await kept(first)).toBe(true);
    expect(await kept(second)).toBe(true);
  });

  it('counts each key apart, and a connection closed gives its place back', async () => {
    const made = await gw.api('POST', '/api/keys', {});
    expect(made.status).toBe(201);
    const other: string = made.body.key;
    const mine = [await connect(other), await connect(other)];
    for (const client of mine) expect(await kept(client)).toBe(true);
    expect((await refused(await connect(other))).code).toBe(1013);

    mine[0]!.close();
    await waitFor(() => mine[0]!.closed !== null, 'the client’s close');
    // The gateway learns of the close on its own side a moment later: ask until it has.
    let again: WsClient | null = null;
    await waitFor(async () => {
      again = await connect(other);
      return kept(again);
    }, 'a new connection of the key is kept');
    expect(again!.closed).toBeNull();
  });
});
