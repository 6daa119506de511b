import { type EngineFactory, engineFactory, type SandboxOptions } from '@switchboard/engine-pod';
import type { OutboundPolicy } from '@switchboard/kube';
import { BUILT_ENGINES, type BuiltEngine } from '@switchboard/protocol';

/**
 * How local mode makes each engine of this build, in this process: engine-pod's `engineFactory`
 * (each engine folder's factory.ts), which the engine pod of cluster mode uses too.
 */
export type EngineFactories = Readonly<Record<BuiltEngine, EngineFactory>>;

export async function localEngineFactories(options: { sandbox: SandboxOptions; outbound: OutboundPolicy }): Promise<EngineFactories> {
  const made = await Promise.all(BUILT_ENGINES.map(async (engine) => [engine, await engineFactory(engine, options)] as const));
  return Object.fromEntries(made) as EngineFactories;
}
