import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { JSONRPCClient, JSONRPCServer, JSONRPCServerAndClient, type JSONRPCParams } from 'json-rpc-2.0';
import split from 'split2';
import type { EngineLog } from '../../engine.js';

/** What ended the process: its exit code, or the signal that killed it. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Why the host killed it, when it did. */
  readonly reason?: string;
}

/**
 * The longest RPC line read from the child's stdout, in characters. Files never travel in lines
 * (media.save names a file), so this is far above any message, event or answer; a longer line is
 * a broken or hostile child, which is killed rather than let grow the host's memory.
 */
export const DEFAULT_MAX_LINE_LENGTH = 64 * 1024 * 1024;
/** Log lines from stderr: one longer than a megabyte is dropped (split2's skipOverflow, which its types lack). */
const LOG_LINES: split.Options & { skipOverflow: boolean } = { maxLength: 1024 * 1024, skipOverflow: true };

export interface EngineProcessOptions {
  readonly command: readonly [string, ...string[]];
  readonly env: NodeJS.ProcessEnv;
  readonly log: EngineLog;
  /** Fields every log line of this process carries (the session). */
  readonly logFields: Record<string, unknown>;
  /** Called once when the process is gone, whether asked to go or not. */
  readonly onExit: (exit: ProcessExit) => void;
  /** DEFAULT_MAX_LINE_LENGTH unless a test sets a smaller one. */
  readonly maxLineLength?: number;
}

type Handler = (params: JSONRPCParams) => unknown;

/**
 * One `switchboard-gows stdio` child and the JSON-RPC 2.0 connection over its stdin and stdout,
 * one message a line (engines/gows/PROTOCOL.md). json-rpc-2.0 does the protocol (ids, pending
 * requests, errors, both directions over one pipe); this class does the framing and the process.
 * Its stderr is the engine's log, one JSON object a line, handed on to the host's logger.
 */
export class EngineProcess {
  private readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  private readonly rpc: JSONRPCServerAndClient;
  private readonly exited: Promise<ProcessExit>;
  private gone: ProcessExit | null = null;
  private killedFor: string | null = null;

  constructor(
    private readonly options: EngineProcessOptions,
    handlers: Readonly<Record<string, Handler>>,
  ) {
    const [file, ...args] = options.command;
    this.child = spawn(file, args, { env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const server = new JSONRPCServer({ errorListener: () => {} });
    for (const [method, handler] of Object.entries(handlers)) server.addMethod(method, handler);
    this.rpc = new JSONRPCServerAndClient(server, new JSONRPCClient((message) => this.write(message)), { errorListener: () => {} });
    // Lines are read with a bound (split2's maxLength): a line without its end never grows past it.
    const maxLength = options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
    this.child.stdout
      .pipe(split({ maxLength }))
      .on('data', (line: string) => this.receive(line))
      .on('error', () => this.kill(`it wrote a line longer than ${maxLength} characters on stdout`));
    this.child.stderr.pipe(split(LOG_LINES)).on('data', (line: string) => this.logLine(line));
    // A write after the child is gone fails with EPIPE; the exit handler reports it.
    this.child.stdin.on('error', () => {});
    this.exited = new Promise((resolve) => {
      const done = (exit: ProcessExit) => {
        if (this.gone) return;
        this.gone = exit;
        this.rpc.rejectAllPendingRequests(`engine process exited (${describeExit(exit)})`);
        options.onExit(exit);
        resolve(exit);
      };
      this.child.on('exit', (code, signal) => done({ code, signal, ...(this.killedFor ? { reason: this.killedFor } : {}) }));
      this.child.on('error', (error) => {
        options.log.error({ ...options.logFields, err: error }, 'engine process could not run');
        done({ code: null, signal: null });
      });
    });
  }

  get running(): boolean {
    return this.gone === null;
  }

  request(method: string, params: JSONRPCParams): Promise<unknown> {
    if (this.gone) return Promise.reject(new Error(`engine process exited (${describeExit(this.gone)})`));
    return Promise.resolve(this.rpc.request(method, params));
  }

  /**
   * Closes stdin, which tells the engine to disconnect and exit, and waits; a process still there
   * after `timeoutMs` is killed.
   */
  async close(timeoutMs: number): Promise<ProcessExit> {
    if (!this.gone) this.child.stdin.end();
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        if (!this.gone) {
          this.options.log.warn({ ...this.options.logFields, timeoutMs }, 'engine process did not exit after stdin closed; killing it');
          this.child.kill('SIGKILL');
        }
        resolve();
      }, timeoutMs);
    });
    await Promise.race([this.exited, killed]);
    const exit = await this.exited;
    clearTimeout(timer);
    return exit;
  }

  /** Ends a child that broke the protocol, saying why in the log and in its exit. */
  private kill(reason: string): void {
    if (this.gone || this.killedFor) return;
    this.killedFor = reason;
    this.options.log.error({ ...this.options.logFields, reason }, 'engine process broke the engine RPC; killing it');
    this.child.kill('SIGKILL');
  }

  private write(message: unknown): void {
    if (!this.gone) this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  private receive(line: string): void {
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.options.log.warn({ ...this.options.logFields, line: line.slice(0, 500) }, 'engine process wrote a line that is not JSON');
      return;
    }
    this.rpc.receiveAndSend(message, undefined, undefined).catch((error: unknown) => {
      this.options.log.error({ ...this.options.logFields, err: error }, 'engine RPC message failed');
    });
  }

  private logLine(line: string): void {
    if (line.trim() === '') return;
    let entry: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(line);
      entry = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { msg: line };
    } catch {
      entry = { level: 'warn', msg: line };
    }
    const { level, msg, ...fields } = entry;
    const text = typeof msg === 'string' ? msg : 'engine log';
    const at = { ...fields, ...this.options.logFields, engineLog: true };
    if (level === 'error' || level === 'fatal') this.options.log.error(at, text);
    else if (level === 'warn') this.options.log.warn(at, text);
    // debug lines go to the same level as info: EngineLog has no debug, and the engine logs debug only when asked to.
    else this.options.log.info(at, text);
  }
}

export function describeExit(exit: ProcessExit): string {
  if (exit.reason) return `killed: ${exit.reason}`;
  if (exit.signal) return `signal ${exit.signal}`;
  if (exit.code === null) return 'it could not be started';
  return `code ${exit.code}`;
}
