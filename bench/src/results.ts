import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Results as data: every figure a benchmark prints also goes to `bench/results/latest.json`
 * (git-ignored; `BENCH_RESULTS` names another file), a list of entries of the shape below, so a
 * run can be compared with the last one (`previous.json`, kept by `make bench`) and charted
 * (`charts.ts`). Each benchmark replaces its own entries and keeps the others', so running one
 * part (`node bench/dist/all.js reconcile`) updates that part only.
 */
export interface Figure {
  /** The benchmark that measured it (the part's name in all.ts). */
  readonly bench: string;
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  /** The same run's baseline, in the same unit; null when the figure has none (sizing figures). */
  readonly baseline: number | null;
  /** value / baseline, or null without a baseline. */
  readonly ratio: number | null;
  /** What the figure is held to, as text: `ratio >= 0.5`, `value <= 50`; null when nothing is. */
  readonly target: string | null;
  /** Whether the target is met; null without a target. */
  readonly met: boolean | null;
  /** For figures measured at several sizes (sessions, N): the size, so they chart as a curve. */
  readonly at?: number;
}

/** A target on the figure's value or on its ratio to the baseline. */
export interface Target {
  readonly of: 'value' | 'ratio';
  readonly atLeast?: number;
  readonly atMost?: number;
}

export interface FigureInput {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly baseline?: number | null;
  /** Given when the ratio is not value / baseline (e.g. a median of per-round ratios). */
  readonly ratio?: number;
  readonly target?: Target;
  readonly at?: number;
}

export const RESULTS_FILE = process.env.BENCH_RESULTS ?? fileURLToPath(new URL('../results/latest.json', import.meta.url));

/** The entry for one figure, its ratio and whether it meets its target worked out here, in one place. */
export function figure(bench: string, input: FigureInput): Figure {
  const baseline = input.baseline ?? null;
  const ratio = input.ratio ?? (baseline !== null && baseline !== 0 ? input.value / baseline : null);
  let target: string | null = null;
  let met: boolean | null = null;
  if (input.target) {
    const { of, atLeast, atMost } = input.target;
    const measured = of === 'value' ? input.value : ratio;
    target = [atLeast !== undefined ? `${of} >= ${atLeast}` : null, atMost !== undefined ? `${of} <= ${atMost}` : null]
      .filter((part) => part !== null)
      .join(' and ');
    met =
      measured !== null &&
      Number.isFinite(measured) &&
      (atLeast === undefined || measured >= atLeast) &&
      (atMost === undefined || measured <= atMost);
  }
  return {
    bench,
    name: input.name,
    value: input.value,
    unit: input.unit,
    baseline,
    ratio,
    target,
    met,
    ...(input.at !== undefined ? { at: input.at } : {}),
  };
}

/** Reads the results file; an absent or unreadable file is an empty list. */
export function readResults(file: string = RESULTS_FILE): Figure[] {
  if (!existsSync(file)) return [];
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return Array.isArray(parsed) ? (parsed as Figure[]) : [];
  } catch {
    return [];
  }
}

/** Replaces `bench`'s entries in the results file with `inputs`, keeping every other benchmark's. */
export function recordResults(bench: string, inputs: readonly FigureInput[], file: string = RESULTS_FILE): void {
  const kept = readResults(file).filter((entry) => entry.bench !== bench);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify([...kept, ...inputs.map((input) => figure(bench, input))], null, 2)}\n`);
  console.log(`(${inputs.length} figures recorded in ${file})`);
}

/** A whole `make bench` run starts a fresh file; the last one's is kept as previous.json beside it. */
export function startRun(file: string = RESULTS_FILE): void {
  if (existsSync(file)) renameSync(file, `${dirname(file)}/previous.json`);
}
