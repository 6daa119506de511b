import { sample } from '@switchboard/testkit';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ScrapeTimeCounter } from '../../src/metrics/scrape-time-counter.js';

describe('ScrapeTimeCounter', () => {
  it('exposes each label combination with its count, the same at every scrape until it counts again', async () => {
    const registry = new Registry();
    const counter = new ScrapeTimeCounter({ name: 'things_total', help: 'Things', labelNames: ['session', 'kind'], registry });
    counter.inc('a', 'x');
    counter.inc('a', 'x');
    counter.inc('a', 'y');
    counter.inc('b', 'x');

    const first = await registry.metrics();
    expect(first).toContain('# TYPE things_total counter');
    expect(sample(first, 'things_total', { session: 'a', kind: 'x' })).toBe(2);
    expect(sample(first, 'things_total', { session: 'a', kind: 'y' })).toBe(1);
    expect(sample(first, 'things_total', { session: 'b', kind: 'x' })).toBe(1);
    // A scrape hands the totals over afresh: a second one does not add them again.
    expect(sample(await registry.metrics(), 'things_total')).toBe(4);

    counter.inc('b', 'x');
    const later = await registry.metrics();
    expect(sample(later, 'things_total', { session: 'b', kind: 'x' })).toBe(2);
    expect(sample(later, 'things_total')).toBe(5);
  });

  it('keeps label values apart that a plain join would run together', async () => {
    const registry = new Registry();
    const counter = new ScrapeTimeCounter({ name: 'pairs_total', help: 'Pairs', labelNames: ['first', 'second'], registry });
    counter.inc('ab', 'c');
    counter.inc('a', 'bc');
    const text = await registry.metrics();
    expect(sample(text, 'pairs_total', { first: 'ab', second: 'c' })).toBe(1);
    expect(sample(text, 'pairs_total', { first: 'a', second: 'bc' })).toBe(1);
  });
});
