import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly latencyMs: { readonly p50: number; readonly p99: number };
  readonly non2xx: number;
  readonly errors: number;
}

export interface LoadOptions {
  readonly url: string;
  readonly method: 'POST' | 'GET';
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly seconds: number;
  readonly connections: number;
  /** Requests per second over all connections; as fast as it can when left out. */
  readonly overallRate?: number;
}

const require = createRequire(import.meta.url);
const AUTOCANNON = join(dirname(require.resolve('autocannon/package.json')), 'autocannon.js');

/**
 * Runs autocannon in its own process, so the load generator does not share an event loop with
 * the server it measures; both the product and its baseline are measured the same way.
 */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  const args = [
    AUTOCANNON,
    '--json',
    '--duration',
    String(options.seconds),
    '--connections',
    String(options.connections),
    '--method',
    options.method,
    ...(options.overallRate ? ['--overallRate', String(options.overallRate)] : []),
    ...Object.entries(options.headers).flatMap(([name, value]) => ['--headers', `${name}=${value}`]),
    ...(options.body ? ['--body', options.body] : []),
    options.url,
  ];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- execFile's error is an Error, though its type (an Omit of one) no longer says so
      if (error) return reject(error);
      const report = JSON.parse(stdout) as {
        requests: { average: number };
        latency: { p50: number; p99: number };
        non2xx: number;
        errors: number;
      };
      resolve({
        requestsPerSecond: report.requests.average,
        latencyMs: { p50: report.latency.p50, p99: report.latency.p99 },
        non2xx: report.non2xx,
        errors: report.errors,
      });
    });
  });
}
