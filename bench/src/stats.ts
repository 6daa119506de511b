/** Latency samples in nanoseconds (process.hrtime.bigint differences), summarized in milliseconds. */
export interface Summary {
  readonly count: number;
  readonly medianMs: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
}

export function summarize(samples: readonly bigint[]): Summary {
  if (samples.length === 0) throw new Error('no samples');
  const sorted = [...samples].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // Nearest-rank percentiles: always a measured value, never an interpolation between two.
  const at = (p: number) => Number(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!) / 1e6;
  return { count: sorted.length, medianMs: at(50), p90Ms: at(90), p99Ms: at(99) };
}

export const elapsedMs = (start: bigint, end: bigint = process.hrtime.bigint()): number => Number(end - start) / 1e6;

/** Runs `task` on every item with at most `concurrency` in flight. */
export async function inPool<T>(items: readonly T[], concurrency: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
