import type { EngineFactory } from '../../engine.js';
import type { EngineTuning } from '../../engine-factories.js';

/** SANDBOX for engine-factories.ts: its QR renewal and ack delays over the defaults (tests shorten them). */
export async function makeFactory(tuning: EngineTuning): Promise<EngineFactory> {
  const { DEFAULT_SANDBOX_OPTIONS, SandboxEngine } = await import('./sandbox-engine.js');
  const options = { ...DEFAULT_SANDBOX_OPTIONS, ...tuning.sandbox };
  return (context) => new SandboxEngine(context, options);
}
