import { sample, waitFor, WsClient } from '@switchboard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ADMIN_KEY, startGateway, type TestGateway } from '../support/gateway.js';
import { makeEvent } from '../webhooks/support.js';

let gw: TestGateway | undefined;
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  await gw?.close();
  gw = undefined;
});

const wsUrl = (gateway: TestGateway, query: string) => `${gateway.url.replace(/^http/, 'ws')}/ws?x-api-key=${ADMIN_KEY}&${query}`;
const dropped = async (gateway: TestGateway, reason: string) => {
  const text = await (await fetch(`${gateway.url}/metrics`, { headers: { 'x-api-key': ADMIN_KEY } })).text();
  return sample(text, 'switchboard_ws_clients_dropped_total', { reason });
};

/** A raw client; `autoPong: false` plays one whose network stopped answering. */
function open(url: string, options: WebSocket.ClientOptions = {}): Promise<WebSocket> {
  const socket = new WebSocket(url, options);
  sockets.push(socket);
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

describe('6.1 websocket filters', () => {
  it('`*` leaves out engine.event; `*` with engine.event gives every event', async () => {
    gw = await startGateway();
    const star = await WsClient.connect(gw.url, `x-api-key=${ADMIN_KEY}&events=*`);
    const everything = await WsClient.connect(gw.url, `x-api-key=${ADMIN_KEY}&events=*&events=engine.event`);
    const onlyEngine = await WsClient.connect(gw.url, `x-api-key=${ADMIN_KEY}&session=alpha&events=engine.event`);
    for (const event of [makeEvent('alpha', 1, 'engine.event'), makeEvent('alpha', 2, 'message'), makeEvent('beta', 3, 'engine.event')]) {
      gw.gateway.events.publish(event);
    }
    await waitFor(() => everything.frames.length === 3, 'all three on * + engine.event');
    await waitFor(() => star.frames.length === 1 && onlyEngine.frames.length === 1, 'the filtered ones');
    expect(star.frames.map((f) => f.event)).toEqual(['message']);
    expect(everything.frames.map((f) => f.payload.seq)).toEqual([1, 2, 3]);
    expect(onlyEngine.frames.map((f) => [f.session, f.event])).toEqual([['alpha', 'engine.event']]);
    for (const client of [star, everything, onlyEngine]) client.close();
  });
});

describe('6.1 websocket heartbeat and slow clients', () => {
  it('pings on the configured period, keeps a client that answers, drops one that does not', async () => {
    gw = await startGateway({ wsPingMs: 100 });
    const answering = await open(wsUrl(gw, 'session=*'));
    const silent = await open(wsUrl(gw, 'session=*'), { autoPong: false });
    let pings = 0;
    answering.on('ping', () => pings++);
    const silentClosed = new Promise<number>((resolve) => silent.once('close', (code) => resolve(code)));

    // Missing one pong is allowed; the ping after that finds it unanswered.
    expect(await silentClosed).toBe(1006);
    await waitFor(() => pings >= 3, 'three pings to the answering client', 2_000);
    expect(answering.readyState).toBe(WebSocket.OPEN);
    expect(await dropped(gw, 'heartbeat')).toBe(1);
  });

  it('drops a client that stops reading once its unsent bytes pass the cap, and keeps serving the others', async () => {
    gw = await startGateway({ wsMaxBufferedBytes: 256 * 1024 });
    const stalled = await open(wsUrl(gw, 'session=*'));
    const reader = await WsClient.connect(gw.url, `x-api-key=${ADMIN_KEY}&session=*`);
    const closed = new Promise<number>((resolve) => stalled.once('close', (code) => resolve(code)));
    // Stop reading: the kernel's buffers fill, then the server's queue grows.
    stalled.pause();

    const big = 'x'.repeat(64 * 1024);
    let sent = 0;
    while ((await dropped(gw, 'slow')) === 0 && sent < 2_000) {
      for (let i = 0; i < 50; i++, sent++) {
        const event = makeEvent('alpha', sent);
        gw.gateway.events.publish({ envelope: event.envelope, json: JSON.stringify({ ...event.envelope, payload: { seq: sent, big } }) });
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await dropped(gw, 'slow')).toBe(1);
    stalled.resume();
    expect(await closed).toBe(1006);
    await waitFor(() => reader.frames.length === sent, 'every frame to the client that reads', 10_000);
    reader.close();
  });
});
