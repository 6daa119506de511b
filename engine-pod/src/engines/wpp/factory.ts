import type { EngineFactory } from '../../engine.js';

/** WPP for engine-factories.ts: the browser engines share their options (Chromium, profiles, a pinned web page), WEBJS's. */
export async function makeFactory(): Promise<EngineFactory> {
  const [{ wppEngineFactory }, { webjsOptionsFromEnv }] = await Promise.all([import('./wpp-engine.js'), import('../webjs/client-factory.js')]);
  return wppEngineFactory(webjsOptionsFromEnv(process.env));
}
