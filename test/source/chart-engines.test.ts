import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chartSchemaWithEngines, chartValuesWithEngines } from '@switchboard/operator';
import { describe, expect, it } from 'vitest';

/**
 * The Helm chart names the engines in its values and their schema, which Helm reads without the
 * protocol: each of those lists is written from the engine catalog (operator/src/chart/), and this
 * fails when the chart's copy is not what the catalog makes, so an engine added to the catalog (or
 * a pod size changed there) reaches the chart by running the generator, not by hand.
 */
const chart = (file: string) => readFileSync(fileURLToPath(new URL(`../../charts/switchboard/${file}`, import.meta.url)), 'utf8');
const REGENERATE = 'stale: run `pnpm exec tsc -b operator && pnpm --filter @switchboard/operator gen:chart`';

describe("the chart's engine lists are the catalog's (protocol ENGINE_CATALOG)", () => {
  it.each([
    ['values.schema.json', chartSchemaWithEngines],
    ['values.yaml', chartValuesWithEngines],
  ])('%s', (file, generate) => {
    const text = chart(file);
    expect(generate(text), `charts/switchboard/${file} is ${REGENERATE}`).toBe(text);
  });

  it('refuses a values.yaml without the places it writes, naming what is missing', () => {
    expect(() => chartValuesWithEngines('gateway:\n  port: 3000\n')).toThrow(/no engines\.resources block/);
    expect(() => chartValuesWithEngines('engines:\n  resources:\n    X: {}\n')).toThrow(/socket engine image/);
  });
});
