import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface PacedLoadOptions {
  readonly url: string;
  /** Requests go to these paths in turn. */
  readonly paths: readonly string[];
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Requests per second over all connections, evenly spaced. */
  readonly rate: number;
  /** Measured seconds, after `warmupSeconds` at the same pace that are not. */
  readonly seconds: number;
  readonly warmupSeconds?: number;
  readonly connections: number;
}

/** Of the measured part only. */
export interface PacedLoadResult {
  readonly requestsPerSecond: number;
  readonly non2xx: number;
  readonly errors: number;
  /** How late the sends were against their even schedule (timer granularity, a busy machine). */
  readonly sendLateMs: { readonly median: number; readonly p99: number };
  /** Wall clock (ms since the epoch) when the first measured request was sent and the last answered. */
  readonly measuredFrom: number;
  readonly measuredTo: number;
}

/** POSTs at a fixed, even rate, spread over several paths, from a process of its own. */
export function runPacedLoad(options: PacedLoadOptions): Promise<PacedLoadResult> {
  const worker = fileURLToPath(new URL('./paced-load-worker.js', import.meta.url));
  const args = JSON.stringify({ warmupSeconds: 0, ...options });
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [worker, args], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- execFile's error is an Error, though its type (an Omit of one) no longer says so
      if (error) reject(error);
      else resolve(JSON.parse(stdout) as PacedLoadResult);
    });
  });
}
