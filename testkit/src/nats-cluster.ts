import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { natsServerBinary, waitForPort } from './nats-server.js';

/** One server of a NATS cluster the test can stop and start again on its store. */
export interface ClusterNatsServer {
  readonly name: string;
  readonly url: string;
  /** Kills it (SIGKILL: a lost node, not a shut-down one); its store stays. */
  kill(): Promise<void>;
  /** Starts it again on the same ports and store: it rejoins the cluster. */
  start(): Promise<void>;
  /** Kills it and empties its store, as a lost volume does; `start` then begins with nothing. */
  loseStore(): Promise<void>;
}

export interface NatsCluster {
  readonly servers: readonly ClusterNatsServer[];
  /** Every client URL, comma-separated: what SWITCHBOARD_NATS_URL names for a cluster. */
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * A real JetStream cluster of `size` nats-servers on loopback, routed to each other, each with
 * its store in a temp dir: a JetStream cluster, on one machine. `binary`: which nats-server
 * (default as startNatsServer's).
 */
export async function startNatsCluster(size = 3, options: { binary?: string } = {}): Promise<NatsCluster> {
  const binary = options.binary ?? natsServerBinary();
  const root = mkdtempSync(join(tmpdir(), 'switchboard-nats-cluster-'));
  const ports = await Promise.all(Array.from({ length: size }, async () => ({ client: await freePort(), route: await freePort() })));
  const routes = ports.map((port) => `nats-route://127.0.0.1:${port.route}`).join(', ');
  const servers = ports.map((port, index): ClusterNatsServer & { child: ChildProcess | null } => {
    const name = `n${index + 1}`;
    const config = join(root, `${name}.conf`);
    writeFileSync(
      config,
      [
        `server_name: ${name}`,
        `listen: 127.0.0.1:${port.client}`,
        `jetstream { store_dir: "${join(root, name)}" }`,
        `cluster { name: switchboard, listen: 127.0.0.1:${port.route}, routes: [${routes}] }`,
      ].join('\n'),
    );
    const server = {
      name,
      url: `nats://127.0.0.1:${port.client}`,
      child: null as ChildProcess | null,
      async start() {
        server.child = spawn(binary, ['-c', config], { stdio: 'ignore' });
        await waitForPort(port.client, 10_000);
      },
      async loseStore() {
        await server.kill();
        rmSync(join(root, name), { recursive: true, force: true });
      },
      async kill() {
        const running = server.child;
        server.child = null;
        if (!running || running.exitCode !== null) return;
        await new Promise<void>((resolve) => {
          running.once('exit', () => resolve());
          running.kill('SIGKILL');
        });
      },
    };
    return server;
  });
  await Promise.all(servers.map((server) => server.start()));
  process.once('exit', () => servers.forEach((server) => server.child?.kill('SIGKILL')));
  return {
    servers,
    url: servers.map((server) => server.url).join(','),
    async stop() {
      await Promise.all(servers.map((server) => server.kill()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}
