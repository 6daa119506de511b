import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';

/**
 * A separate process that kills every container process group the agent told it about once the
 * agent's process is gone, however it went (a normal exit, a crash, SIGKILL from a test runner's
 * timeout). The agent holds the write end of the reaper's stdin; the kernel closes it when the
 * agent dies, and that EOF is the signal. An `exit` handler in the agent would not run on
 * SIGTERM or SIGKILL.
 */
const REAPER_SCRIPT = `
const groups = new Set();
let pending = '';
const reap = () => {
  for (const group of groups) { try { process.kill(-group, 'SIGKILL'); } catch {} }
  process.exit(0);
};
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  let end;
  while ((end = pending.indexOf('\\n')) >= 0) {
    const [op, group] = pending.slice(0, end).split(' ');
    pending = pending.slice(end + 1);
    if (op === '+') groups.add(Number(group)); else groups.delete(Number(group));
  }
});
process.stdin.on('end', reap);
process.stdin.on('error', reap);
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, reap);
`;

export class OrphanReaper {
  readonly #stdin: Socket;

  constructor() {
    // Detached: a Ctrl-C in the terminal reaches the agent, which then dies and sends the EOF.
    const reaper = spawn(process.execPath, ['-e', REAPER_SCRIPT], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
    reaper.unref();
    this.#stdin = reaper.stdin as Socket;
    this.#stdin.unref();
    this.#stdin.on('error', () => undefined);
  }

  /** `group` is the pid of a process started with `detached: true`, so also its process group id. */
  watch(group: number): void {
    this.#stdin.write(`+ ${group}\n`);
  }

  forget(group: number): void {
    this.#stdin.write(`- ${group}\n`);
  }

  /** Ends the reaper, which then kills whatever it still watches. */
  close(): void {
    this.#stdin.end();
  }
}
