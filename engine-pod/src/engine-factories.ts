import type { OutboundPolicy } from '@switchboard/kube/pod';
import { AVAILABLE_ENGINES, type EngineName, isBuiltEngine } from '@switchboard/protocol';
import type { EngineFactory } from './engine.js';
import type { SandboxOptions } from './engines/sandbox/sandbox-engine.js';

export interface EngineTuning {
  /** SANDBOX: its QR renewal and ack delays, over DEFAULT_SANDBOX_OPTIONS (tests shorten them). */
  readonly sandbox?: Partial<SandboxOptions>;
  /** NOWEB: the outbound address policy a session's proxy is held to; unset: the built-in rules. */
  readonly outbound?: OutboundPolicy;
}

/** `.js` as built; `.ts` where the tests run the sources (vitest), which have no `.js` beside them. */
const SOURCE_EXTENSION = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

/** What each engine's folder exports from its `factory.ts`. */
interface EngineFolder {
  makeFactory(tuning: EngineTuning): Promise<EngineFactory>;
}

/**
 * How an engine of this build is made, by the engine pod (cluster mode) and by the local-mode
 * gateway alike: from its folder, `engines/<engine in lower case>/factory.ts`, so that an engine is
 * its folder and its catalog entry, with no table to add it to (engine-pod/test/engine-catalog.test.ts
 * makes every built engine this way). Each folder's factory loads its engine's code when asked, not
 * before: a pod runs one engine, and Baileys alone was about 35 MiB of every SANDBOX, GOWS and WEBJS
 * pod's memory and most of a second of its start (`node bench/dist/all.js engine-pods`;
 * engine-pod/test/cluster/pod-module-graph.test.ts keeps it so).
 */
export async function engineFactory(engine: EngineName, tuning: EngineTuning = {}): Promise<EngineFactory> {
  // Every engine name is built today; a build that leaves one out refuses it here.
  const name: string = engine;
  if (!isBuiltEngine(engine)) throw new Error(`engine ${name} is not in this engine pod build (it has ${AVAILABLE_ENGINES.join(', ')})`);
  const folder = (await import(
    /* @vite-ignore */ new URL(`./engines/${engine.toLowerCase()}/factory${SOURCE_EXTENSION}`, import.meta.url).href
  )) as EngineFolder;
  return folder.makeFactory(tuning);
}
