// The soak's figures as an SVG (docs/operations.md, "Soak"): RSS and open file descriptors per
// component over the minutes, drawn with the Vega-Lite renderer `make bench-charts` uses.
import { renderSvg } from '../../../bench/src/charts.js';
import type { Sample } from './samples.js';

export async function soakSvg(samples: readonly Sample[], title: string): Promise<string> {
  const rows = samples.flatMap((s) => [
    ...Object.entries(s.rss).map(([component, value]) => ({ panel: 'RSS (MiB)', component, minute: s.minute, value: value / 2 ** 20 })),
    ...Object.entries(s.fds).map(([component, value]) => ({ panel: 'open file descriptors', component, minute: s.minute, value })),
  ]);
  return renderSvg({
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: { text: title, anchor: 'start' },
    config: { font: 'sans-serif' },
    data: { values: rows },
    facet: { row: { field: 'panel', type: 'nominal', title: null } },
    resolve: { scale: { y: 'independent' } },
    spec: {
      width: 560,
      height: 200,
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'minute', type: 'quantitative', title: 'minutes' },
        y: { field: 'value', type: 'quantitative', title: null },
        color: { field: 'component', type: 'nominal' },
      },
    },
  });
}
