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
 */
export async function closedPort(): Promise<ClosedPort> {
  const server: Server = createServer();
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port: serverPort } = server.address() as { port: number };
  const client = connect(serverPort, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    client.once('error', reject);
    client.once('connect', resolve);
  });
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
      // port in TIME_WAIT for a minute, and SO_REUSEADDR does not get a listener past it, as the
      // held socket never set it (a CI run's receiver got EADDRINUSE). A reset leaves no TIME_WAIT.
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
