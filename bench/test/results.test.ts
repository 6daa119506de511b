import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { figure, readResults, recordResults, startRun } from '../src/results.js';

describe('bench results as data', () => {
  it('works out the ratio and whether a target on it is met', () => {
    expect(figure('reconcile', { name: 'r', value: 30, unit: 'sessions/s', baseline: 120, target: { of: 'ratio', atLeast: 0.5 } })).toEqual({
      bench: 'reconcile',
      name: 'r',
      value: 30,
      unit: 'sessions/s',
      baseline: 120,
      ratio: 0.25,
      target: 'ratio >= 0.5',
      met: false,
    });
    expect(figure('scale', { name: 'p99', value: 12, unit: 'ms', target: { of: 'value', atMost: 50 }, at: 1000 })).toMatchObject({
      baseline: null,
      ratio: null,
      target: 'value <= 50',
      met: true,
      at: 1000,
    });
    // A figure without a target is neither met nor not.
    expect(figure('x', { name: 'rss', value: 1, unit: 'MiB' })).toMatchObject({ target: null, met: null });
  });

  it('replaces only its own benchmark entries, and a whole run starts afresh keeping the last one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-results-'));
    const file = join(dir, 'latest.json');
    recordResults('a', [{ name: 'one', value: 1, unit: 'x' }], file);
    recordResults('b', [{ name: 'two', value: 2, unit: 'x' }], file);
    recordResults('a', [{ name: 'three', value: 3, unit: 'x' }], file);
    expect(readResults(file).map((entry) => `${entry.bench}:${entry.name}`)).toEqual(['b:two', 'a:three']);
    startRun(file);
    expect(readResults(file)).toEqual([]);
    expect((JSON.parse(readFileSync(join(dir, 'previous.json'), 'utf8')) as unknown[]).length).toBe(2);
  });
});
