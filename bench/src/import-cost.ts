import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/**
 * Run by engine-pod-breakdown.ts in a fresh `node --expose-gc` per module: what importing the
 * modules named on the command line (resolved from engine-pod's package, as the pod resolves
 * them) adds to an idle process, after GC. Prints one JSON line: RSS, anonymous memory, V8 heap
 * used and external memory added, in bytes.
 */
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const fromPod = createRequire(process.env.BENCH_RESOLVE_FROM!);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function read(): { rss: number; anon: number; heap: number; external: number } {
  gc!();
  gc!();
  const memory = process.memoryUsage();
  const anon = Number(/RssAnon:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;
  return { rss: memory.rss, anon, heap: memory.heapUsed, external: memory.external };
}

await sleep(100);
const before = read();
for (const name of process.argv.slice(2)) {
  await import(name.startsWith('/') ? pathToFileURL(name).href : pathToFileURL(fromPod.resolve(name)).href);
}
await sleep(200);
const after = read();
console.log(
  JSON.stringify({
    rss: after.rss - before.rss,
    anon: after.anon - before.anon,
    heap: after.heap - before.heap,
    external: after.external - before.external,
  }),
);
