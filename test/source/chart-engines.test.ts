import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BUILT_ENGINES } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/**
 * The Helm chart names the engines in its values and their schema, which Helm reads without the
 * protocol: this holds each of those lists to protocol's BUILT_ENGINES, naming what one lacks or
 * has extra, so adding an engine fails here until the chart says how to size and default it.
 */
const chart = (file: string) => readFileSync(fileURLToPath(new URL(`../../charts/switchboard/${file}`, import.meta.url)), 'utf8');
const schema = JSON.parse(chart('values.schema.json')) as {
  properties: {
    gateway: { properties: { defaultEngine: { enum: string[] } } };
    engines: { properties: { resources: { properties: Record<string, unknown>; required: string[] } } };
  };
};
const values = parse(chart('values.yaml')) as { engines: { resources: Record<string, unknown> } };

/** What a list lacks and has extra, against the catalog: both empty when they agree. */
function difference(list: readonly string[]): { missing: string[]; extra: string[] } {
  return {
    missing: BUILT_ENGINES.filter((engine) => !list.includes(engine)),
    extra: list.filter((engine) => !(BUILT_ENGINES as readonly string[]).includes(engine)),
  };
}

describe("the chart's engine lists are the catalog's (protocol BUILT_ENGINES)", () => {
  it.each([
    ['values.schema.json gateway.defaultEngine enum', schema.properties.gateway.properties.defaultEngine.enum],
    ['values.schema.json engines.resources properties', Object.keys(schema.properties.engines.properties.resources.properties)],
    ['values.schema.json engines.resources required', schema.properties.engines.properties.resources.required],
    ['values.yaml engines.resources', Object.keys(values.engines.resources)],
  ])('%s', (_where, list) => {
    expect(difference(list)).toEqual({ missing: [], extra: [] });
  });
});
