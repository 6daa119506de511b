import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

export interface NatsServer {
  readonly url: string;
  readonly port: number;
  /** Kills the server; its JetStream store is kept until `stop` unless `keepStore`. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port and store: a restart of the real server. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** The nats-server binary: NATS_SERVER_BIN, else the one on PATH (Debian's `nats-server`). */
export function natsServerBinary(): string {
  if (process.env.NATS_SERVER_BIN) return process.env.NATS_SERVER_BIN;
  for (const candidate of ['nats-server', '/usr/sbin/nats-server', '/usr/bin/nats-server']) {
    try {
      execFileSync(candidate, ['--version'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // try the next place
    }
  }
  throw new Error('nats-server not found: run `make test` (it installs it) or set NATS_SERVER_BIN');
}

export interface NatsServerOptions {
  /** nats-server configuration text (e.g. the authentication of cluster mode), beside the flags. */
  readonly config?: string;
  /** The nats-server to run (default: `natsServerBinary()`, the machine's); `productNatsServer()` is the one the product ships. */
  readonly binary?: string;
}

/** A real NATS server with JetStream, on a free loopback port, its store in a temp dir. */
export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServer> {
  const binary = options.binary ?? natsServerBinary();
  const port = await freePort();
  const storeDir = mkdtempSync(join(tmpdir(), 'switchboard-nats-'));
  const configArgs: string[] = [];
  if (options.config !== undefined) {
    const configPath = join(storeDir, 'nats.conf');
    writeFileSync(configPath, options.config, { mode: 0o600 });
    configArgs.push('-c', configPath);
  }
  let child: ChildProcess | null = null;

  const launch = async () => {
    child = spawn(binary, [...configArgs, '-js', '-sd', storeDir, '-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
    await waitForPort(port, 10_000);
  };
  const kill = async (signal: NodeJS.Signals = 'SIGTERM') => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill(signal);
    });
  };
  await launch();
  process.once('exit', () => child?.kill('SIGKILL'));
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    kill,
    restart: launch,
    async stop() {
      await kill();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

export async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nats-server did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
