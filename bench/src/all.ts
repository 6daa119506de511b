import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { RESULTS_FILE, startRun } from './results.js';

/**
 * `make bench`: every benchmark, one after the other, each in a process of its own so that none
 * inherits another's heap, JIT state or leftover servers. Names on the command line pick some
 * (`node bench/dist/all.js reconcile`). A benchmark that crashes makes the exit code 1 once the
 * others have run; none of them fails on a time.
 */
const BENCHMARKS = [
  'send-text',
  'webhook-deliveries',
  'command-round-trip',
  'reconcile',
  'scale',
  'engine-memory',
  'engine-pods',
  'browser-memory',
] as const;

async function main(): Promise<number> {
  const picked = process.argv.slice(2);
  const unknown = picked.filter((name) => !(BENCHMARKS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    console.error(`unknown benchmark ${unknown.join(', ')}; there are ${BENCHMARKS.join(', ')}`);
    return 2;
  }
  // A whole run starts bench/results/latest.json afresh (the last run's becomes previous.json);
  // a part run alone replaces only its own entries.
  if (picked.length === 0) startRun();
  const failed: string[] = [];
  for (const name of picked.length > 0 ? picked : BENCHMARKS) {
    console.log(`\n=== ${name} ===`);
    const code = await run(fileURLToPath(new URL(`./${name}.js`, import.meta.url)));
    if (code !== 0) failed.push(`${name} (exit ${code})`);
  }
  console.log(`\nresults: ${RESULTS_FILE}`);
  // The charts of docs/performance.md, from every figure the file holds now.
  if ((await run(fileURLToPath(new URL('./charts.js', import.meta.url)))) !== 0) failed.push('charts');
  if (failed.length > 0) console.error(`\nbenchmarks that did not finish: ${failed.join(', ')}`);
  return failed.length > 0 ? 1 : 0;
}

function run(script: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script], { stdio: 'inherit' });
    child.once('error', () => resolve(1));
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
