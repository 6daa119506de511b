import type { EngineFactory } from '../../engine.js';

/** WEBJS for engine-factories.ts: Chromium, profiles and a pinned web page from the environment. */
export async function makeFactory(): Promise<EngineFactory> {
  const { webjsEngineFactory, webjsOptionsFromEnv } = await import('./client-factory.js');
  return webjsEngineFactory(webjsOptionsFromEnv(process.env));
}
