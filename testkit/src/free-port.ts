import { readFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A loopback port nobody listens on right now (the OS picks it). Another process may take it the
 * next moment: for a port that must stay refusing, use `closedPort`.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** A loopback port that refuses every connection until `release()`, when a server may listen on it. */
export interface ClosedPort {
  readonly port: number;
  release(): Promise<void>;
}

/**
 * A port held by the local end of a loopback connection. Nothing listens on it, so a connection to
 * it is refused (RST: ECONNREFUSED); and the kernel gives no other listener a port a socket is
 * bound to, so it keeps refusing. A port from `freePort` may be taken by a parallel test's server
 * the next moment, and a webhook meant to die then gets an answer (a CI run lost a test that way).
 *
 * The port is below the kernel's ephemeral range, bound explicitly: the kernel gives ports of that
 * range to every connect() of every process, and one given the port between `release()` and the
 * receiver's listen made that listen fail with EADDRINUSE (a CI run of the cluster contract suite,
 * whose NATS and API clients open connections all the time). Below the range only an explicit bind
 * takes a port, so after `release()` it is free for the server meant to have it.
 */
export async function closedPort(): Promise<ClosedPort> {
  const server: Server = createServer();
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port: serverPort } = server.address() as { port: number };
  let client: Socket | undefined;
  for (let attempt = 1; client === undefined; attempt++) {
    const candidate = connect({ port: serverPort, host: '127.0.0.1', localAddress: '127.0.0.1', localPort: belowEphemeralRange() });
    try {
      await new Promise<void>((resolve, reject) => {
        candidate.once('error', reject);
        candidate.once('connect', resolve);
      });
      client = candidate;
    } catch (error) {
      // Another test's port: pick again.
      candidate.destroy();
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 50) throw error;
    }
  }
  const peer = await accepted;
  // No more connections are wanted; the one made lives on without the listener (close's own
  // callback would wait for it to end).
  server.close();
  for (const socket of [client, peer]) {
    socket.unref();
    socket.on('error', () => undefined);
  }
  let released: Promise<void> | undefined;
  return {
    port: client.localPort!,
    release() {
      // Reset, not closed: a socket that closes first (or at once with the other side) keeps its
      // port in TIME_WAIT for a minute (a CI run's receiver got EADDRINUSE behind one). A reset
      // leaves no TIME_WAIT.
      released ??= new Promise<void>((resolve) => {
        if (client.closed) return resolve();
        client.once('close', () => resolve());
        client.resetAndDestroy();
        peer.destroy();
      });
      return released;
    },
  };
}

/**
 * A random port in the half below the kernel's ephemeral range (16384-32767 with Linux's default
 * 32768-60999), where no connect() or listen(0) is given one.
 */
function belowEphemeralRange(): number {
  let low = 32_768;
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(first) && first >= 4_096) low = first;
  } catch {
    // Not Linux: its default.
  }
  const from = Math.floor(low / 2);
  return from + Math.floor(Math.random() * (low - from));
}
