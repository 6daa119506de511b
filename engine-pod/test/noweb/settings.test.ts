import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { OutboundPolicy } from '@switchboard/kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeWaServer } from '../fake-wa/index.js';
import { ALICE, NowebSession, pairedSessionForTests } from './harness.js';

/**
 * Issue 12 item 15: the session config's engine settings reach NOWEB. `proxy`: the connection
 * goes through a real HTTP CONNECT proxy (node's http server) in front of the fake server.
 * `ignore`: events of the ignored kinds of chats never become events.
 */

/**
 * A small HTTP CONNECT proxy: it counts the connections made to it, records each tunnel's target
 * and Proxy-Authorization, and pipes bytes.
 */
class ConnectProxy {
  readonly tunnels: { target: string; authorization: string | undefined }[] = [];
  connections = 0;
  private readonly sockets = new Set<Socket>();
  private constructor(private readonly server: Server) {}

  static async start(): Promise<ConnectProxy> {
    const proxy = new ConnectProxy(createServer((_req, res) => res.writeHead(405).end()));
    proxy.server.on('connection', () => (proxy.connections += 1));
    proxy.server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => proxy.tunnel(req, client, head));
    proxy.server.listen(0, '127.0.0.1');
    await once(proxy.server, 'listening');
    return proxy;
  }

  get address(): string {
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private tunnel(req: IncomingMessage, client: Socket, head: Buffer): void {
    this.tunnels.push({ target: req.url ?? '', authorization: req.headers['proxy-authorization'] });
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => socket.destroy());
      socket.on('close', () => this.sockets.delete(socket));
    }
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.server.close();
    await once(this.server, 'close');
  }
}

describe('NOWEB config.proxy', () => {
  let fake: FakeWaServer;
  let proxy: ConnectProxy;
  beforeAll(async () => {
    [fake, proxy] = await Promise.all([FakeWaServer.start(), ConnectProxy.start()]);
  });
  afterAll(async () => {
    await proxy?.close();
    await fake?.close();
  });

  it('connects to the server through the proxy, with the proxy credentials', async () => {
    const s = new NowebSession(fake, { settings: { proxy: { server: proxy.address, username: 'bot', password: 's3cr:t' } } });
    try {
      await s.host.start();
      await s.qr();
      const target = new URL(fake.url).host;
      expect(proxy.tunnels.length).toBeGreaterThan(0);
      expect(proxy.tunnels[0]).toEqual({ target, authorization: `Basic ${Buffer.from('bot:s3cr:t').toString('base64')}` });
    } finally {
      await s.close();
    }
  });

  it('a proxy that is down keeps the session from the server: it fails instead of going around it', async () => {
    const down = await ConnectProxy.start();
    const address = down.address;
    await down.close();
    const s = new NowebSession(fake, { settings: { proxy: { server: `http://${address}` } }, engine: { connectAttempts: 2 } });
    try {
      await s.host.start();
      await s.waitForStatus('FAILED', 10_000);
      expect(s.payloads('session.status').map((p) => p.status)).not.toContain('SCAN_QR_CODE');
    } finally {
      await s.close();
    }
  });
});

describe('NOWEB config.proxy under the outbound address policy (issue 12, item 7)', () => {
  let fake: FakeWaServer;
  let proxy: ConnectProxy;
  // Loopback stands in for a denied range: tests dial nothing else.
  const outbound = new OutboundPolicy({ deny: '127.0.0.0/8,::1/128' });
  const DENIED =
    /^blocked_address: the proxy (127\.0\.0\.1|::1) is denied by the outbound address policy \(rule (127\.0\.0\.0\/8|::1\/128), SWITCHBOARD_OUTBOUND_DENY;/;
  beforeAll(async () => {
    [fake, proxy] = await Promise.all([FakeWaServer.start(), ConnectProxy.start()]);
  });
  afterAll(async () => {
    await proxy?.close();
    await fake?.close();
  });

  // Five attempts would take 15 s of backoff: FAILED within 5 s shows a refusal is not retried.
  for (const [what, server] of [
    ['a host name that resolves to a denied address', () => `localhost:${proxy.address.split(':')[1]}`],
    ['a denied literal address', () => proxy.address],
  ] as const) {
    it(`a proxy at ${what} is never dialed: the session is FAILED at once with blocked_address`, async () => {
      const before = proxy.connections;
      const s = new NowebSession(fake, { settings: { proxy: { server: server() } }, engine: { outbound, connectAttempts: 5 } });
      try {
        await s.host.start();
        await s.waitForStatus('FAILED', 5_000);
        const failed = s.payloads('session.status').find((p) => p.status === 'FAILED');
        expect(failed?.reason).toMatch(DENIED);
        expect(proxy.connections).toBe(before);
        // Nor gone around: the server was not reached directly either.
        expect(s.payloads('session.status').map((p) => p.status)).toEqual(['STARTING', 'FAILED']);
      } finally {
        await s.close();
      }
    });
  }
});

describe('NOWEB config.ignore', () => {
  const paired = pairedSessionForTests({ settings: { ignore: { groups: true, status: true } } });
  const GROUP = '120363000000000009@g.us';

  it('drops the events of group chats and status updates, and keeps direct chats', async () => {
    const { s, phone } = paired;
    const since = s.events.length;
    const inGroup = phone.text(GROUP, 'in the group', { participant: ALICE });
    const status = phone.text('status@broadcast', 'my story', { participant: ALICE });
    const direct = phone.text(ALICE, 'just to you');
    await s.waitForEvent('message', (p) => String(p.id).includes(direct), since);
    const seen = s.events.slice(since).map((e) => JSON.stringify(e.envelope.payload));
    expect(seen.some((json) => json.includes(inGroup) || json.includes('in the group'))).toBe(false);
    expect(seen.some((json) => json.includes(status) || json.includes('my story'))).toBe(false);
  });
});
