import { Session } from 'node:inspector/promises';

/** The parts of a V8 CPU profile (`--cpu-prof`, or the inspector's Profiler.stop) read here. */
export interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
    readonly children?: readonly number[];
  }[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface Cost {
  readonly name: string;
  /** Share of the profile's samples, 0..1. */
  readonly share: number;
}

/** Where a frame's code is: a package (`fastify`, `pino`), a workspace package's file (`gateway/local/...`), node's own, or V8's. */
function placeOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : `native ${functionName || '(anonymous)'}`;
  if (url.startsWith('node:')) return url;
  const inModules = url.split('/node_modules/').at(-1)!;
  if (inModules !== url) {
    const parts = inModules.split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const workspace = /\/(protocol|kube|engine-pod|gateway|bench)\/dist\/(.*)\.js$/.exec(url);
  return workspace ? `${workspace[1]}/${workspace[2]}` : url;
}

/**
 * The profile's self time summed by place (package, node module, or one of our files) and by
 * function, largest first, as shares of the samples that were not idle; `idle` is the idle
 * samples' share of all, `gc` the garbage collector's of the busy ones.
 */
export function topCosts(profile: CpuProfile): { byPlace: Cost[]; byFunction: Cost[]; idle: number; gc: number } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const counts = new Map<number, number>();
  for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
  const total = profile.samples.length;
  const place = new Map<string, number>();
  const fn = new Map<string, number>();
  let idle = 0;
  let gc = 0;
  for (const [id, count] of counts) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') {
      idle += count;
      continue;
    }
    if (frame.functionName === '(garbage collector)') gc += count;
    const where = placeOf(frame.url, frame.functionName);
    place.set(where, (place.get(where) ?? 0) + count);
    const name = `${frame.functionName || '(anonymous)'} ${where}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    fn.set(name, (fn.get(name) ?? 0) + count);
  }
  const busy = Math.max(1, total - idle);
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]).map(([name, count]) => ({ name, share: count / busy }));
  return { byPlace: sorted(place), byFunction: sorted(fn), idle: idle / total, gc: gc / busy };
}

/** The top three costs by place and by function, as a bench prints them: whose profile, of which run. */
export function costsReport(whose: string, run: string, costs: ReturnType<typeof topCosts>): string {
  const pct = (share: number) => `${(share * 100).toFixed(1)} %`;
  const top = (list: readonly Cost[]) =>
    list
      .slice(0, 3)
      .map((c) => `${c.name} ${pct(c.share)}`)
      .join(', ');
  return [
    `${whose} CPU profile (${run}, main thread, ${pct(costs.idle)} of it idle), top costs by self time, as shares of the busy time (garbage collection ${pct(costs.gc)}):`,
    `  by place: ${top(costs.byPlace)}`,
    `  by function: ${top(costs.byFunction)}`,
  ].join('\n');
}

/** Profiles this process (every thread's JS is not included: the main thread's) while `work` runs. */
export async function profiled<T>(work: () => Promise<T>): Promise<{ result: T; profile: CpuProfile }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  try {
    const result = await work();
    const { profile } = await session.post('Profiler.stop');
    return { result, profile: profile as unknown as CpuProfile };
  } finally {
    session.disconnect();
  }
}
