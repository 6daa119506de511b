import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a server (the API server, NATS), so a test can cut one client's
 * connections the way a network failure would, or let them stall: TLS passes through untouched
 * (the certificate names 127.0.0.1).
 */
export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private port = 0;
  /** Connections accepted so far. */
  connections = 0;

  private constructor(private readonly target: { host: string; port: number }) {}

  static async start(targetUrl: string): Promise<TcpProxy> {
    const url = new URL(targetUrl);
    const proxy = new TcpProxy({ host: url.hostname, port: Number(url.port) });
    await proxy.listen();
    return proxy;
  }

  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  /** `host:port`, for clients that take an address rather than an https URL (NATS). */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Drops every open connection and refuses new ones until `resume`. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  /**
   * The open connections stop carrying anything, both ways, but stay open: what a connection
   * looks like whose peer a network device forgot without a reset. New connections work.
   */
  stall(): void {
    for (const socket of this.sockets) {
      socket.unpipe();
      socket.pause();
    }
  }

  async resume(): Promise<void> {
    if (!this.server) await this.listen();
  }

  async stop(): Promise<void> {
    await this.cut();
  }

  private listen(): Promise<void> {
    const server = createServer((client) => {
      this.connections += 1;
      const upstream = connect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        this.port = (server.address() as { port: number }).port;
        resolve();
      });
    });
  }
}
