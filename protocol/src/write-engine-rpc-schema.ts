import { writeFileSync } from 'node:fs';
import { engineRpcJsonSchema } from './engine-rpc-schema.js';

/** Writes the engine RPC's JSON Schema to the path given (engines/gows/engine-rpc.schema.json). */
for (const path of process.argv.slice(2)) writeFileSync(path, `${JSON.stringify(engineRpcJsonSchema(), null, 2)}\n`);
