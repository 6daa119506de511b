import { BUILT_ENGINES, ENGINE_CATALOG } from '@switchboard/protocol';

/**
 * The chart's engine lists, made from protocol's engine catalog: Helm reads the chart without the
 * protocol, so the chart carries copies, and these functions write them (write.ts; the test in
 * test/source/chart-engines.test.ts fails, saying how to run it, when a copy is stale). An engine
 * added to the catalog reaches the chart by running `pnpm --filter @switchboard/operator gen:chart`.
 */

const QUANTITY = {
  type: 'string',
  pattern: '^[0-9.]+([eE][0-9]+|[numkKMGTPE]i?)?$',
  description: 'A Kubernetes quantity, e.g. 250m or 512Mi',
} as const;

/** The schema of one engine's `engines.resources` entry: both requests and the memory limit. */
function resourcesSchema(engine: string) {
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      requests: { type: 'object', additionalProperties: false, properties: { cpu: QUANTITY, memory: QUANTITY }, required: ['cpu', 'memory'] },
      limits: {
        type: 'object',
        additionalProperties: false,
        properties: { memory: QUANTITY },
        required: ['memory'],
        description: 'Only a memory limit: engines get no CPU limit (throttling stalls their connection)',
      },
    },
    required: ['requests', 'limits'],
    description: `The operator sets exactly these on every ${engine} engine container`,
  };
}

interface ChartSchema {
  properties: {
    gateway: { properties: { defaultEngine: { enum: string[] } } };
    engines: { properties: { resources: { properties: Record<string, unknown>; required: string[] } } };
  };
}

/** values.schema.json with its engine lists (the default engine's enum, one resources entry each) from the catalog. */
export function chartSchemaWithEngines(schemaText: string): string {
  const schema = JSON.parse(schemaText) as ChartSchema;
  schema.properties.gateway.properties.defaultEngine.enum = [...BUILT_ENGINES];
  const resources = schema.properties.engines.properties.resources;
  resources.properties = Object.fromEntries(BUILT_ENGINES.map((engine) => [engine, resourcesSchema(engine)]));
  resources.required = [...BUILT_ENGINES];
  return `${JSON.stringify(schema, null, 2)}\n`;
}

/** The `engines.resources` block of values.yaml: each engine's pod size, with what runs in the pod as its comment. */
function resourcesBlock(): string[] {
  return BUILT_ENGINES.flatMap((engine) => {
    const { requests, limits, holds } = ENGINE_CATALOG[engine].pod;
    return [
      `    # -- ${holds}`,
      `    ${engine}:`,
      '      requests:',
      `        cpu: ${requests.cpu}`,
      `        memory: ${requests.memory}`,
      '      limits:',
      `        memory: ${limits.memory}`,
    ];
  });
}

const BROWSER_ENGINES = () => BUILT_ENGINES.filter((engine) => ENGINE_CATALOG[engine].image === 'browser');
const SOCKET_ENGINES = () => BUILT_ENGINES.filter((engine) => ENGINE_CATALOG[engine].image !== 'browser');

/**
 * values.yaml with its engine lists from the catalog: the `engines.resources` block (the lines
 * indented under it) and the engines each placement comment names. Everything else is kept as
 * written; a file without those places is refused, naming what is missing.
 */
export function chartValuesWithEngines(valuesText: string): string {
  const lines = valuesText.split('\n');
  const enginesAt = lines.indexOf('engines:');
  const resourcesAt = lines.indexOf('  resources:', enginesAt);
  if (enginesAt < 0 || resourcesAt < 0) throw new Error('values.yaml has no engines.resources block (a line "  resources:" under "engines:")');
  let end = resourcesAt + 1;
  while (end < lines.length && lines[end]!.startsWith('    ')) end += 1;
  lines.splice(resourcesAt + 1, end - resourcesAt - 1, ...resourcesBlock());
  const placement = (pattern: RegExp, text: string) => {
    const at = lines.findIndex((line, index) => index > enginesAt && pattern.test(line));
    if (at < 0) throw new Error(`values.yaml has no comment matching ${pattern} under engines:`);
    lines[at] = text;
  };
  placement(/^ {2}# [A-Z, ]+: the socket engine image/, `  # ${SOCKET_ENGINES().join(', ')}: the socket engine image.`);
  placement(/^ {2}# [A-Z, ]+: the browser engine image/, `  # ${BROWSER_ENGINES().join(', ')}: the browser engine image, Chromium in the pod.`);
  return lines.join('\n');
}
