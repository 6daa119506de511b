import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { type Figure, readResults, RESULTS_FILE } from './results.js';

/**
 * `make bench-charts` (and the end of `make bench`): renders bench/results/latest.json to one SVG
 * chart per benchmark in docs/performance/ (`BENCH_CHARTS_DIR` names another directory), with
 * Vega-Lite compiled to Vega and rendered by Vega's headless SVG renderer: no browser, no canvas.
 * Per benchmark:
 *  - figures measured at several sizes (`at`: sessions, N) are curves, one panel per figure;
 *  - the others are bars, one panel per figure: the product beside the same run's baseline;
 * each panel's title names the unit and the target, and says whether it is met.
 * Argument: the results file (default bench/results/latest.json).
 */
const OUT_DIR = process.env.BENCH_CHARTS_DIR ?? fileURLToPath(new URL('../../docs/performance/', import.meta.url));

/** The figure's name without its size, so the sizes of one figure join into one curve. */
export function family(name: string): string {
  return name
    .replace(/,? (on )?\d[\d,]* sessions?$/, '')
    .replace(/,? N=\d+$/, '')
    .trim();
}

const title = (f: Figure, name: string) => {
  const target = f.target
    ? `, target ${f.target
        .replace(/^value /, '')
        .replaceAll('>=', '≥')
        .replaceAll('<=', '≤')}: ${f.met ? 'met' : 'NOT met'}`
    : '';
  return `${name} (${f.unit}${target})`;
};

/** The Vega-Lite spec of one benchmark's chart; null when it has no figures. */
export function chartSpec(bench: string, figures: readonly Figure[]): TopLevelSpec | null {
  const mine = figures.filter((f) => f.bench === bench);
  if (mine.length === 0) return null;
  const sized = mine.filter((f) => f.at !== undefined);
  const single = mine.filter((f) => f.at === undefined);
  const panels: TopLevelSpec[] = [];
  if (single.length > 0) {
    const rows = single.flatMap((f) => [
      { panel: title(f, f.name), side: 'switchboard', value: f.value },
      ...(f.baseline === null ? [] : [{ panel: title(f, f.name), side: 'baseline (same run)', value: f.baseline }]),
    ]);
    panels.push({
      data: { values: rows },
      facet: {
        row: {
          field: 'panel',
          type: 'nominal',
          title: null,
          header: { labelAngle: 0, labelAlign: 'left', labelAnchor: 'start', labelOrient: 'top' },
        },
      },
      spec: {
        width: 420,
        height: { step: 18 },
        layer: [
          {
            mark: 'bar',
            encoding: {
              y: { field: 'side', type: 'nominal', title: null },
              x: { field: 'value', type: 'quantitative', title: null },
              color: { field: 'side', type: 'nominal', title: null, scale: { domain: ['switchboard', 'baseline (same run)'] } },
            },
          },
          {
            mark: { type: 'text', align: 'left', dx: 3 },
            encoding: {
              y: { field: 'side', type: 'nominal' },
              x: { field: 'value', type: 'quantitative' },
              text: { field: 'value', type: 'quantitative', format: '.3~r' },
            },
          },
        ],
      },
      resolve: { scale: { x: 'independent' } },
    });
  }
  if (sized.length > 0) {
    const rows = sized.flatMap((f) => [
      { panel: title(f, family(f.name)), at: f.at, side: 'switchboard', value: f.value },
      ...(f.baseline === null ? [] : [{ panel: title(f, family(f.name)), at: f.at, side: 'baseline (same run)', value: f.baseline }]),
    ]);
    panels.push({
      data: { values: rows },
      facet: { field: 'panel', type: 'nominal', title: null, header: { labelLimit: 0, labelFontSize: 11 } },
      columns: 2,
      spec: {
        width: 380,
        height: 150,
        layer: [
          {
            mark: { type: 'line', point: true },
            encoding: {
              x: { field: 'at', type: 'quantitative', title: 'sessions (N)', scale: { type: 'log' } },
              y: { field: 'value', type: 'quantitative', title: null, axis: { format: ',' } },
              color: { field: 'side', type: 'nominal', title: null, scale: { domain: ['switchboard', 'baseline (same run)'] } },
            },
          },
          {
            mark: { type: 'text', dy: -8 },
            encoding: {
              x: { field: 'at', type: 'quantitative' },
              y: { field: 'value', type: 'quantitative' },
              text: { field: 'value', type: 'quantitative', format: '.3~r' },
            },
          },
        ],
      },
      resolve: { scale: { y: 'independent' } },
    });
  }
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: `make bench: ${bench}`, anchor: 'start' },
    config: { font: 'sans-serif', view: { stroke: null } },
    vconcat: panels,
  } as TopLevelSpec;
}

export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

async function main(): Promise<void> {
  const file = process.argv[2] ?? RESULTS_FILE;
  const figures = readResults(file);
  if (figures.length === 0) {
    console.error(`no results in ${file}: run \`make bench\` (or one part: node bench/dist/all.js reconcile) first`);
    process.exit(2);
  }
  mkdirSync(OUT_DIR, { recursive: true });
  for (const bench of [...new Set(figures.map((f) => f.bench))]) {
    const spec = chartSpec(bench, figures);
    if (!spec) continue;
    const path = `${OUT_DIR}/${bench}.svg`;
    writeFileSync(path, await renderSvg(spec));
    console.log(`chart: ${path}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
