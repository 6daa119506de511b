import { describe, expect, it } from 'vitest';
import { chartSpec, family, renderSvg } from '../src/charts.js';
import { figure } from '../src/results.js';

describe('bench charts', () => {
  it('joins the sizes of one figure into one curve', () => {
    expect(family('GET /api/sessions p99, 1000 sessions')).toBe('GET /api/sessions p99');
    expect(family('NOWEB RSS per idle session in one process, N=10')).toBe('NOWEB RSS per idle session in one process');
    expect(family('event to receiver p99, 1000/s on 1 session')).toBe('event to receiver p99, 1000/s');
  });

  it('renders a benchmark to SVG without a browser: bars beside the baseline, curves over the sizes, each target and whether it is met', async () => {
    const figures = [
      figure('scale', {
        name: 'reconcile ratio, 100 sessions',
        value: 30,
        unit: 'sessions/s',
        baseline: 120,
        target: { of: 'ratio', atLeast: 0.5 },
        at: 100,
      }),
      figure('scale', {
        name: 'reconcile ratio, 1000 sessions',
        value: 25,
        unit: 'sessions/s',
        baseline: 110,
        target: { of: 'ratio', atLeast: 0.5 },
        at: 1000,
      }),
      figure('send-text', { name: 'sendText throughput', value: 4000, unit: 'req/s', baseline: 9000, target: { of: 'ratio', atLeast: 0.5 } }),
    ];
    expect(chartSpec('nothing', figures)).toBeNull();
    const scale = await renderSvg(chartSpec('scale', figures)!);
    expect(scale).toMatch(/^<svg/);
    expect(scale).toContain('reconcile ratio (sessions/s, target ratio ≥ 0.5: NOT met)');
    expect(scale).toContain('baseline (same run)');
    const sendText = await renderSvg(chartSpec('send-text', figures)!);
    expect(sendText).toContain('sendText throughput (req/s, target ratio ≥ 0.5: NOT met)');
    expect(sendText).not.toContain('reconcile');
  });
});
