// The operator and gateway of the e2e suite run as real processes (`node <package>/dist/main.js`),
// as they do in their containers. Each has its log in a file, and dies with the test process.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { OrphanReaper } from '../node-agent/orphan-reaper.js';

export interface NodeProcessOptions {
  /** For messages: `operator op-a`, `gateway 2`. */
  label: string;
  /** The script `node` runs, e.g. `<repo>/gateway/dist/main.js`. */
  script: string;
  /** The whole environment (a container sees nothing of the host's but PATH, HOME and TMPDIR). */
  env: Record<string, string>;
  /** stdout and stderr go here (appended, so a restarted process keeps one file). */
  logPath: string;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

let reaper: OrphanReaper | undefined;

/**
 * One `node` process in a process group of its own. An OrphanReaper (the node agent's) kills the
 * group when the test process dies in any way, so a SIGKILLed vitest worker leaves nothing behind.
 */
export class NodeProcess {
  readonly exited: Promise<ProcessExit>;
  private readonly child: ChildProcess;
  private exit: ProcessExit | null = null;

  private constructor(readonly options: NodeProcessOptions) {
    if (!existsSync(options.script)) throw new Error(`${options.script} is missing: run \`make build\``);
    const log = openSync(options.logPath, 'a');
    this.child = spawn(process.execPath, [options.script], { env: options.env, stdio: ['ignore', log, log], detached: true });
    closeSync(log);
    reaper ??= new OrphanReaper();
    reaper.watch(this.pid);
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        reaper?.forget(this.pid);
        resolve(this.exit);
      }),
    );
  }

  static start(options: NodeProcessOptions): NodeProcess {
    return new NodeProcess(options);
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.exit === null;
  }

  get logPath(): string {
    return this.options.logPath;
  }

  /** Sends `signal` to the whole group and waits for the process to exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<ProcessExit> {
    if (this.exit) return this.exit;
    try {
      process.kill(-this.pid, signal);
    } catch {
      // Gone between the check and the signal.
    }
    return this.exited;
  }

  /** SIGTERM (a graceful shutdown), then SIGKILL after `graceMs`. */
  async stop(graceMs = 15_000): Promise<ProcessExit> {
    if (this.exit) return this.exit;
    const timer = setTimeout(() => void this.kill('SIGKILL'), graceMs);
    try {
      return await this.kill('SIGTERM');
    } finally {
      clearTimeout(timer);
    }
  }

  /** The log's JSON lines (pino), oldest first; other lines are skipped. */
  logLines(): Record<string, unknown>[] {
    if (!existsSync(this.logPath)) return [];
    return readFileSync(this.logPath, 'utf8')
      .split('\n')
      .flatMap((line) => {
        try {
          const parsed: unknown = JSON.parse(line);
          return isRecord(parsed) ? [parsed] : [];
        } catch {
          return [];
        }
      });
  }

  /**
   * Waits for the first log line that `match` accepts and returns it. Fails at once, with the
   * log's tail, when the process exits first.
   */
  async waitForLog(match: (line: Record<string, unknown>) => boolean, what: string, timeoutMs = 30_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = this.logLines().find(match);
      if (line) return line;
      if (this.exit) throw new Error(`${this.options.label} exited (${JSON.stringify(this.exit)}) before ${what}\n${this.tail()}`);
      if (Date.now() > deadline) throw new Error(`${this.options.label}: no ${what} within ${timeoutMs} ms\n${this.tail()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The last lines of the log, for failure messages. */
  tail(lines = 30): string {
    const text = existsSync(this.logPath) ? readFileSync(this.logPath, 'utf8').trimEnd() : '';
    return `--- last lines of ${this.options.label} (${this.logPath}) ---\n${text.split('\n').slice(-lines).join('\n')}`;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
