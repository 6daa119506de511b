import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface PacedLoadOptions {
  readonly url: string;
  /** Requests go to these paths in turn. */
  readonly paths: readonly string[];
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Requests per second over all connections. */
  readonly rate: number;
  readonly seconds: number;
  readonly connections: number;
}

export interface PacedLoadResult {
  readonly requestsPerSecond: number;
  readonly non2xx: number;
  readonly errors: number;
}

/** POSTs at a fixed rate, spread over several paths, from a process of its own (autocannon). */
export function runPacedLoad(options: PacedLoadOptions): Promise<PacedLoadResult> {
  const worker = fileURLToPath(new URL('./paced-load-worker.js', import.meta.url));
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [worker, JSON.stringify(options)], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      if (error) reject(error);
      else resolve(JSON.parse(stdout) as PacedLoadResult);
    });
  });
}
