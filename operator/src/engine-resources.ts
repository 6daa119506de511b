import { BUILT_ENGINES, type BuiltEngine, ENGINE_CATALOG } from '@switchboard/protocol';
import { z } from 'zod';

/** Requests and limits of one engine container. Engines get no CPU limit: throttling stalls their connection. */
export interface EngineResources {
  readonly requests: { readonly cpu: string; readonly memory: string };
  readonly limits: { readonly memory: string };
}

/**
 * Each engine's defaults: its catalog entry's pod size (protocol's ENGINE_CATALOG, with the
 * measurements behind each figure), the V8 settings below (engineNodeOptions) sized from them.
 * The chart's `engines.resources` is generated from the same entries (a test keeps them equal);
 * a release overrides them per engine.
 */
export const DEFAULT_ENGINE_RESOURCES: Readonly<Record<BuiltEngine, EngineResources>> = Object.fromEntries(
  BUILT_ENGINES.map((engine) => {
    const { requests, limits } = ENGINE_CATALOG[engine].pod;
    return [engine, { requests, limits }];
  }),
) as Record<BuiltEngine, EngineResources>;

/**
 * GOWS in the socket image's Node pod, with the Go engine as its child: what an operator without
 * `SWITCHBOARD_GOWS_ENGINE_IMAGE` runs. Idle below NOWEB, a busy peak as high (396 MiB at most,
 * most of it the Node process relaying the child's events): the limit leaves it 1.9 times that.
 */
export const NODE_HOSTED_GOWS_RESOURCES: EngineResources = { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '768Mi' } };

const QUANTITY = /^[0-9.]+([eE][0-9]+|[numkKMGTPE]i?)?$/;
const quantity = z.string().regex(QUANTITY, 'a Kubernetes quantity, e.g. 250m or 512Mi');

/** One engine's settings as given: any part left out keeps the default. */
const EngineResourcesOverride = z.strictObject({
  requests: z.strictObject({ cpu: quantity.optional(), memory: quantity.optional() }).optional(),
  limits: z.strictObject({ memory: quantity.optional() }).optional(),
});

/** `SWITCHBOARD_ENGINE_RESOURCES`: per engine of this build, e.g. {"NOWEB":{"limits":{"memory":"1Gi"}}}. */
export const EngineResourcesOverrides = z.partialRecord(z.enum(BUILT_ENGINES), EngineResourcesOverride);
type EngineResourcesOverrides = z.infer<typeof EngineResourcesOverrides>;

const SUFFIXES: Record<string, number> = {
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** A memory quantity in bytes (the forms QUANTITY allows; `m` is a thousandth). */
function bytes(text: string): number {
  const match = /^([0-9.]+)(?:[eE]([0-9]+)|([numkKMGTPE]i?))?$/.exec(text);
  if (!match) return Number.NaN;
  const value = Number(match[1]);
  if (match[2] !== undefined) return value * 10 ** Number(match[2]);
  const suffix = match[3] ?? '';
  if (suffix === 'm') return value / 1e3;
  if (suffix === 'u') return value / 1e6;
  if (suffix === 'n') return value / 1e9;
  return value * (SUFFIXES[suffix] ?? Number.NaN);
}

/**
 * The defaults with the overrides over them, engine by engine and field by field. A memory
 * request above its limit is refused here, naming the engine: the API server would refuse every
 * pod of that engine instead, one session at a time.
 */
export function engineResources(
  overrides: EngineResourcesOverrides,
  { gowsInNodePod = false }: { gowsInNodePod?: boolean } = {},
): { resources: Record<BuiltEngine, EngineResources>; problems: string[] } {
  const problems: string[] = [];
  const resources = Object.fromEntries(
    BUILT_ENGINES.map((engine) => {
      const base = engine === 'GOWS' && gowsInNodePod ? NODE_HOSTED_GOWS_RESOURCES : DEFAULT_ENGINE_RESOURCES[engine];
      const given = overrides[engine];
      const merged: EngineResources = {
        requests: { ...base.requests, ...given?.requests },
        limits: { ...base.limits, ...given?.limits },
      };
      if (bytes(merged.requests.memory) > bytes(merged.limits.memory)) {
        problems.push(`${engine}: the memory request (${merged.requests.memory}) is above the memory limit (${merged.limits.memory})`);
      }
      return [engine, merged];
    }),
  ) as Record<BuiltEngine, EngineResources>;
  return { resources, problems };
}

/**
 * The V8 settings an engine pod's Node runs with (`NODE_OPTIONS`), measured with
 * `node bench/dist/all.js engine-pods`, which runs its pods with these and prints the flags it
 * tried beside them (docs/performance.md, "Engine pod memory"):
 * - `--max-semi-space-size=1`: V8 sizes its young generation for a server's throughput, and an
 *   engine pod's grew to 32 MiB (SANDBOX) and 64 MiB (NOWEB) of resident pages it never gave
 *   back; held to 1 MiB semi-spaces, idle RSS fell by 11 (SANDBOX) and 32 MiB (NOWEB), and a
 *   burst of messages costs a few more scavenges, not more memory.
 * - `--max-old-space-size`: the old generation held to a share of the pod's memory limit (the
 *   catalog's `pod.heapShare`), so V8
 *   collects harder as it nears the limit instead of the kernel OOM-killing the pod at it.
 */
export function engineNodeOptions(engine: BuiltEngine, resources: EngineResources): string {
  const limit = bytes(resources.limits.memory);
  const oldSpace = Number.isFinite(limit) ? Math.max(32, Math.floor((limit * ENGINE_CATALOG[engine].pod.heapShare) / 2 ** 20)) : null;
  return ['--max-semi-space-size=1', ...(oldSpace !== null ? [`--max-old-space-size=${oldSpace}`] : [])].join(' ');
}

/**
 * The Go engine pod's soft memory limit (`GOMEMLIMIT`), 80% of its memory limit: Go's collector
 * otherwise lets the heap double before it runs, and a pod near its limit would be OOM-killed
 * rather than collect. The rest is the runtime, stacks and the binary's pages.
 */
export function engineGoMemoryLimit(resources: EngineResources): string | null {
  const limit = bytes(resources.limits.memory);
  return Number.isFinite(limit) ? `${Math.floor((limit * 0.8) / 2 ** 20)}MiB` : null;
}
