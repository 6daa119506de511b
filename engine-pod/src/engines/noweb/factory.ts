import type { EngineFactory } from '../../engine.js';
import type { EngineTuning } from '../../engine-factories.js';

/** NOWEB for engine-factories.ts: its options from the environment, a session's proxy held to the outbound policy given. */
export async function makeFactory(tuning: EngineTuning): Promise<EngineFactory> {
  const [{ nowebEngineFactory }, { nowebOptionsFromEnv }] = await Promise.all([import('./noweb-engine.js'), import('./options.js')]);
  const options = nowebOptionsFromEnv(process.env);
  return nowebEngineFactory(tuning.outbound ? { ...options, outbound: tuning.outbound } : options);
}
