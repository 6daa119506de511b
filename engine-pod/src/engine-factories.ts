import type { OutboundPolicy } from '@switchboard/kube/pod';
import { AVAILABLE_ENGINES, type BuiltEngine, type EngineName, isBuiltEngine } from '@switchboard/protocol';
import type { EngineFactory } from './engine.js';
import type { SandboxOptions } from './engines/sandbox/sandbox-engine.js';

export interface EngineTuning {
  /** SANDBOX: its QR renewal and ack delays, over DEFAULT_SANDBOX_OPTIONS (tests shorten them). */
  readonly sandbox?: Partial<SandboxOptions>;
  /** NOWEB: the outbound address policy a session's proxy is held to; unset: the built-in rules. */
  readonly outbound?: OutboundPolicy;
}

/**
 * How each engine of this build is made (protocol's BUILT_ENGINES: one entry each), by the engine
 * pod (cluster mode) and by the local-mode gateway alike: the one factory table. Each loads its engine's code when asked, not before: a pod runs one engine, and Baileys alone
 * was about 35 MiB of every SANDBOX, GOWS and WEBJS pod's memory and most of a second of its
 * start (`node bench/dist/all.js engine-pods`; test/cluster/pod-module-graph.test.ts keeps it so).
 */
const CATALOG: Readonly<Record<BuiltEngine, (tuning: EngineTuning) => Promise<EngineFactory>>> = {
  SANDBOX: async (tuning) => {
    const { DEFAULT_SANDBOX_OPTIONS, SandboxEngine } = await import('./engines/sandbox/sandbox-engine.js');
    const options = { ...DEFAULT_SANDBOX_OPTIONS, ...tuning.sandbox };
    return (context) => new SandboxEngine(context, options);
  },
  WEBJS: async () => {
    const { webjsEngineFactory, webjsOptionsFromEnv } = await import('./engines/webjs/client-factory.js');
    return webjsEngineFactory(webjsOptionsFromEnv(process.env));
  },
  NOWEB: async (tuning) => {
    const [{ nowebEngineFactory }, { nowebOptionsFromEnv }] = await Promise.all([
      import('./engines/noweb/noweb-engine.js'),
      import('./engines/noweb/options.js'),
    ]);
    const options = nowebOptionsFromEnv(process.env);
    return nowebEngineFactory(tuning.outbound ? { ...options, outbound: tuning.outbound } : options);
  },
  // The browser engines share their options (Chromium, profiles, a pinned web page): WEBJS's.
  WPP: async () => {
    const [{ wppEngineFactory }, { webjsOptionsFromEnv }] = await Promise.all([
      import('./engines/wpp/wpp-engine.js'),
      import('./engines/webjs/client-factory.js'),
    ]);
    return wppEngineFactory(webjsOptionsFromEnv(process.env));
  },
  // The engine pod runs whatsmeow as its child, as local mode does (docs/architecture.md, "GOWS").
  GOWS: async () => {
    const [{ gowsEngineFactory }, { gowsOptionsFromEnv }] = await Promise.all([
      import('./engines/gows/gows-engine.js'),
      import('./engines/gows/options.js'),
    ]);
    return gowsEngineFactory(gowsOptionsFromEnv(process.env));
  },
};

/** The config check rejects an engine this build does not have, before anything starts. */
export async function engineFactory(engine: EngineName, tuning: EngineTuning = {}): Promise<EngineFactory> {
  // Every engine name is built today; a build that leaves one out refuses it here.
  const name: string = engine;
  if (!isBuiltEngine(engine)) throw new Error(`engine ${name} is not in this engine pod build (it has ${AVAILABLE_ENGINES.join(', ')})`);
  return CATALOG[engine](tuning);
}
