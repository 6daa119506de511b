import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/**
 * Resident memory of idle sessions, measured in a process of their own (`sessions-process.mjs`,
 * running the built engine-pod: `pnpm exec tsc -b engine-pod` first) while the fake WhatsApp Web
 * server runs in the caller's process, so its memory is not counted. Shared by the vitest
 * measurement (`memory.measure.ts`) and `bench/src/engine-memory.ts`, which imports this file
 * from source (Node strips the types): keep it free of relative imports and of TypeScript that
 * needs more than type stripping.
 */
export type Usage = Pick<NodeJS.MemoryUsage, 'rss' | 'heapUsed' | 'external' | 'arrayBuffers'>;

/**
 * When the sessions process takes `process.memoryUsage()`, after GC: before any session
 * (`initial`), with the warm-up session paired and idle (`warmedUp`), after it stopped
 * (`baseline`), with N sessions paired and idle (`paired`), with them stopped (`stopped`), and
 * with them started again from their stores and idle (`restarted`).
 */
type Stage = 'initial' | 'warmedUp' | 'baseline' | 'paired' | 'stopped' | 'restarted';

export type Measured = Record<Stage, Usage>;

export type MeasuredEngine = 'SANDBOX' | 'NOWEB';

/** What the measurement needs of the fake server (`FakeWaServer`): its URL, and scanning a QR code. */
export interface QrScanner {
  readonly url: string;
  scanQr(qr: string): Promise<unknown>;
}

/** N sessions of `engine`, paired (NOWEB: with `fake`, which scans their QR codes) and idle. */
export async function measureIdleSessions(engine: MeasuredEngine, count: number, fake: QrScanner): Promise<Measured> {
  const script = fileURLToPath(new URL('./sessions-process.mjs', import.meta.url));
  const child = spawn(process.execPath, ['--expose-gc', script, engine, String(count), fake.url], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) {
    const message = JSON.parse(line) as { qr?: string; memory?: Measured };
    if (message.qr) await fake.scanQr(message.qr);
    if (message.memory) {
      await exited;
      return message.memory;
    }
  }
  throw new Error(`the ${engine} sessions process ended without measuring (exit ${await exited})`);
}

export const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

/** One line: RSS, heap and external growth from `from` to `to`, in total and per session. */
export function usageRow(label: string, count: number, from: Usage, to: Usage): string {
  const rss = to.rss - from.rss;
  const heap = to.heapUsed - from.heapUsed;
  return (
    `${label.padEnd(26)} x${String(count).padEnd(3)} RSS +${mib(rss).padStart(6)} MiB (${mib(rss / count)}/session)  ` +
    `heap +${mib(heap).padStart(5)} MiB (${mib(heap / count)}/session)  external +${mib(to.external - from.external)} MiB`
  );
}
