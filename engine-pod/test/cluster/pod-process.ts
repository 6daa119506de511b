import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '@switchboard/testkit';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../../dist/pod/main.js', import.meta.url));

/** A real engine pod process (`node engine-pod/dist/pod/main.js`, or another engine's), as the operator runs one. */
export class PodProcess {
  readonly lines: string[] = [];
  readonly exited: Promise<number | null>;
  private constructor(
    private readonly child: ChildProcess,
    readonly healthPort: number,
    echo: string | undefined,
  ) {
    let buffered = '';
    const collect = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      this.lines.push(...parts);
      if (echo) for (const line of parts) process.stderr.write(`[${echo}] ${line}\n`);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  static start(env: Record<string, string>): Promise<PodProcess> {
    return PodProcess.spawn(process.execPath, [MAIN], { SWITCHBOARD_LOG_LEVEL: 'info', ...env });
  }

  /**
   * Any engine pod's program (the Go engine's `switchboard-gows nats` too): its health port a free
   * one, its output kept, and echoed to this process's stderr under `echo` when that is given.
   */
  static async spawn(command: string, args: string[], env: Record<string, string>, echo?: string): Promise<PodProcess> {
    const healthPort = await freePort();
    const child = spawn(command, args, {
      env: { PATH: process.env.PATH, SWITCHBOARD_HEALTH_PORT: String(healthPort), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new PodProcess(child, healthPort, echo);
  }

  /** The HTTP status of a probe, or 0 while nothing listens. */
  async probe(path: '/healthz' | '/readyz'): Promise<number> {
    try {
      return (await fetch(`http://127.0.0.1:${this.healthPort}${path}`)).status;
    } catch {
      return 0;
    }
  }

  /** Its Prometheus scrape (`/metrics` on the health port), as the text served. */
  async metrics(): Promise<string> {
    const response = await fetch(`http://127.0.0.1:${this.healthPort}/metrics`);
    if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
    return response.text();
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Ends it however it is doing, for test cleanup. */
  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }

  /** The log, for a failing test's message. */
  get log(): string {
    return this.lines.join('\n');
  }
}
