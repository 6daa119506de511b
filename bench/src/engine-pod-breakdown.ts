import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * What an engine pod's memory is (issue 17): engine-pods.ts starts one more pod per engine with
 * pod-probe.ts loaded and asks it, once WORKING and idle, for `process.memoryUsage()`, V8's heap
 * spaces, the resident memory of each mapping and the modules it loaded, and for a heap snapshot,
 * summarized here by what holds the most. Beside it, what each module the pod loads costs at
 * import, each in a fresh process (import-cost.ts).
 */

/** What pod-probe.ts writes. */
export interface Probe {
  readonly memory: NodeJS.MemoryUsage;
  readonly spaces: Record<string, { size: number; used: number }>;
  readonly code: { code_and_metadata_size: number; bytecode_and_metadata_size: number; external_script_source_size: number };
  readonly mappings: Record<string, number>;
  readonly modules: Record<string, number>;
}

export const PROBE_SCRIPT = fileURLToPath(new URL('./pod-probe.js', import.meta.url));
const IMPORT_COST = fileURLToPath(new URL('./import-cost.js', import.meta.url));
const POD_PACKAGE = fileURLToPath(new URL('../package.json', import.meta.resolve('@switchboard/engine-pod')));
const podFile = (path: string) => fileURLToPath(new URL(`./${path}`, import.meta.resolve('@switchboard/engine-pod')));

/** Each row imports its modules alone into a fresh process; the pod's own files as built. */
const IMPORTS: readonly (readonly [string, readonly string[]])[] = [
  ['pino', ['pino']],
  ['nats', ['nats']],
  ['zod', ['zod']],
  ['undici', ['undici']],
  ['@switchboard/protocol (zod + every schema)', ['@switchboard/protocol']],
  ['@switchboard/kube/pod (protocol + nats)', ['@switchboard/kube/pod']],
  ['the pod without an engine (pod/engine-pod.js)', [podFile('pod/engine-pod.js')]],
  ['SANDBOX engine (engines/sandbox)', [podFile('engines/sandbox/sandbox-engine.js')]],
  ['Baileys', ['@whiskeysockets/baileys']],
  ['NOWEB engine (engines/noweb, Baileys)', [podFile('engines/noweb/noweb-engine.js')]],
];

interface ImportCost {
  readonly rss: number;
  readonly anon: number;
  readonly heap: number;
  readonly external: number;
}

function importCost(modules: readonly string[], nodeArgs: readonly string[]): Promise<ImportCost> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--expose-gc', ...nodeArgs, IMPORT_COST, ...modules],
      { env: { ...process.env, BENCH_RESOLVE_FROM: POD_PACKAGE } },
      (error, stdout) => {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- execFile's error is an Error
        if (error) return reject(error);
        resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as ImportCost);
      },
    );
  });
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

/** Prints the import cost of each module the pod loads, in a fresh process each, with the pod's V8 flags. */
export async function printImportCosts(nodeArgs: readonly string[]): Promise<Record<string, ImportCost>> {
  const costs: Record<string, ImportCost> = {};
  for (const [name, modules] of IMPORTS) costs[name] = await importCost(modules, nodeArgs);
  console.log(
    `\nWhat each module adds to an idle node process at import, each alone in a fresh process, after GC (MiB; ${nodeArgs.join(' ') || 'no flags'}):`,
  );
  const width = Math.max(...IMPORTS.map(([name]) => name.length));
  console.log(`${'module'.padEnd(width)}   RSS  anon  heap  external`);
  for (const [name, cost] of Object.entries(costs)) {
    console.log(`${name.padEnd(width)} ${[cost.rss, cost.anon, cost.heap, cost.external].map((b) => mib(b).padStart(5)).join(' ')}`);
  }
  console.log('(they overlap: each row includes the node builtins and packages it shares with the others)');
  return costs;
}

/** One engine's breakdown: where its resident memory is, the V8 heap by space, and what loaded most modules. */
export function printProbe(engine: string, probe: Probe, snapshot: readonly string[]): void {
  const m = probe.memory;
  const space = (name: string) => probe.spaces[name] ?? { size: 0, used: 0 };
  const maps = Object.entries(probe.mappings).sort((a, b) => b[1] - a[1]);
  const code = probe.code;
  console.log(`\n${engine} idle, from inside the process (MiB):`);
  console.log(
    `  process.memoryUsage(): rss ${mib(m.rss)}, heapTotal ${mib(m.heapTotal)}, heapUsed ${mib(m.heapUsed)}, external ${mib(m.external)}, arrayBuffers ${mib(m.arrayBuffers)}`,
  );
  console.log(
    `  V8 heap (size/used): new ${mib(space('new_space').size)}/${mib(space('new_space').used)}, old ${mib(space('old_space').size)}/${mib(space('old_space').used)}, ` +
      `code ${mib(space('code_space').size)}/${mib(space('code_space').used)}, large objects ${mib(space('large_object_space').size)}, trusted ${mib(space('trusted_space').size)}; ` +
      `bytecode ${mib(code.bytecode_and_metadata_size)}, machine code ${mib(code.code_and_metadata_size)}, script sources ${mib(code.external_script_source_size)}`,
  );
  console.log(`  resident by mapping: ${maps.map(([name, bytes]) => `${name} ${mib(bytes)}`).join(', ')}`);
  const modules = Object.entries(probe.modules).sort((a, b) => b[1] - a[1]);
  const total = modules.reduce((sum, [, n]) => sum + n, 0);
  console.log(
    `  ${total} modules loaded; most from: ${modules
      .slice(0, 10)
      .map(([name, n]) => `${name} ${n}`)
      .join(', ')}`,
  );
  for (const line of snapshot) console.log(`  ${line}`);
}

/** The heap snapshot's largest holders: self size summed by node type and constructor or name. */
export function summarizeSnapshot(file: string): string[] {
  const data = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = data.snapshot.meta.node_fields;
  const types = data.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = [fields.indexOf('type'), fields.indexOf('name'), fields.indexOf('self_size')];
  const bySize = new Map<string, number>();
  const byType = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < data.nodes.length; i += fields.length) {
    const type = types[data.nodes[i + typeAt]!]!;
    const size = data.nodes[i + sizeAt]!;
    total += size;
    byType.set(type, (byType.get(type) ?? 0) + size);
    // Strings and code by kind only: their names are their contents.
    const name = type === 'object' || type === 'closure' ? `${type} ${data.strings[data.nodes[i + nameAt]!]}` : type;
    bySize.set(name, (bySize.get(name) ?? 0) + size);
  }
  const top = (map: Map<string, number>, n: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, size]) => `${name} ${mib(size)}`)
      .join(', ');
  return [`heap snapshot, ${mib(total)} MiB of objects; by kind: ${top(byType, 8)}`, `largest by constructor: ${top(bySize, 12)}`];
}
