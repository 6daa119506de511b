import { registerHooks } from 'node:module';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { getHeapCodeStatistics, getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';

/**
 * Loaded into an engine pod process with `--import` by engine-pods.ts (only into the extra pod it
 * starts for the breakdown, never into the one whose memory it reports): on SIGUSR2 it writes
 * what the process holds to `BENCH_PROBE_OUT` as JSON: `process.memoryUsage()`, V8's heap spaces
 * and code statistics, the resident memory of each mapping (the node binary's pages, anonymous
 * memory, malloc's heap), and how many modules each package loaded. With `BENCH_PROBE_SNAPSHOT`
 * it also writes a heap snapshot there.
 */
const loaded: string[] = [];
registerHooks({
  load(url, context, next) {
    loaded.push(url);
    return next(url, context);
  },
});

/** A module URL's package (`undici`, `@whiskeysockets/baileys`), `node:` for builtins, else `switchboard`. */
function packageOf(url: string): string {
  if (url.startsWith('node:')) return 'node: builtins';
  const inModules = url.split('/node_modules/').at(-1)!;
  if (inModules === url) return 'switchboard';
  const parts = inModules.split('/');
  return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

/** Resident kB per mapping kind, from /proc/self/smaps. */
function mappings(): Record<string, number> {
  const rss: Record<string, number> = {};
  let current = '';
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const path = head[1] ?? '';
      current = path === '' ? 'anonymous' : path === process.execPath ? 'node binary' : path.startsWith('/') ? 'shared libraries' : path;
      continue;
    }
    const value = /^Rss:\s+(\d+) kB/.exec(line);
    if (value) rss[current] = (rss[current] ?? 0) + Number(value[1]) * 1024;
  }
  return rss;
}

process.on('SIGUSR2', () => {
  const modules: Record<string, number> = {};
  for (const url of loaded) modules[packageOf(url)] = (modules[packageOf(url)] ?? 0) + 1;
  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, { size: s.space_size, used: s.space_used_size }]));
  const out = process.env.BENCH_PROBE_OUT;
  if (!out) return;
  // The figures before the snapshot (which allocates); the file named `out` only once both are written.
  writeFileSync(
    `${out}.part`,
    JSON.stringify({ memory: process.memoryUsage(), spaces, code: getHeapCodeStatistics(), mappings: mappings(), modules }),
  );
  const snapshot = process.env.BENCH_PROBE_SNAPSHOT;
  if (snapshot) writeHeapSnapshot(snapshot);
  renameSync(`${out}.part`, out);
});
