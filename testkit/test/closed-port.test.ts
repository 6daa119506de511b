import { readFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { closedPort } from '../src/index.js';

const dial = (port: number) =>
  new Promise<string>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });

const listenOn = (port: number) =>
  new Promise<string>((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve('listened')));
  });

describe('closedPort', () => {
  it('refuses connections until released, on a port the OS gives no other server or connection, then lets one listen', async () => {
    const held = await closedPort();
    expect(await dial(held.port)).toBe('ECONNREFUSED');
    // Below the ephemeral range: no listen(0) and no connect() of any process is given it, so it is
    // still free when released (a connect() given the old, ephemeral one kept a receiver out).
    const [ephemeralLow] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    expect(held.port).toBeLessThan(ephemeralLow!);
    // Ports the OS picks for other servers skip it too.
    const picked = await Promise.all(
      Array.from(
        { length: 50 },
        () =>
          new Promise<number>((resolve) => {
            const server = createServer().listen(0, '127.0.0.1', () => {
              const { port } = server.address() as { port: number };
              server.close(() => resolve(port));
            });
          }),
      ),
    );
    expect(picked).not.toContain(held.port);
    expect(await dial(held.port)).toBe('ECONNREFUSED');

    await held.release();
    // At once: the held socket leaves no TIME_WAIT behind, which would keep a listener out for a minute.
    expect(await listenOn(held.port)).toBe('listened');
  });
});
