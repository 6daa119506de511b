import type { EngineFactory } from '../../engine.js';

/** GOWS for engine-factories.ts: the engine runs whatsmeow as its child, in a pod as in local mode (docs/architecture.md, "GOWS"). */
export async function makeFactory(): Promise<EngineFactory> {
  const [{ gowsEngineFactory }, { gowsOptionsFromEnv }] = await Promise.all([import('./gows-engine.js'), import('./options.js')]);
  return gowsEngineFactory(gowsOptionsFromEnv(process.env));
}
