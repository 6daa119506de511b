import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chartSchemaWithEngines, chartValuesWithEngines } from './engine-values.js';

/** Rewrites the engine lists of the chart in the folder given (charts/switchboard) from the engine catalog. */
const chart = process.argv[2];
if (!chart) throw new Error('usage: node dist/chart/write.js <chart folder>');
const update = (file: string, change: (text: string) => string) => writeFileSync(join(chart, file), change(readFileSync(join(chart, file), 'utf8')));
update('values.schema.json', chartSchemaWithEngines);
update('values.yaml', chartValuesWithEngines);
